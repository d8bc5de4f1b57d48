"""MuJoCo 4.0 on the contact-torture scenes of tests/contact_torture_lcp.rs and
tests/contact_torture_ccd.rs (same bodies, masses, step sizes, friction), default
solver (Newton), default solref/solimp, pyramidal cones, so that docs/EXPERIMENTS.md can
show MuJoCo's figure beside rtphys's:

    /work/venv-mj/bin/python benches/scripts/mujoco_torture.py
"""
import math

import mujoco
import numpy as np


def model(body_xml, dt, gravity=-9.81, floor="", extra=""):
    xml = f"""
<mujoco>
  <option timestep="{dt}" gravity="0 0 {gravity}" cone="pyramidal"/>
  <worldbody>
    {floor}
    {body_xml}
  </worldbody>
  {extra}
</mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    return m, mujoco.MjData(m)


def plane(mu, euler="0 0 0"):
    return f'<geom name="ground" type="plane" size="0 0 1" euler="{euler}" friction="{mu} 0.005 0.0001"/>'


def free_box(name, half, mass, pos, mu, vel=None, euler="0 0 0"):
    return (f'<body name="{name}" pos="{pos[0]} {pos[1]} {pos[2]}" euler="{euler}"><freejoint/>'
            f'<geom type="box" size="{half} {half} {half}" mass="{mass}" friction="{mu} 0.005 0.0001"/></body>')


def ball():
    """e = 0 ball (default solref is critically damped), r = 0.1, 1 kg, from 1 m."""
    for dt in (1e-3, 1e-2):
        body = ('<body name="ball" pos="0 0 1.1"><freejoint/>'
                '<geom type="sphere" size="0.1" mass="1" friction="0.5 0.005 0.0001"/></body>')
        m, d = model(body, dt, floor=plane(0.5))
        pen, peak, landed = 0.0, 0.0, False
        for _ in range(int(round(3.0 / dt))):
            mujoco.mj_step(m, d)
            z = d.qpos[2] - 0.1
            pen = max(pen, -z)
            if not landed and d.qvel[2] >= 0:
                landed = True
            if landed:
                peak = max(peak, z)
        print(f"ball e=0 dt={dt}: penetration {pen:.3e} m, rebound {peak:.3e} m")


def stack_drop():
    for dt in (1e-2, 1e-3):
        bodies = "".join(free_box(f"c{i}", 0.5, 1.0, (0, 0, 1.5 + 2.0 * i), 0.0) for i in range(5))
        m, d = model(bodies, dt, floor=plane(0.0))
        pen, lat = 0.0, 0.0
        for _ in range(int(round(6.0 / dt))):
            mujoco.mj_step(m, d)
            z = [d.qpos[7 * i + 2] for i in range(5)]
            pen = max(pen, 0.5 - z[0], *[1.0 - (z[i] - z[i - 1]) for i in range(1, 5)])
            lat = max(lat, *[math.hypot(d.qpos[7 * i], d.qpos[7 * i + 1]) for i in range(5)])
        print(f"five-cube drop dt={dt}: penetration {pen:.3e} m, lateral {lat:.3e} m, top {d.qpos[7*4+2]:.4f} m")


def mass_ratio():
    bodies = free_box("small", 0.5, 1e3, (0, 0, 0.5), 0.5) + free_box("big", 5.0, 1e6, (0, 0, 6.0), 0.5)
    m, d = model(bodies, 1e-3, floor=plane(0.5))
    pen, vlat = 0.0, 0.0
    mujoco.mj_forward(m, d)
    e0 = d.energy.sum() if m.opt.enableflags & mujoco.mjtEnableBit.mjENBL_ENERGY else None
    for _ in range(3000):
        mujoco.mj_step(m, d)
        zs, zb = d.qpos[2], d.qpos[9]
        pen = max(pen, 0.5 - zs, 5.5 - (zb - zs))
        vlat = max(vlat, math.hypot(d.qvel[0], d.qvel[1]))
    print(f"mass ratio 1000:1: penetration {pen:.3e} m, small cube lateral speed {vlat:.3e} m/s")


def fast_cube():
    # Thin wall, no gravity.
    wall = '<geom name="wall" type="box" size="0.01 5 5" pos="0 0 0" friction="0.5 0.005 0.0001"/>'
    m, d = model(free_box("cube", 0.5, 1.0, (-20.25, 0, 0), 0.5), 0.01, gravity=0.0, floor=wall)
    d.qvel[0] = 1000.0
    depth = -1e9
    for _ in range(20):
        mujoco.mj_step(m, d)
        depth = max(depth, d.qpos[0] + 0.5 + 0.01)
    print(f"1000 m/s cube vs 2 cm wall: deepest {depth:.3e} m, end x {d.qpos[0]:.3f} m, v {d.qvel[0]:.3e} m/s")
    m, d = model(free_box("cube", 0.5, 1.0, (0, 0, 20.25), 0.5), 0.01, floor=plane(0.5))
    d.qvel[2] = -1000.0
    depth, vmax = -1e9, 0.0
    for i in range(100):
        mujoco.mj_step(m, d)
        depth = max(depth, 0.5 - d.qpos[2])
        if i >= 3:
            vmax = max(vmax, np.linalg.norm(d.qvel[:3]))
    print(f"1000 m/s cube vs half-space: deepest {depth:.3e} m, speed after ≤ {vmax:.3e} m/s")


def incline():
    th = math.atan(0.5)
    for mu in (0.5, 0.49):
        for dt in (1e-3, 0.025):
            n = np.array([math.sin(th), 0.0, math.cos(th)])
            x = n * 0.05
            deg = math.degrees(th)
            body = free_box("box", 0.05, 1.0, x, mu, euler=f"0 {deg} 0")
            m, d = model(body, dt, floor=plane(mu, euler=f"0 {deg} 0"))
            down = np.array([math.cos(th), 0.0, -math.sin(th)])
            x0 = d.qpos[:3].copy()
            s = []
            for _ in range(int(round(5.0 / dt))):
                mujoco.mj_step(m, d)
                s.append(float((d.qpos[:3] - x0) @ down))
            if mu == 0.5:
                print(f"placed box on incline mu=tan dt={dt}: moved {max(abs(v) for v in s):.3e} m in 5 s")
            else:
                k = int(round(1.0 / dt))
                a = s[3 * k - 1] - 2 * s[2 * k - 1] + s[k - 1]
                ex = 9.81 * (math.sin(th) - mu * math.cos(th))
                print(f"placed box on incline mu=0.49 dt={dt}: a {a:.4f} m/s^2 (expected {ex:.4f})")


def sliding():
    v0, mu = 2.0, 0.4
    for dt in (1e-3, 1e-2):
        m, d = model(free_box("box", 0.05, 1.0, (0, 0, 0.05), mu), dt, floor=plane(mu))
        d.qvel[0] = v0
        stop = None
        for i in range(int(2 * v0 / (mu * 9.81) / dt)):
            mujoco.mj_step(m, d)
            if stop is None and np.linalg.norm(d.qvel[:3]) < 1e-6:
                stop = (i + 1) * dt
        print(f"sliding box dt={dt}: stopped at {stop} s (v0/(mu g) = {v0 / (mu * 9.81):.4f} s)")


if __name__ == "__main__":
    print("MuJoCo", mujoco.__version__)
    ball()
    stack_drop()
    mass_ratio()
    fast_cube()
    incline()
    sliding()
