"""MuJoCo 4.0 on the friction scenes of tests/contact_torture_friction.rs (issue 11,
class 6 and the sliding half of class 8), default solver (Newton, soft constraints,
pyramidal cone), box geoms, g = 9.81, a 1 m, 10 kg box:
- placed incline: plane tilted by theta, tan theta = 0.5, box placed touching, mu = 0.5,
  1 kHz, 5 s: displacement downhill and final speed;
- slide: mu = 0.49: acceleration from the velocity between 1 s and 5 s;
- sliding stop: v0 = 1 m/s on a level plane, mu = 0.5, h = 1e-3 and 1e-2, 2 s: the
  first time |v| < 1e-3 m/s and the largest |v| afterwards.

    /work/venv-mj/bin/python benches/scripts/mujoco_friction.py
"""
import math
import mujoco
import numpy as np

G = 9.81


def build(theta, mu, dt, v0=0.0):
    up = np.array([math.sin(theta), 0.0, math.cos(theta)]) * 0.5
    deg = math.degrees(theta)
    xml = (f'<mujoco><option timestep="{dt}" gravity="0 0 -{G}"/>'
           f'<default><geom condim="3" friction="{mu} 0.005 0.0001"/></default>'
           f'<worldbody><geom type="plane" size="50 50 .1" euler="0 {deg} 0"/>'
           f'<body name="box" pos="{up[0]} 0 {up[2]}" euler="0 {deg} 0"><freejoint/>'
           f'<geom type="box" size=".5 .5 .5" mass="10"/></body></worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qvel[0] = v0
    return m, d


theta = math.atan(0.5)
down = np.array([math.cos(theta), 0.0, -math.sin(theta)])
m, d = build(theta, 0.5, 1e-3)
x0 = d.qpos[:3].copy()
for _ in range(5000):
    mujoco.mj_step(m, d)
print(f"placed incline mu = tan theta: moves {np.dot(d.qpos[:3] - x0, down) * 1e3:.4f} mm in 5 s, "
      f"|v| {np.linalg.norm(d.qvel[:3]):.2e} m/s")

mu = 0.49
a_exact = G * (math.sin(theta) - mu * math.cos(theta))
m, d = build(theta, mu, 1e-3)
v1 = 0.0
for i in range(5000):
    mujoco.mj_step(m, d)
    if i + 1 == 1000:
        v1 = np.dot(d.qvel[:3], down)
a = (np.dot(d.qvel[:3], down) - v1) / 4.0
print(f"slide mu = {mu}: a = {a:.5f} vs {a_exact:.5f} ({100 * (a / a_exact - 1):+.2f} %)")

for dt in [1e-3, 1e-2]:
    m, d = build(0.0, 0.5, dt, 1.0)
    t_stop, after = None, 0.0
    for _ in range(int(round(2.0 / dt))):
        mujoco.mj_step(m, d)
        v = np.linalg.norm(d.qvel[:3])
        if t_stop is None and v < 1e-3:
            t_stop = d.time
        elif t_stop is not None:
            after = max(after, v)
    print(f"sliding stop h = {dt}: stops at {t_stop:.4f} s vs {1.0 / (0.5 * G):.4f} s, "
          f"max |v| afterwards {after:.2e} m/s")
