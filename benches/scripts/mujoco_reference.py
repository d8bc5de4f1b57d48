"""MuJoCo 4.0 (Newton, dt 1 ms, C loop) on the reference scenes, through the harness of
../shared/peers/bench_mujoco.py (its scene builders and common.bench), without its
other solvers and step sizes:

    python3 -m venv /tmp/mj && /tmp/mj/bin/pip install mujoco==4.0.0 dm_control
    /tmp/mj/bin/python benches/scripts/mujoco_reference.py
"""
import os
import sys

PEERS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "peers")
sys.path.insert(0, os.path.abspath(PEERS))
import bench_mujoco as bm  # noqa: E402
import common  # noqa: E402

for name in ["a_box", "b_stack5", "c_pile20", "d_arm_free", "d_arm_table", "e_humanoid_dmc"]:
    sc = bm.build(name, 1e-3, "Newton", "c")
    sc.settle(py=False)
    r = common.bench(sc.run_c)
    print(f"{name:18s} {common.fmt_rate(r)}", flush=True)
