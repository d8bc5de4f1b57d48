"""Outside scenes, session 35 (docs/EXPERIMENTS.md, "Outside scenes, session 35"): friction
over a contact patch.

    python3 benches/scripts/outside_probes_35.py spin BIN METHODS box|cyl
        a 0.1 m cube (or a disc R = 5 cm) spinning flat at 10 rad/s on a plane, mu = 0.5,
        placed touching (no settling): the spin's rate of fall between 0.8 and 0.3 w0 against
        the uniform pressure's mu m g rbar / I
    python3 benches/scripts/outside_probes_35.py slide-spin BIN METHODS box|cyl [V0]
        a thin square plate (half side 5 cm; or a disc) at V0 and V0/R rad/s, mu = 0.3:
        when the speed and the spin fall below 1 %, and v/(R w) at half speed
    /work/venv-mj/bin/python benches/scripts/outside_probes_35.py reference box|cyl [V0]
        the uniform-pressure plate's slide and spin integrated on a grid (numpy)
    /work/venv-mj/bin/python benches/scripts/outside_probes_35.py mujoco
        MuJoCo 4.0 on both scenes, condim 3, 4 and 6 (settled 0.3 s, then the velocities set)
METHODS: comma-separated, e.g. penalty,hunt_crossley,lcp,lcp:primal,peg,ipc
"""
import csv, math, subprocess, sys


def run(BIN, toml, meth, steps):
    args = [BIN, 'run', toml, '--steps', str(steps)]
    mm = meth.split(':')
    args += ['--method', mm[0]]
    if len(mm) > 1:
        args += ['--lcp-solver', mm[1]]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode:
        print(meth, 'FAIL', out.stderr[-300:])
        return None
    return list(csv.DictReader(out.stdout.splitlines()))


def spin(BIN, methods, shape):
    a, m, mu, w0, g = 0.05, 1.0, 0.5, 10.0, 9.81
    if shape == 'box':
        sh = '{ type = "box", half_extents = [%r, %r, %r] }' % (a, a, a)
        Iz = m * (2 * a) ** 2 / 6
        rbar = a * (math.sqrt(2) + math.log(1 + math.sqrt(2))) / 3
        rim = a * math.sqrt(2)
    else:
        sh = '{ type = "cylinder", radius = %r, half_length = %r }' % (a, a)
        Iz = m * a * a / 2
        rbar = 2 * a / 3
        rim = a
    T = mu * m * g * rbar
    open('/tmp/outside_probes_35.toml', 'w').write(f"""[world]
gravity = [0.0, 0.0, -9.81]
dt = 0.001
method = "penalty"

[[body]]
name = "ground"
static = true
shape = {{ type = "plane" }}
material = {{ mu = {mu} }}

[[body]]
name = "b"
shape = {sh}
mass = {m}
position = [0.0, 0.0, {a}]
angular_velocity = [0.0, 0.0, {w0}]
material = {{ mu = {mu} }}
""")
    print(f"{shape}: uniform pressure {-T / Iz:.1f} rad/s2, stop {w0 * Iz / T:.4f} s; at the rim/corners {-mu * m * g * rim / Iz:.1f}")
    for meth in methods:
        rows = run(BIN, '/tmp/outside_probes_35.toml', meth, 400)
        if rows is None:
            continue
        w = [float(r['b.wz']) for r in rows]
        t = [float(r['time']) for r in rows]
        ts = next((ti for ti, wi in zip(t, w) if abs(wi) < 0.01 * w0), None)
        i1 = next(i for i, x in enumerate(w) if x < 0.8 * w0)
        i2 = next((i for i, x in enumerate(w) if x < 0.3 * w0), len(w) - 1)
        print(f"{meth:16s} stop {ts}  rate {(w[i2] - w[i1]) / (t[i2] - t[i1]):.1f} rad/s2")


def slide_spin(BIN, methods, shape, v0):
    R, m, mu = 0.05, 1.0, 0.3
    w0 = v0 / R
    sh = ('{ type = "cylinder", radius = %r, half_length = 0.01 }' % R if shape == 'cyl'
          else '{ type = "box", half_extents = [%r, %r, 0.01] }' % (R, R))
    open('/tmp/outside_probes_35.toml', 'w').write(f"""[world]
gravity = [0.0, 0.0, -9.81]
dt = 0.001
method = "penalty"

[[body]]
name = "ground"
static = true
shape = {{ type = "plane" }}
material = {{ mu = {mu} }}

[[body]]
name = "b"
shape = {sh}
mass = {m}
position = [0.0, 0.0, 0.01]
velocity = [{v0}, 0.0, 0.0]
angular_velocity = [0.0, 0.0, {w0}]
material = {{ mu = {mu} }}
""")
    print(f"{shape}: v0 {v0} w0 {w0:.1f}; a pure slide stops at {v0 / (mu * 9.81):.4f} s")
    for meth in methods:
        rows = run(BIN, '/tmp/outside_probes_35.toml', meth, 800)
        if rows is None:
            continue
        t = [float(r['time']) for r in rows]
        v = [math.hypot(float(r['b.vx']), float(r['b.vy'])) for r in rows]
        w = [abs(float(r['b.wz'])) for r in rows]
        tv = next((ti for ti, x in zip(t, v) if x < 0.01 * v0), None)
        tw = next((ti for ti, x in zip(t, w) if x < 0.01 * w0), None)
        i = next(i for i, x in enumerate(v) if x < 0.5 * v0)
        print(f"{meth:14s} v stops {tv}  w stops {tw}  v/(R w) at v0/2: {v[i] / (R * w[i]):.3f}")


