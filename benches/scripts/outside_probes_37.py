"""Outside scenes, session 37 (docs/EXPERIMENTS.md, "Outside scenes, session 37"): a heavy top.

    python3 benches/scripts/outside_probes_37.py top BIN METHODS [THETA_DEG] [SPIN] [DT] [SECONDS]
        a disc top on a ball tip, on a frictionless floor, started in steady precession:
        its axis keeps the tilt THETA and turns about the vertical at the slow root of
        I1 cos(theta) W^2 - I3 w3 W + m g l = 0 (com fixed: no horizontal force)
METHODS: comma-separated, e.g. penalty,hunt_crossley,lcp,lcp:primal,peg,ipc,penalty@rk4

The top: a disc (cylinder, radius R, half thickness HD) whose centre sits D above the centre
C of a ball tip of radius RT, one density. Body z is the symmetry axis. On a frictionless
floor the normal force is vertical through C, so C is the pivot of a point-tip top whose
centre of mass keeps its horizontal place.
"""
import csv, math, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outside_probes_36 import header  # noqa: E402  (the world and a floor of friction mu)


def run(BIN, toml, meth, steps):
    """`rtphys run` of TOML under METH ("method[:lcp_solver][@integrator]") -> CSV rows."""
    meth, _, integ = meth.partition('@')
    mm = meth.split(':')
    args = [BIN, 'run', toml, '--steps', str(steps), '--method', mm[0]]
    if len(mm) > 1:
        args += ['--lcp-solver', mm[1]]
    if integ:
        args += ['--integrator', integ]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode:
        print(meth, 'FAIL', out.stderr[-300:])
        return None
    return list(csv.DictReader(out.stdout.splitlines()))

R, HD, D, RT, RHO, G = 0.05, 0.005, 0.05, 0.004, 7800.0, 9.81


def top_inertia():
    """Mass, com height l above C, I1 (transverse, about the com), I3 (axial)."""
    md = RHO * math.pi * R * R * 2 * HD
    ms = RHO * 4.0 / 3.0 * math.pi * RT**3
    m = md + ms
    l = md * D / m
    i3 = 0.5 * md * R * R + 0.4 * ms * RT * RT
    i1 = md * (R * R / 4 + (2 * HD) ** 2 / 12) + md * (D - l) ** 2 + 0.4 * ms * RT * RT + ms * l * l
    return m, l, i1, i3


def precession(theta, w3):
    """The slow root of I1 cos(theta) W^2 - I3 w3 W + m g l = 0."""
    m, l, i1, i3 = top_inertia()
    a, b, c = i1 * math.cos(theta), -i3 * w3, m * G * l
    return (-b - math.sqrt(b * b - 4 * a * c)) / (2 * a)


def top_scene(theta, w3, dt, mu=0.0):
    """C at height RT over the floor, the axis tilted by theta about world x (e3 = (0, -sin, cos)),
    angular velocity W ez + (w3 - W cos theta) e3, com at rest."""
    w = precession(theta, w3)
    e3 = (0.0, -math.sin(theta), math.cos(theta))
    s = w3 - w * math.cos(theta)
    om = (s * e3[0], s * e3[1], w + s * e3[2])
    return header(mu, dt) + f"""
[[body]]
name = "top"
density = {RHO}
position = [0.0, 0.0, {RT}]
rpy = [{theta}, 0.0, 0.0]
angular_velocity = [{om[0]!r}, {om[1]!r}, {om[2]!r}]
material = {{ mu = {mu} }}
[[body.geom]]
shape = {{ type = "sphere", radius = {RT} }}
[[body.geom]]
shape = {{ type = "cylinder", radius = {R}, half_length = {HD} }}
position = [0.0, 0.0, {D}]
"""


def axis(r):
    """The symmetry axis e3 = R(q) ez from a CSV row."""
    w, x, y, z = (float(r['top.q' + c]) for c in 'wxyz')
    return (2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y))


def l_z(r, i1, i3):
    """The vertical component of the angular momentum about the com, I_w ω."""
    e = axis(r)
    w = [float(r['top.w' + c]) for c in 'xyz']
    we = sum(a * b for a, b in zip(w, e))
    # I_w ω = i1 ω + (i3 - i1) (e·ω) e
    return i1 * w[2] + (i3 - i1) * we * e[2]


def top(BIN, methods, theta_deg=30.0, w3=150.0, dt=1e-3, seconds=3.0):
    theta = math.radians(theta_deg)
    m, l, i1, i3 = top_inertia()
    wp = precession(theta, w3)
    print(f'top: m {m:.5f} kg, l {l:.6f} m, I1 {i1:.6e}, I3 {i3:.6e}; theta {theta_deg} deg, '
          f'w3 {w3} rad/s -> precession {wp:.6f} rad/s (m g l / I3 w3 = {m * G * l / (i3 * w3):.6f})')
    path = '/tmp/outside_probes_37.toml'
    open(path, 'w').write(top_scene(theta, w3, dt))
    steps = int(round(seconds / dt))
    print('method | precession rad/s (rel err) | tilt min..max deg | com horizontal drift mm | E rel change | L_z rel change')
    for meth in methods:
        rows = run(BIN, path, meth, steps)
        if rows is None:
            continue
        phis, tilts = [], []
        for r in rows:
            e = axis(r)
            phis.append(math.atan2(e[1], e[0]))
            tilts.append(math.degrees(math.acos(max(-1.0, min(1.0, e[2])))))
        un = [phis[0]]
        for p in phis[1:]:
            d = p - un[-1]
            d -= 2 * math.pi * round(d / (2 * math.pi))
            un.append(un[-1] + d)
        t = [float(r['time']) for r in rows]
        n = len(t)
        mt, mp = sum(t) / n, sum(un) / n
        slope = sum((a - mt) * (b - mp) for a, b in zip(t, un)) / sum((a - mt) ** 2 for a in t)
        x0, y0 = float(rows[0]['top.x']), float(rows[0]['top.y'])
        drift = max(math.hypot(float(r['top.x']) - x0, float(r['top.y']) - y0) for r in rows)
        e0 = float(rows[0]['kinetic']) + float(rows[0]['potential'])
        e1 = float(rows[-1]['kinetic']) + float(rows[-1]['potential'])
        print(f'{meth} | {slope:.6f} ({slope / wp - 1:+.2e}) | {min(tilts):.4f}..{max(tilts):.4f} | '
              f'{1e3 * drift:.4f} | {(e1 - e0) / e0:+.2e} | '
              f'{l_z(rows[-1], i1, i3) / l_z(rows[0], i1, i3) - 1:+.2e}')


if __name__ == '__main__':
    cmd, BIN, methods = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
    rest = [float(a) for a in sys.argv[4:]]
    if cmd == 'top':
        top(BIN, methods, *rest)
