"""The gyrostat of tests/robot_gyro.rs in MuJoCo 4.0, under its four integrators (docs/EXPERIMENTS.md,
"Outside scenes, session 37"): a free base (2 kg; 0.010, 0.012, 0.015 kg m^2) with a wheel (1 kg; 0.0025, 0.0025,
0.005 kg m^2) on a hinge along its z, 0.1 m up; no gravity; the base turning at (0.5, 0.2, 0) rad/s, the wheel at
150 rad/s; the kinetic energy's relative change every 2 s over 20 s.

    /work/venv-mj/bin/python benches/scripts/gyrostat_mujoco_37.py
"""
import mujoco, numpy as np
xml = """<mujoco><option gravity="0 0 0" timestep="%g" integrator="%s"/>
<worldbody><body name="base" pos="0 0 1"><freejoint/>
<inertial pos="0 0 0" mass="2" diaginertia="0.01 0.012 0.015"/>
<body name="wheel" pos="0 0 0.1"><joint name="spin" type="hinge" axis="0 0 1"/>
<inertial pos="0 0 0" mass="1" diaginertia="0.0025 0.0025 0.005"/></body></body></worldbody></mujoco>"""
for integ in ["Euler", "implicitfast", "implicit", "RK4"]:
    for h in [1e-3]:
        m = mujoco.MjModel.from_xml_string(xml % (h, integ)); d = mujoco.MjData(m)
        d.qvel[3] = 0.5; d.qvel[4] = 0.2; d.qvel[6] = 150.0   # free joint: lin(3) then ang(3, local frame)
        mujoco.mj_forward(m, d); m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
        mujoco.mj_forward(m, d); e0 = d.energy[1]
        out = []
        n = int(20 / h)
        for k in range(1, n + 1):
            mujoco.mj_step(m, d)
            if k % (n // 10) == 0: out.append("%.0fs:%+.2e" % (k * h, d.energy[1] / e0 - 1))
        print(integ, h, " ".join(out))
