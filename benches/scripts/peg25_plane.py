#!/usr/bin/env python3
"""peg25: a 0.2 m cube dropped onto a plane under PEG (flat, on an edge, on a
corner; the scenes of tests/peg_plane.rs) and Housner's rocking block's scene,
run by a given binary: max energy gain over E0 per m g L, the deepest
penetration (CSV max_penetration) over the run and over its last 0.5 s.

    python3 benches/scripts/peg25_plane.py BIN [h ...]
"""
import csv, math, os, subprocess, sys, tempfile

HALF, G = 0.1, 9.81


def scene(rpy, dt):
    z = HALF * math.sqrt(3) + 0.05
    return f"""[world]
gravity = [0.0, 0.0, -{G}]
dt = {dt}
method = "peg"

[[body]]
name = "ground"
static = true
shape = {{ type = "plane" }}
material = {{ mu = 0.5 }}

[[body]]
name = "cube"
shape = {{ type = "box", half_extents = [{HALF}, {HALF}, {HALF}] }}
mass = 1.0
position = [0.0, 0.0, {z}]
rpy = [{rpy[0]}, {rpy[1]}, {rpy[2]}]
material = {{ mu = 0.5 }}
"""


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
            e0 = e[0] - float(rows[0]["kinetic"])  # at rest at t = 0 (approx: V after 1 step)
            pen = [float(r["max_penetration"]) for r in rows]
            last = [p for r, p in zip(rows, pen) if float(r["time"]) >= 1.5]
            vz = max(float(r["cube.vz"]) for r in rows)
            print(f"{name:6} h = {h:6}: max E - E(1) = {(max(e) - e[0]) / (G * 2 * HALF):+.2e} m g L, "
                  f"deepest {max(pen):.2e} m, last 0.5 s {max(last):.2e} m, max v_z {vz:+.3f} m/s")


if __name__ == "__main__":
    main()
