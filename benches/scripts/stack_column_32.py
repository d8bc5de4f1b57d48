"""A column of twenty 0.1 m, 1 kg boxes on a plane (mu = 0.8, h = 1 ms), stepped 5 s under the
given methods (docs/EXPERIMENTS.md, "A stack of twenty"): lateral drift of the farthest box,
the top box's sink, the kinetic energy at the end, the deepest penetration of the second
half, CPU seconds.

    python3 benches/scripts/stack_column_32.py target/release/rtphys penalty,hunt_crossley,lcp,lcp:primal,lcp:pgs,peg

Optional third and fourth arguments: the column's height N (default 20) and the steps (default
5000); "Lemke's resting column" (session 33) runs `... target/release/rtphys lcp 10`.
"""
import csv, math, resource, subprocess, sys
BIN, METHODS = sys.argv[1], sys.argv[2].split(',')
N = int(sys.argv[3]) if len(sys.argv) > 3 else 20
STEPS = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
SCENE = '/tmp/stack_column_32_%d.toml' % N
s = ('[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = "penalty"\n\n[[body]]\nname = "ground"\n'
     'static = true\nshape = { type = "plane" }\nmaterial = { mu = 0.8 }\n')
for i in range(N):
    s += ('\n[[body]]\nname = "b%d"\nshape = { type = "box", half_extents = [0.05, 0.05, 0.05] }\n'
          'mass = 1.0\nposition = [0.0, 0.0, %r]\nmaterial = { mu = 0.8 }\n') % (i, 0.05 + 0.1 * i)
open(SCENE, 'w').write(s)
for m in METHODS:
    args = [BIN, 'run', SCENE, '--steps', str(STEPS), '--method', m.split(':')[0]]
    args += ['--lcp-solver', m.split(':')[1]] if ':' in m else []
    t0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    out = subprocess.run(args, capture_output=True, text=True)
    t = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - t0
    if out.returncode:
        print(m, 'FAILED', out.stderr[-300:])
        continue
    rows = list(csv.DictReader(out.stdout.splitlines()))
    last = rows[-1]
    drift = max(math.hypot(float(last['b%d.x' % i]), float(last['b%d.y' % i])) for i in range(N))
    top0 = 0.05 + 0.1 * (N - 1)
    pen = max(float(r['max_penetration']) for r in rows[len(rows) // 2:])
    kmax = max(float(r['kinetic']) for r in rows[len(rows) // 10:])
    print('%-12s lateral drift %.2e m, top sink %.2e m, KE end %.2e J, largest KE after 10 %% %.2e J, '
          'pen %.2e m, %.1f s CPU' % (m, drift, top0 - float(last['b%d.z' % (N - 1)]),
                                       float(last['kinetic']), kmax, pen, t))
