#!/usr/bin/env python3
"""peg25: a 0.2 m cube dropped onto a plane under PEG (flat, on an edge, on a
corner; the scenes of tests/peg_plane.rs) and Housner's rocking block's scene,
run by a given binary: max energy gain over E0 per m g L, the deepest
penetration (CSV max_penetration) over the run and over its last 0.5 s.

    python3 benches/scripts/peg25_plane.py BIN [h ...]
    ROCK=h[,h...] python3 benches/scripts/peg25_plane.py BIN   (the rocking block)
    ROCK=slope python3 benches/scripts/peg25_plane.py BIN     (a box on a 20° plane)
"""
import csv, math, os, subprocess, sys, tempfile

HALF, G = 0.1, 9.81


def body_on_plane(name, half, pos, rpy, dt, mu):
    """A PEG scene: a 1 kg box `name` of half-extents `half` at `pos`, `rpy`
    on a static plane, friction `mu` on both."""
    return f"""[world]
gravity = [0.0, 0.0, -{G}]
dt = {dt}
method = "peg"

[[body]]
name = "ground"
static = true
shape = {{ type = "plane" }}
material = {{ mu = {mu} }}

[[body]]
name = "{name}"
shape = {{ type = "box", half_extents = [{half[0]}, {half[1]}, {half[2]}] }}
mass = 1.0
position = [{pos[0]}, {pos[1]}, {pos[2]}]
rpy = [{rpy[0]}, {rpy[1]}, {rpy[2]}]
material = {{ mu = {mu} }}
"""


def scene(rpy, dt):
    z = HALF * math.sqrt(3) + 0.05
    return body_on_plane("cube", (HALF,) * 3, (0, 0, z), rpy, dt, 0.5)


def run(binary, text, steps):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "s.toml")
        open(p, "w").write(text)
        out = subprocess.run([binary, "run", p, "--steps", str(steps)],
                             check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(out.splitlines()))


def main():
    binary = sys.argv[1]
    hs = [float(x) for x in sys.argv[2:]] or [1e-3, 1e-2]
    off, q = math.radians(5), math.pi / 4
    poses = {"flat": (0, 0, 0), "edge": (q - off, 0, 0),
             "corner": (q - off, math.atan(math.sqrt(0.5)) - off, 0)}
    for name, rpy in poses.items():
        for h in hs:
            steps = round(2.0 / h)
            rows = run(binary, scene(rpy, h), steps)
            e = [float(r["kinetic"]) + float(r["potential"]) for r in rows]
            pen = [float(r["max_penetration"]) for r in rows]
            last = [p for r, p in zip(rows, pen) if float(r["time"]) >= 1.5]
            vz = max(float(r["cube.vz"]) for r in rows)
            print(f"{name:6} h = {h:6}: max E - E(1) = {(max(e) - e[0]) / (G * 2 * HALF):+.2e} m g L, "
                  f"deepest {max(pen):.2e} m, last 0.5 s {max(last):.2e} m, max v_z {vz:+.3f} m/s")


def rocking(binary, h):
    """Housner's rocking block (tests/contact_rocking.rs's scene) under PEG at
    step h: (first landing, s; energy kept at the first landing)."""
    a, b, th0 = 0.05, 0.1, 0.2
    rx, rz = a * math.cos(th0) - b * math.sin(th0), -a * math.sin(th0) - b * math.cos(th0)
    text = body_on_plane("block", (a, 0.05, b), (-rx, 0.0, -rz + 1e-9), (0.0, th0, 0.0), h, 1.0)
    rows = run(binary, text, round(1.0 / h))
    al = math.atan2(a, b)
    energy = lambda th: math.cos(al - abs(th)) - math.cos(al)
    landing, landings, rebound = None, 0, 0.0
    for r in rows:
        th = 2 * math.atan2(float(r["block.qy"]), float(r["block.qw"]))
        if landings == 0 and th <= 0:
            landings, landing = 1, float(r["time"])
        elif landings == 1 and th > 0:
            break
        elif landings == 1:
            rebound = max(rebound, -th)
    return landing, energy(rebound) / energy(th0)


def slope(binary, mu, h=1e-3, th=math.radians(20)):
    """A 0.1 m box resting on a plane tilted by th (20°) under PEG, 1 s at h:
    (distance slid down the slope, m; Coulomb's ½ g (sin θ − μ cos θ)⁺ t²;
    the CSV's largest max_penetration)."""
    c, s = math.cos(th / 2), math.sin(th / 2)
    n = (math.sin(th), 0.0, math.cos(th))
    text = body_on_plane("box", (0.05,) * 3, ((0.05 + 1e-9) * n[0], 0.0, (0.05 + 1e-9) * n[2]),
                         (0.0, 0.0, 0.0), h, mu)
    # The plane and the box tilted alike (orientation instead of rpy).
    text = text.replace('shape = { type = "plane" }',
                        f'shape = {{ type = "plane" }}\norientation = [{c}, 0.0, {s}, 0.0]')
    text = text.replace("rpy = [0.0, 0.0, 0.0]", f"orientation = [{c}, 0.0, {s}, 0.0]")
    rows = run(binary, text, round(1.0 / h))
    x0, z0 = float(rows[0]["box.x"]), float(rows[0]["box.z"])
    x1, z1 = float(rows[-1]["box.x"]), float(rows[-1]["box.z"])
    # Downhill along the slope: (cos θ, 0, −sin θ) for a plane turned +θ about y
    # (normal (sin θ, 0, cos θ)).
    d = (x1 - x0) * math.cos(th) - (z1 - z0) * math.sin(th)
    t = float(rows[-1]["time"])
    coulomb = 0.5 * max(G * (math.sin(th) - mu * math.cos(th)), 0.0) * t * t
    return d, coulomb, max(float(r["max_penetration"]) for r in rows)


if __name__ == "__main__" and not os.environ.get("ROCK"):
    main()
elif __name__ == "__main__" and os.environ.get("ROCK") == "slope":
    for mu in (0.5, 0.2):
        print("slope 20°, mu = %g: slid %.5f m in 1 s (Coulomb %.5f), max penetration %.2e"
              % ((mu,) + slope(sys.argv[1], mu)))
elif __name__ == "__main__":
    for h in [float(x) for x in os.environ["ROCK"].split(",")]:
        print("rocking h = %g: landing %.4f s, energy kept %.3f" % ((h,) + rocking(sys.argv[1], h)))
