"""Outside scenes probed in session 28 (docs/EXPERIMENTS.md, "Outside scenes, session 28"),
under penalty, Hunt–Crossley, LCP, IPC and PEG, at dt = 1 ms:
- cradle: four balls (r = 0.1 m, e = 1, frictionless, no gravity), the first at 1 m/s into
  three touching ones: momentum 1 kg m/s kept, kinetic energy ≤ 0.5 J;
- plate: a 1 × 1 × 0.01 m plate dropped flat from 0.5 m onto a plane: rests at z = 0.005;
- slender: a 0.1 × 0.1 × 1 m box standing on a plane (μ = 0.5) for 2 s: stays upright;
- wall: a 0.2 m cube at 2 m/s face-on into a static wall, e = 0.5 and 1, no gravity:
  leaves at −2e m/s without spin;
- drop: the cube dropped flat from 0.5 m onto a static slab, e = 0.5 and 1: apex e² · 0.5 m;
- ball: a ball (r = 0.1 m) dropped from 1 m onto a plane, e = 0.8: apexes 0.64, 0.4096 m;
- ipc_spin: the cube dropped flat onto a plane under IPC, placed at the origin (its corners
  on the plane's triangulation diagonal), yawed 0.3 rad, and moved off the origin.

    python3 benches/scripts/outside_probes_28.py target/release/rtphys
"""
import subprocess, csv, math, sys
BIN = sys.argv[1]
METHODS = ['penalty', 'hunt_crossley', 'lcp', 'ipc', 'peg']
HEAD0 = '[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.001\n'
HEAD = '[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\n'
S = '{ type = "sphere", radius = 0.1 }'
B = '{ type = "box", size = [0.2, 0.2, 0.2] }'


def run(scene, method, steps):
    open('/tmp/outside_probes_28.toml', 'w').write(scene)
    out = subprocess.run([BIN, 'run', '/tmp/outside_probes_28.toml', '--method', method,
                          '--steps', str(steps)], capture_output=True, text=True)
    if out.returncode:
        return None
    return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(out.stdout.splitlines())]


def body(name, shape, pos, vel=(0, 0, 0), mat='{ mu = 0.0 }', rpy=(0, 0, 0), static=False):
    s = '[[body]]\nname = "%s"\nshape = %s\n' % (name, shape)
    s += 'static = true\n' if static else 'mass = 1.0\nvelocity = [%r, %r, %r]\n' % vel
    return s + 'position = [%r, %r, %r]\nrpy = [%r, %r, %r]\nmaterial = %s\n' % (*pos, *rpy, mat)


def plane(mat):
    return '[[body]]\nname = "floor"\nstatic = true\nshape = { type = "plane" }\nmaterial = %s\n' % mat


def norm(r, n, k):
    return math.sqrt(sum(r['%s.%s%s' % (n, k, a)] ** 2 for a in 'xyz'))


def apexes(z):
    return [z[i] for i in range(1, len(z) - 1) if z[i] >= z[i - 1] and z[i] > z[i + 1] and z[i] > 5e-3]


E1 = '{ mu = 0.0, restitution = 1.0 }'
sc = HEAD0 + body('a', S, (-0.3, 0, 0), (1, 0, 0), mat=E1) + ''.join(
    body('b%d' % i, S, (0.2 * i, 0, 0), mat=E1) for i in range(3))
print('cradle: final vx of the four balls, momentum, kinetic energy (end, max)')
for m in METHODS:
    r = run(sc, m, 600)
    f = r[-1]
    v = [f[n + '.vx'] for n in ['a', 'b0', 'b1', 'b2']]
    print('  %-14s %s  p %.6f  E %.6f / %.6f' % (m, ' '.join('%+.4f' % x for x in v), sum(v),
                                                f['kinetic'], max(x['kinetic'] for x in r)))
sc = HEAD + plane('{ mu = 0.5 }') + body('p', '{ type = "box", size = [1.0, 1.0, 0.01] }', (0, 0, 0.5),
                                        mat='{ mu = 0.5 }')
print('plate: z min, z end, |ω| max')
for m in METHODS:
    r = run(sc, m, 1500)
    print('  %-14s %.5f %.5f %.1e' % (m, min(x['p.z'] for x in r), r[-1]['p.z'], max(norm(x, 'p', 'w') for x in r)))
sc = HEAD + plane('{ mu = 0.5 }') + body('t', '{ type = "box", size = [0.1, 0.1, 1.0] }', (0, 0, 0.5),
                                        mat='{ mu = 0.5 }')
print('slender: tilt max (rad), z end')
for m in METHODS:
    r = run(sc, m, 2000)
    tilt = max(2 * math.asin(min(1.0, math.hypot(x['t.qx'], x['t.qy']))) for x in r)
    print('  %-14s %.1e %.5f' % (m, tilt, r[-1]['t.z']))
for e in [0.5, 1.0]:
    M = '{ mu = 0.0, restitution = %r }' % e
    sc = HEAD0 + body('w', '{ type = "box", size = [0.2, 2.0, 2.0] }', (0.5, 0, 0), static=True, mat=M) \
        + body('b', B, (0, 0, 0), (2, 0, 0), mat=M)
    print('wall, e = %g: vx end (law %g), |ω| end' % (e, -2 * e))
    for m in METHODS:
        f = run(sc, m, 500)[-1]
        print('  %-14s %+.5f %.1e' % (m, f['b.vx'], norm(f, 'b', 'w')))
    sc = HEAD + body('floor', '{ type = "box", size = [4.0, 4.0, 0.2] }', (0, 0, -0.1), static=True, mat=M) \
        + body('b', B, (0, 0, 0.6), mat=M)
    print('drop, e = %g: first apexes (law %g), |ω| max' % (e, 0.5 * e * e))
    for m in METHODS:
        r = run(sc, m, 1400)
        ap = apexes([x['b.z'] - 0.1 for x in r])
        print('  %-14s %s %.1e' % (m, ' '.join('%.4f' % a for a in ap[:2]), max(norm(x, 'b', 'w') for x in r)))
M = '{ mu = 0.0, restitution = 0.8 }'
sc = HEAD + plane(M) + body('s', S, (0, 0, 1.1), mat=M)
print('ball, e = 0.8: apexes (law 0.64, 0.4096)')
for m in METHODS:
    r = run(sc, m, 2500)
    print('  %-14s %s' % (m, ' '.join('%.4f' % a for a in apexes([x['s.z'] - 0.1 for x in r])[:3])))
print('ipc_spin: the cube dropped flat from 0.5 m onto a plane under IPC, |ω| max')
for pos, yaw in [((0, 0), 0.0), ((0, 0), 0.3), ((0.37, -0.23), 0.0)]:
    sc = HEAD + plane('{ mu = 0.0 }') + body('b', B, (pos[0], pos[1], 0.6), rpy=(0, 0, yaw))
    r = run(sc, 'ipc', 600)
    i = max(range(len(r)), key=lambda i: norm(r[i], 'b', 'w'))
    print('  at %s, yaw %.1f: %.4f rad/s at t = %.3f s, ω = (%.3f, %.3f, %.3f)' % (
        pos, yaw, norm(r[i], 'b', 'w'), r[i]['time'], r[i]['b.wx'], r[i]['b.wy'], r[i]['b.wz']))
