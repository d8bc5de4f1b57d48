"""MuJoCo 4.0 on the row of flush tiles of outside_scenes_27.py (box and ball at 2 m/s,
frictionless), with its default integrator and with implicitfast.

    /work/venv-mj/bin/python benches/scripts/seams_mujoco_27.py
"""
import mujoco
import numpy as np
tiles = ''.join('<geom type="box" size="0.5 1 0.1" pos="%g 0 -0.1" friction="0 0 0"/>' % x
                for x in [-0.5, 0.5, 1.5, 2.5])
for integ in ['Euler', 'implicitfast']:
    for shape in ['box', 'sphere']:
        geom = ('<geom type="box" size="0.1 0.1 0.05" mass="1" friction="0 0 0"/>' if shape == 'box'
                else '<geom type="sphere" size="0.1" mass="1" friction="0 0 0"/>')
        z0 = 0.05 if shape == 'box' else 0.1
        xml = ('<mujoco><option timestep="0.001" integrator="%s"/><worldbody>%s<body pos="-0.3 0 %g">'
               '<freejoint/>%s</body></worldbody></mujoco>' % (integ, tiles, z0, geom))
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        d.qvel[0] = 2.0
        vx, z, vz = [], [], []
        for i in range(1200):
            mujoco.mj_step(m, d)
            vx.append(d.qvel[0]); z.append(d.qpos[2]); vz.append(d.qvel[2])
        i = int(np.argmax(np.abs(vz)))
        print('mujoco %-12s %-6s x_end %.4f  vx min %.4f  z range %.2e  max |vz| %.4f at t = %.3f s'
              % (integ, shape, d.qpos[0], min(vx), max(z) - min(z), abs(vz[i]), (i + 1) * 1e-3))
