"""MuJoCo 4.0 on the sharp-feature landings of tests/contact_torture_sharp.rs (issue 11,
class 1): the same bodies as convex meshes (MuJoCo collides mesh convex hulls), no
friction (condim 1), gap 1e-4 m, g = 9.8, floor at z = -0.5 m, 4 s, default solver
(Newton, soft constraints), h = 1e-3 and 1e-2, centred and offset by 1 mm in x, y.
Prints max over the run of (E - E0)/E_s with E_s = m g (gap + 0.5 m), E = T + V from
MuJoCo's energy flag.

    /work/venv-mj/bin/python benches/scripts/mujoco_sharp.py
"""
import mujoco
import numpy as np

GAP, L, G = 1e-4, 0.5, 9.8
R45 = 0.25 * 2 ** 0.5

PYR_DOWN = [[0, 0, 0], [.5, .5, .5], [-.5, .5, .5], [.5, -.5, .5], [-.5, -.5, .5]]
PYR_UP = [[0, 0, 0], [.5, .5, -.5], [-.5, .5, -.5], [.5, -.5, -.5], [-.5, -.5, -.5]]
WEDGE_UP_X = [[-1, 0, 0], [1, 0, 0], [-1, .5, -.5], [1, .5, -.5], [-1, -.5, -.5], [1, -.5, -.5]]
WEDGE_DOWN_Y = [[0, -.5, 0], [0, .5, 0], [.5, -.5, .5], [.5, .5, .5], [-.5, -.5, .5], [-.5, .5, .5]]
WEDGE_DOWN_X = [[-.5, 0, 0], [.5, 0, 0], [-.5, .5, .5], [.5, .5, .5], [-.5, -.5, .5], [.5, -.5, .5]]


def verts(p):
    return " ".join(f"{c}" for v in p for c in v)


def model(config, dt, off):
    assets = ""
    if config == "box edges":
        base = f'<geom type="box" size="1 .25 .25" pos="0 0 {-R45}" euler="45 0 0"/>'
        top = (f'<body pos="{off} {off} {R45 + GAP}" euler="0 45 0"><freejoint/>'
               '<geom type="box" size=".25 .5 .25" mass="1"/></body>')
    else:
        lo, up = {
            "vertex-edge": (WEDGE_UP_X, PYR_DOWN),
            "vertex-vertex": (PYR_UP, PYR_DOWN),
            "edge-edge": (WEDGE_UP_X, WEDGE_DOWN_Y),
            "parallel edges": (WEDGE_UP_X, WEDGE_DOWN_X),
        }[config]
        assets = (f'<asset><mesh name="lo" vertex="{verts(lo)}"/>'
                  f'<mesh name="up" vertex="{verts(up)}"/></asset>')
        base = '<geom type="mesh" mesh="lo"/>'
        top = (f'<body pos="{off} {off} {GAP}"><freejoint/>'
               '<geom type="mesh" mesh="up" mass="1"/></body>')
    xml = f"""<mujoco><option timestep="{dt}" gravity="0 0 -{G}">
      <flag energy="enable"/></option>
      <default><geom condim="1" friction="0 0 0"/></default>{assets}
      <worldbody><geom type="plane" size="20 20 .1" pos="0 0 -0.5"/>{base}{top}</worldbody>
    </mujoco>"""
    return mujoco.MjModel.from_xml_string(xml)


def worst(config, dt, off):
    m = model(config, dt, off)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    e0 = d.energy.sum()
    es = 1.0 * G * (GAP + L)
    w = -np.inf
    for _ in range(int(round(4.0 / dt))):
        mujoco.mj_step(m, d)
        w = max(w, (d.energy.sum() - e0) / es)
    return w


for config in ["vertex-edge", "vertex-vertex", "edge-edge", "parallel edges", "box edges"]:
    for dt in [1e-3, 1e-2]:
        for off in [0.0, 1e-3]:
            print(f"{config:15s} h = {dt:5} offset {off:5}: max (E - E0)/E_s = "
                  f"{worst(config, dt, off):+.4f}", flush=True)
