"""lcpgap1 (docs/EXPERIMENTS.md, "lcpgap1"): Housner's rocking block (the scene of
tests/contact_rocking.rs and outside_probes_32.py: a = 0.05, b = 0.1 m, 1 kg, mu = 1,
theta0 = 0.2 rad) under one or more methods; per method the first landing, the held
edge's slip before it, the energy kept at the first landing (Housner 0.490) and the
landing edge's deepest point below the plane over the landing (from the body's pose:
the -x bottom corners, z = z_c + a sin(th) - b cos(th)), with the step it is reached.

    python3 benches/scripts/lcpgap1_landing.py BIN METHODS [DT]
    e.g.  ... target/release/rtphys lcp,lcp:pgs,lcp:primal,peg 0.001
"""
import csv, math, subprocess, sys
BIN = sys.argv[1]; methods = sys.argv[2].split(',')
dt = float(sys.argv[3]) if len(sys.argv) > 3 else 0.001
a, b, c, m, th0, mu = 0.05, 0.1, 0.05, 1.0, 0.2, 1.0
al = math.atan2(a, b)
rx, rz = a*math.cos(th0) - b*math.sin(th0), -a*math.sin(th0) - b*math.cos(th0)
scene = '''[world]
gravity = [0.0, 0.0, -9.81]
dt = %r
method = "penalty"

[[body]]
name = "ground"
static = true
shape = { type = "plane" }
material = { mu = %r }

[[body]]
name = "blk"
shape = { type = "box", half_extents = [%r, %r, %r] }
mass = %r
position = [%r, 0.0, %r]
rpy = [0.0, %r, 0.0]
material = { mu = %r }
''' % (dt, mu, a, c, b, m, -rx, -rz + 1e-9, th0, mu)
path = '/tmp/lcpgap1_landing.toml'
open(path, 'w').write(scene)
steps = int(round(0.6 / dt))
E = lambda th: math.cos(al - abs(th)) - math.cos(al)
for mth in methods:
    args = [BIN, 'run', path, '--steps', str(steps)]
    if ':' in mth:
        mm, sv = mth.split(':'); args += ['--method', mm, '--lcp-solver', sv]
    else:
        args += ['--method', mth]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode:
        print(mth, 'FAILED', out.stderr[-300:]); continue
    rows = list(csv.DictReader(out.stdout.splitlines()))
    th = [2*math.atan2(float(r['blk.qy']), float(r['blk.qw'])) for r in rows]
    z = [float(r['blk.z']) for r in rows]
    t = [float(r['time']) for r in rows]
    land = next((i for i in range(len(th)) if th[i] <= 0.0), None)
    if land is None:
        print(mth, 'no landing'); continue
    slip = max(abs(float(r['blk.x']) + a*math.cos(x) - b*math.sin(x)) for r, x in zip(rows[:land], th[:land]))
    second = next((i for i in range(land, len(th)) if th[i] > 0.0), len(th))
    rebound = max(-x for x in th[land:second])
    # the landing edge (-x bottom corners) below the plane, over the landing's 20 steps
    lo, hi = max(land - 3, 0), min(land + 20, len(th))
    depth = [-(z[i] + a*math.sin(th[i]) - b*math.cos(th[i])) for i in range(lo, hi)]
    k = max(range(len(depth)), key=lambda i: depth[i])
    before = -(z[land-1] + a*math.sin(th[land-1]) - b*math.cos(th[land-1]))
    print('%-12s landing %.4f s, slip %.2e m, energy kept %.3f (Housner 0.490), landing edge: %.2e m (gap %.1e m the step before), deepest %.2e m at step %d (landing step %d), max penetration over the run %.2e m' % (
        mth, t[land], slip, E(rebound)/E(th0), -before if before < 0 else before, -before, depth[k], lo + k + 1, land + 1,
        max(float(r['max_penetration']) for r in rows)))
