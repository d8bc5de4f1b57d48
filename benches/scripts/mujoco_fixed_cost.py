"""MuJoCo 4.0's fixed cost per step beside `cargo run --release --example fixed_cost`:
an empty world (a plane) and one free box in the air (no gravity, spinning at
(1, 2, 3) rad/s: never any contact), Newton, dt = 1 ms. On-CPU µs per step
(`time.thread_time`), median of 5 runs of 20,000 steps in C (`mj_step(..., nstep=n)`).

    /work/venv-mj/bin/python benches/scripts/mujoco_fixed_cost.py
"""
import statistics
import time

import mujoco

PLANE = '<geom type="plane" size="10 10 0.1"/>'
BOX = '<body pos="0 0 5"><freejoint/><geom type="box" size="0.1 0.2 0.3" mass="1"/></body>'


def xml(box):
    body = BOX if box else ""
    return ('<mujoco><option timestep="0.001" solver="Newton" gravity="0 0 0"/>'
            f"<worldbody>{PLANE}{body}</worldbody></mujoco>")


for name, box in [("empty", False), ("free_box", True)]:
    m = mujoco.MjModel.from_xml_string(xml(box))
    d = mujoco.MjData(m)
    if box:
        d.qvel[3:6] = [1, 2, 3]
    mujoco.mj_step(m, d, nstep=200)
    n = 20000
    runs = []
    for _ in range(5):
        t = time.thread_time()
        mujoco.mj_step(m, d, nstep=n)
        runs.append((time.thread_time() - t) / n * 1e6)
    print(f"mujoco {name:9} {statistics.median(runs):.3f} us/step (min {min(runs):.3f})")
