"""MuJoCo 4.0's cost per step under its integrators on the peers' robot scenes, for the side-by-side figure of
rtphys's `implicit` integrator (docs/BENCHMARKS.md, "Session 38 (lead)"). Each scene is built by the peers'
bench_mujoco.build (Newton, dt 1 ms), its integrator set, settled, then timed over 5 windows of 2,000 steps
(mj_step in C, nstep); the median µs per step is printed.

    /work/venv-mj/bin/python benches/scripts/implicit_cost_38.py [/work/shared/peers]
"""
import sys, time
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "/work/shared/peers")
import mujoco
import bench_mujoco as bm

for name in ["d_arm_free", "d_arm_table", "e_humanoid_dmc"]:
    row = []
    for integ in ["Euler", "implicitfast", "implicit"]:
        sc = bm.build(name, 1e-3, "newton", "c")
        m = sc.model if hasattr(sc, "model") else sc.m
        m.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integ.upper())
        d = mujoco.MjData(m)
        mujoco.mj_step(m, d, nstep=int(sc.settle_s / 1e-3))
        t = []
        for _ in range(5):
            t0 = time.process_time()
            mujoco.mj_step(m, d, nstep=2000)
            t.append((time.process_time() - t0) / 2000 * 1e6)
        row.append("%s %.2f" % (integ, sorted(t)[2]))
    print(name, " | ".join(row), flush=True)
