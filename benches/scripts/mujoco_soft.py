"""MuJoCo 4.0 on the resting-contact scenes of tests/contact_torture_soft.rs (issue 11,
classes 2, 3, 8), default solver (Newton, soft constraints), box geoms, g = 9.81:
- resting box: 1 m, 10 kg, placed touching, 1 kHz, 3 s: resting depth, settle time;
- frictionless stack: five 1 m, 10 kg cubes dropped with 1 m gaps, h = 1e-2, 1e-3,
  10 s: the bottom cube's sink at the end, the last time any |v| >= 1e-3 m/s;
- mass ratio: a 1 m, 1,000 kg cube on the floor under a 10 m, 1e6 kg cube, mu = 0.5,
  1 kHz, 3 s: max penetration, max speed of the small cube.

    /work/venv-mj/bin/python benches/scripts/mujoco_soft.py
"""
import mujoco
import numpy as np


def build(bodies, dt, friction):
    cond = 3 if friction > 0 else 1
    xml = [f'<mujoco><option timestep="{dt}" gravity="0 0 -9.81"/>',
           f'<default><geom condim="{cond}" friction="{friction} 0.005 0.0001"/></default>',
           '<worldbody><geom type="plane" size="50 50 .1"/>']
    for name, half, mass, z in bodies:
        xml.append(f'<body name="{name}" pos="0 0 {z}"><freejoint/>'
                   f'<geom type="box" size="{half} {half} {half}" mass="{mass}"/></body>')
    xml.append('</worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string("".join(xml))
    return m, mujoco.MjData(m)


def zpos(m, d, name):
    return d.xpos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, name)][2]


def speed(m, d, name):
    b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, name)
    v = np.zeros(6)
    mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, b, v, 0)
    return np.linalg.norm(v[3:]), np.linalg.norm(v[:3])


m, d = build([("box", 0.5, 10.0, 0.5)], 1e-3, 0.8)
settle = 0.0
for _ in range(3000):
    mujoco.mj_step(m, d)
    v, w = speed(m, d, "box")
    if v >= 1e-3 or w >= 1e-3:
        settle = d.time
print(f"resting box: depth {(0.5 - zpos(m, d, 'box')) * 1e3:.4f} mm, settled at {settle:.3f} s")

for dt in [1e-2, 1e-3]:
    m, d = build([(f"c{i}", 0.5, 10.0, 1.5 + 2.0 * i) for i in range(5)], dt, 0.0)
    last = 0.0
    for _ in range(int(round(10.0 / dt))):
        mujoco.mj_step(m, d)
        if any(speed(m, d, f"c{i}")[0] >= 1e-3 for i in range(5)):
            last = d.time
    top = d.xpos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "c4")]
    print(f"stack h = {dt}: bottom sinks {(0.5 - zpos(m, d, 'c0')) * 1e3:.4f} mm, "
          f"last |v| >= 1e-3 at {last:.3f} s, top at {np.round(top, 4)}")

m, d = build([("small", 0.5, 1000.0, 0.5), ("big", 5.0, 1e6, 6.0)], 1e-3, 0.5)
pen, vmax = 0.0, 0.0
for _ in range(3000):
    mujoco.mj_step(m, d)
    zs, zb = zpos(m, d, "small"), zpos(m, d, "big")
    pen = max(pen, 0.5 - zs, (zs + 0.5) - (zb - 5.0))
    vmax = max(vmax, speed(m, d, "small")[0])
print(f"mass ratio: max penetration {pen * 1e3:.4f} mm, small cube max |v| {vmax:.2e} m/s")
