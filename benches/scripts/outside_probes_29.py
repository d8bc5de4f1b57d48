"""Outside scenes, session 29 (docs/EXPERIMENTS.md, "Outside scenes, session 29"): IPC's
`[ipc] count_once` against 004's constraint set.

- flat drop: a 0.2 m cube dropped flat from 0.5 m at the origin (two corners on the
  floor's triangle diagonal) onto a plane and onto a static slab, mu = 0 and 0.5; largest
  |omega|, end position, end quaternion; with and without `count_once` (default tolerance).
- stack: config/scenes/ipc_stack5.toml for 1,000 steps with and without the key: largest
  lateral drift and |omega| (which body, which step), user time.

    python3 benches/scripts/outside_probes_29.py target/release/rtphys
"""
import csv, math, os, resource, subprocess, sys
BIN = sys.argv[1]
TMP = '/tmp/outside_probes_29.toml'


def run(scene, steps):
    open(TMP, 'w').write(scene)
    t0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    out = subprocess.run([BIN, 'run', TMP, '--steps', str(steps)], capture_output=True, text=True)
    t = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - t0
    if out.returncode:
        sys.exit(out.stderr)
    return list(csv.DictReader(out.stdout.splitlines())), t


def body(name, shape, pos, static=False, mu=0.0):
    s = '[[body]]\nname = "%s"\nshape = %s\n' % (name, shape)
    s += 'static = true\n' if static else 'mass = 1.0\n'
    return s + 'position = [%r, %r, %r]\nmaterial = { mu = %r }\n' % (*pos, mu)


def norm_w(x, n):
    return math.sqrt(sum(float(x['%s.w%s' % (n, c)]) ** 2 for c in 'xyz'))


print('flat drop (dt = 1 ms, 800 steps)')
for once in [False, True]:
    for fl in ['plane', 'slab']:
        for mu in [0.0, 0.5]:
            head = '[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = "ipc"\n'
            head += '[ipc]\ncount_once = %s\n' % ('true' if once else 'false')
            if fl == 'plane':
                f = '[[body]]\nname = "floor"\nstatic = true\nshape = { type = "plane" }\nmaterial = { mu = %r }\n' % mu
            else:
                f = body('floor', '{ type = "box", size = [1.0, 1.0, 0.2] }', (0, 0, -0.1), True, mu)
            r, _ = run(head + f + body('b', '{ type = "box", size = [0.2, 0.2, 0.2] }', (0, 0, 0.6), mu=mu), 800)
            w = max(norm_w(x, 'b') for x in r)
            e = r[-1]
            print('  count_once %-5s %-5s mu %.1f: max |w| %.3g rad/s, end (%.2g, %.2g) m, q (%s)' % (
                once, fl, mu, w, float(e['b.x']), float(e['b.y']),
                ', '.join('%.3g' % float(e['b.q' + c]) for c in 'wxyz')))

print('ipc_stack5 (1,000 steps)')
base = open(os.path.join(os.path.dirname(__file__), '../../config/scenes/ipc_stack5.toml')).read()
for once in [False, True]:
    sc = base.replace('friction_iterations = 1', 'friction_iterations = 1\ncount_once = %s' % ('true' if once else 'false'))
    r, t = run(sc, 1000)
    names = sorted({k.split('.')[0] for k in r[0] if k.endswith('.wx')})
    drift = max(max(abs(float(x[n + '.x'])), abs(float(x[n + '.y']))) for x in r for n in names)
    w, i, n = max((norm_w(x, n), i, n) for i, x in enumerate(r) for n in names)
    print('  count_once %-5s: lateral drift %.3g m, max |w| %.3g rad/s (%s, step %d), user %.1f s' % (
        once, drift, w, n, i + 1, t))
