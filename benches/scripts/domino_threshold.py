#!/usr/bin/env python3
"""A standing domino's tipping threshold (docs/EXPERIMENTS.md, "A standing domino").

A 0.1 kg box of half extents (a, 0.025, b) stands on a plane, set turning about its
bottom edge at x = +a with f * omega*, omega* the rigid threshold. Prints, per f, the
largest tilt and the tilt at the end (degrees) beside the rigid body's largest tilt.

    python3 benches/scripts/domino_threshold.py BIN METHOD [--a 0.005] [--b 0.05]
        [--rk4] [--modal] [--steps 1500] [--f 0.5,0.9,0.97,1.03,1.1]
    python3 benches/scripts/domino_threshold.py --mujoco [--a ...] [--settle 0.5]
        (MuJoCo 4.0, venv python; settled 0.5 s on its soft contact before the turn)
"""
import argparse, csv, math, os, subprocess, tempfile

MASS, G = 0.1, 9.81


def omega_star(a, b):
    i_edge = MASS * (4 * a * a + 4 * b * b) / 12 + MASS * (a * a + b * b)
    return math.sqrt(2 * MASS * G * (math.hypot(a, b) - b) / i_edge)


def rigid_tilt(a, b, f):
    if f >= 1:
        return float("nan")
    lift = f * f * (math.hypot(a, b) - b)
    return math.degrees(math.atan(a / b) - math.acos((b + lift) / math.hypot(a, b)))


def scene(method, a, b, w, rk4, modal):
    world = 'integrator = "rk4"\n' if rk4 else ""
    pen = '[penalty]\ndistribution = "modal"\n' if modal else ""
    return f"""[world]
gravity = [0.0, 0.0, -{G}]
dt = 0.001
method = "{method}"
{world}{pen}
[[body]]
name = "ground"
static = true
shape = {{ type = "plane" }}
material = {{ mu = 0.8 }}

[[body]]
name = "d"
shape = {{ type = "box", half_extents = [{a}, 0.025, {b}] }}
mass = {MASS}
position = [0.0, 0.0, {b}]
velocity = [{b * w}, 0.0, {a * w}]
angular_velocity = [0.0, {w}, 0.0]
material = {{ mu = 0.8 }}
"""


def tilt_of(qw, qx, qy, qz):
    # The body z axis's angle from the vertical toward +x.
    ax = 2 * (qx * qz + qw * qy)
    az = 1 - 2 * (qx * qx + qy * qy)
    return math.degrees(math.atan2(ax, az))


def run_rtphys(binary, method, a, b, w, args):
    with tempfile.TemporaryDirectory() as d:
        path, out = os.path.join(d, "d.toml"), os.path.join(d, "d.csv")
        open(path, "w").write(scene(method, a, b, w, args.rk4, args.modal))
        subprocess.run([binary, "run", path, "--steps", str(args.steps), "--out", out],
                       check=True, stderr=subprocess.DEVNULL)
        rows = list(csv.DictReader(open(out)))
    tilts = [tilt_of(*(float(r[f"d.{k}"]) for k in ("qw", "qx", "qy", "qz"))) for r in rows]
    return max(tilts), tilts[-1]


def run_mujoco(a, b, w, args):
    import mujoco
    xml = f"""<mujoco><option timestep="0.001" integrator="implicitfast" cone="elliptic"/>
<worldbody><geom type="plane" size="1 1 0.1" friction="0.8"/>
<body pos="0 0 {b}"><freejoint/><geom type="box" size="{a} 0.025 {b}" mass="{MASS}" friction="0.8"/></body>
</worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    # Settled on its soft contact first (--settle s), then set turning.
    for _ in range(round(args.settle / 0.001)):
        mujoco.mj_step(m, d)
    d.qvel[:] = [b * w, 0, a * w, 0, w, 0]
    tilts = []
    for _ in range(args.steps):
        mujoco.mj_step(m, d)
        tilts.append(tilt_of(*d.qpos[3:7]))
    return max(tilts), tilts[-1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary", nargs="?")
    p.add_argument("method", nargs="?", default="penalty")
    p.add_argument("--a", type=float, default=0.005)
    p.add_argument("--b", type=float, default=0.05)
    p.add_argument("--rk4", action="store_true")
    p.add_argument("--modal", action="store_true")
    p.add_argument("--mujoco", action="store_true")
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--settle", type=float, default=0.5, help="MuJoCo: seconds settled before the turn")
    p.add_argument("--f", default="0.5,0.9,0.97,1.03,1.1")
    args = p.parse_args()
    ws = omega_star(args.a, args.b)
    print(f"a = {args.a} m, b = {args.b} m: omega* = {ws:.4f} rad/s")
    for f in (float(x) for x in args.f.split(",")):
        if args.mujoco:
            top, end = run_mujoco(args.a, args.b, f * ws, args)
        else:
            top, end = run_rtphys(args.binary, args.method, args.a, args.b, f * ws, args)
        print(f"f {f:.2f}: largest tilt {top:7.2f}  end {end:7.2f}  rigid {rigid_tilt(args.a, args.b, f):6.2f}")


if __name__ == "__main__":
    main()