def reference(shape, v0):
    import numpy as np
    R, m, mu, g = 0.05, 1.0, 0.3, 9.81
    w0 = v0 / R
    if shape == 'cyl':
        nr, nt = 200, 400
        r = (np.arange(nr) + 0.5) / nr * R
        th = (np.arange(nt) + 0.5) / nt * 2 * np.pi
        rr, tt = np.meshgrid(r, th)
        x, y = rr * np.cos(tt), rr * np.sin(tt)
        dA = rr * (R / nr) * (2 * np.pi / nt)
        I = m * R * R / 2
    else:
        n = 300
        u = (np.arange(n) + 0.5) / n * 2 * R - R
        x, y = np.meshgrid(u, u)
        dA = np.full(x.shape, (2 * R / n) ** 2)
        I = m * (2 * R) ** 2 / 6
    p = m * g / dA.sum()
    vx, vy, w, t, h = v0, 0.0, w0, 0.0, 1e-4
    half = tv = tw = None
    while t < 2 and (math.hypot(vx, vy) > 1e-3 * v0 or abs(w) > 1e-3 * w0):
        sx, sy = vx - w * y, vy + w * x
        s = np.hypot(sx, sy)
        s[s == 0] = 1e-300
        fx = -mu * p * np.sum(sx / s * dA)
        fy = -mu * p * np.sum(sy / s * dA)
        tz = -mu * p * np.sum((x * sy - y * sx) / s * dA)
        vx += h * fx / m
        vy += h * fy / m
        w += h * tz / I
        t += h
        sp = math.hypot(vx, vy)
        if half is None and sp < 0.5 * v0:
            half = sp / (R * w)
        if tv is None and sp < 0.01 * v0:
            tv = t
        if tw is None and abs(w) < 0.01 * w0:
            tw = t
    print(f"{shape} uniform pressure: v stops {tv:.4f}  w stops {tw:.4f}  v/(R w) at v0/2 {half:.3f}")


def mujoco():
    import mujoco as mj
    import numpy as np
    for scene in ['spin', 'slide-spin']:
        for shape in ['box', 'cyl']:
            for condim in [3, 4, 6]:
                mu, hz = (0.5, 0.05) if scene == 'spin' else (0.3, 0.01)
                geom = (f'<geom type="box" size=".05 .05 {hz}" mass="1"/>' if shape == 'box'
                        else f'<geom type="cylinder" size=".05 {hz}" mass="1"/>')
                xml = f'''<mujoco><option timestep="0.001" cone="elliptic"/>
<default><geom condim="{condim}" friction="{mu} 0.005 0.0001"/></default>
<worldbody><geom type="plane" size="5 5 .1"/><body pos="0 0 {hz}"><freejoint/>{geom}</body></worldbody></mujoco>'''
                m = mj.MjModel.from_xml_string(xml)
                d = mj.MjData(m)
                for _ in range(300):
                    mj.mj_step(m, d)
                v0, w0 = (0.0, 10.0) if scene == 'spin' else (1.0, 20.0)
                d.qvel[0], d.qvel[5] = v0, w0
                t, v, w = [], [], []
                for i in range(900):
                    mj.mj_step(m, d)
                    t.append((i + 1) * 1e-3)
                    v.append(math.hypot(d.qvel[0], d.qvel[1]))
                    w.append(d.qvel[5])
                t, v, w = np.array(t), np.array(v), np.array(w)
                if scene == 'spin':
                    i1, i2 = np.argmax(w < 0.8 * w0), np.argmax(w < 0.3 * w0)
                    print(f"MuJoCo spin {shape} condim {condim}: rate {(w[i2] - w[i1]) / (t[i2] - t[i1]):.1f} rad/s2")
                else:
                    tv = t[np.argmax(v < 0.01 * v0)] if (v < 0.01 * v0).any() else None
                    tw = t[np.argmax(np.abs(w) < 0.01 * w0)] if (np.abs(w) < 0.01 * w0).any() else None
                    i = np.argmax(v < 0.5 * v0)
                    print(f"MuJoCo slide-spin {shape} condim {condim}: v stops {tv} w stops {tw} "
                          f"v/(R w) at v0/2 {v[i] / (0.05 * w[i]):.3f}")


if __name__ == '__main__':
    mode = sys.argv[1]
    if mode == 'spin':
        spin(sys.argv[2], sys.argv[3].split(','), sys.argv[4])
    elif mode == 'slide-spin':
        slide_spin(sys.argv[2], sys.argv[3].split(','), sys.argv[4], float(sys.argv[5]) if len(sys.argv) > 5 else 1.0)
    elif mode == 'mujoco':
        mujoco()
    else:
        reference(sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1.0)
