"""Outside scenes of session 27 (docs/EXPERIMENTS.md, "Outside scenes, session 27"):
static boxes laid flush (model::seams), under penalty, Hunt–Crossley, LCP, IPC and PEG,
frictionless (the laws are exact):
- row: a 0.2 × 0.2 × 0.1 m, 1 kg box at 2 m/s across four 1 m tiles (seams at x = 0, 1, 2),
  1.2 s: speed kept (2 m/s), end x = 2.1 m;
- ball: a ball (r = 0.1 m) the same way: speed kept, no hop;
- grid: the box at (1, 1) m/s across the junction of a 2 × 2 grid, 0.6 s: end (0.3, 0.3);
- ramp: the box sliding from rest down a 20° ramp of two 1 m boxes (seam crossed at
  ≈ 0.69 s): acceleration along the slope from 0.1 to 0.95 s = g sin θ;
- step: the second tile 5 mm taller (a real step): the box at 1 m/s must stop (centre ≤ −0.09);
- stop, rest (not asserted): friction across the seam, a two-box stack resting across it.

    python3 benches/scripts/outside_scenes_27.py target/release/rtphys
"""
import subprocess, csv, math, sys
BIN = sys.argv[1]
METHODS = ['penalty', 'hunt_crossley', 'lcp', 'ipc', 'peg']
HEAD = '[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\n'
BOX = '{ type = "box", size = [0.2, 0.2, 0.1] }'


def run(scene, method, steps):
    open('/tmp/outside_scenes_27.toml', 'w').write(HEAD + scene)
    out = subprocess.run([BIN, 'run', '/tmp/outside_scenes_27.toml', '--method', method,
                          '--steps', str(steps)], capture_output=True, text=True)
    if out.returncode:
        return None
    return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(out.stdout.splitlines())]


def tile(i, x, y, w=2.0, h=0.2, z=-0.1, rpy=(0.0, 0.0, 0.0)):
    return ('[[body]]\nname = "g%d"\nstatic = true\nshape = { type = "box", size = [1.0, %r, %r] }\n'
            'position = [%r, %r, %r]\nrpy = [%r, %r, %r]\nmaterial = { mu = 0.0 }\n'
            % (i, w, h, x, y, z, *rpy))


def body(shape, pos, vel, rpy=(0.0, 0.0, 0.0)):
    return ('[[body]]\nname = "b"\nshape = %s\nmass = 1.0\nposition = [%r, %r, %r]\n'
            'velocity = [%r, %r, %r]\nrpy = [%r, %r, %r]\nmaterial = { mu = 0.0 }\n'
            % (shape, *pos, *vel, *rpy))


row = ''.join(tile(i, x, 0.0) for i, x in enumerate([-0.5, 0.5, 1.5, 2.5]))
grid = ''.join(tile(i, x, y, w=1.0) for i, (x, y) in
               enumerate([(-0.5, -0.5), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.5)]))
th = math.radians(20)
c, s = math.cos(th), math.sin(th)
ramp = ''.join(tile(i, u * c - 0.1 * s, 0.0, z=-u * s - 0.1 * c, rpy=(0.0, th, 0.0))
               for i, u in enumerate([-0.5, 0.5]))
step = tile(0, -0.5, 0.0) + tile(1, 0.5, 0.0, h=0.21, z=-0.095)
for m in METHODS:
    r = run(row + body(BOX, (-0.3, 0.0, 0.05), (2.0, 0.0, 0.0)), m, 1200)
    vx = [x['b.vx'] for x in r]
    z = [x['b.z'] for x in r]
    print('row   %-14s vx [%.4f, %.4f] x_end %.4f (2.1) z range %.2e' % (m, min(vx), max(vx), r[-1]['b.x'], max(z) - min(z)))
for m in METHODS:
    r = run(row + body('{ type = "sphere", radius = 0.1 }', (-0.3, 0.0, 0.1), (2.0, 0.0, 0.0)), m, 1200)
    vx = [x['b.vx'] for x in r]
    z = [x['b.z'] for x in r]
    print('ball  %-14s vx [%.4f, %.4f] z range %.2e' % (m, min(vx), max(vx), max(z) - min(z)))
for m in METHODS:
    r = run(grid + body(BOX, (-0.3, -0.3, 0.05), (1.0, 1.0, 0.0)), m, 600)
    vx = [x['b.vx'] for x in r]
    print('grid  %-14s end (%.4f, %.4f) (0.3, 0.3) vx [%.4f, %.4f]' % (m, r[-1]['b.x'], r[-1]['b.y'], min(vx), max(vx)))
u0 = -0.8
for m in METHODS:
    r = run(ramp + body(BOX, (u0 * c + 0.05 * s, 0.0, -u0 * s + 0.05 * c), (0.0, 0.0, 0.0), (0.0, th, 0.0)), m, 1000)
    along = [x['b.vx'] * c - x['b.vz'] * s for x in r]
    off = max(abs(x['b.vx'] * s + x['b.vz'] * c) for x in r[50:])
    print('ramp  %-14s a %.4f (g sin %.4f) normal speed <= %.4f' % (m, (along[949] - along[99]) / 0.85, 9.81 * s, off))
for m in METHODS:
    r = run(step + body(BOX, (-0.3, 0.0, 0.05), (1.0, 0.0, 0.0)), m, 800)
    print('step  %-14s x max %.4f (<= -0.09)' % (m, max(x['b.x'] for x in r)))
# Friction across the seam (not asserted): μ = 0.3, 2 m/s from x = −0.4 over two tiles; law
# v²/(2 μ g) → stop at 0.2796 m. A two-box stack resting across the seam for 2 s: drift.
two = ''.join(tile(i, x, 0.0).replace('mu = 0.0', 'mu = 0.3') for i, x in enumerate([-0.5, 0.5]))
for m in METHODS:
    r = run(two + body(BOX, (-0.4, 0.0, 0.05), (2.0, 0.0, 0.0)).replace('mu = 0.0', 'mu = 0.3'), m, 1200)
    print('stop  %-14s x_end %.4f (law %.4f)' % (m, r[-1]['b.x'], -0.4 + 4 / (2 * 0.3 * 9.81)))
two = ''.join(tile(i, x, 0.0).replace('mu = 0.0', 'mu = 0.5') for i, x in enumerate([-0.5, 0.5]))
stack = (body(BOX, (0.03, 0.0, 0.05), (0.0, 0.0, 0.0)) + body(BOX, (0.03, 0.0, 0.15), (0.0, 0.0, 0.0))
         .replace('name = "b"', 'name = "c"')).replace('mu = 0.0', 'mu = 0.5')
for m in METHODS:
    r = run(two + stack, m, 2000)
    print('rest  %-14s drift %.2e, %.2e m' % (m, math.hypot(r[-1]['b.x'] - 0.03, r[-1]['b.y']),
                                                math.hypot(r[-1]['c.x'] - 0.03, r[-1]['c.y'])))
