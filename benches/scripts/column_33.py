"""A column of N 0.1 m, 1 kg boxes on a plane (mu = 0.8, h = 1 ms) under the LCP method
with Lemke, stepped 5 s (docs/EXPERIMENTS.md, "Lemke's resting column"): the lateral drift of
the farthest box, the kinetic energy at the end, the largest kinetic energy after the first
10 % of the run, CPU seconds.

    python3 benches/scripts/column_33.py target/release/rtphys 10 [STEPS]
"""
import csv, io, math, resource, subprocess, sys
BIN, N = sys.argv[1], int(sys.argv[2])
STEPS = sys.argv[3] if len(sys.argv) > 3 else '5000'
SCENE = '/tmp/column_33_%d.toml' % N
s = ('[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = "lcp"\n\n[[body]]\nname = "ground"\n'
     'static = true\nshape = { type = "plane" }\nmaterial = { mu = 0.8 }\n')
for i in range(N):
    s += ('\n[[body]]\nname = "b%d"\nshape = { type = "box", half_extents = [0.05, 0.05, 0.05] }\n'
          'mass = 1.0\nposition = [0.0, 0.0, %r]\nmaterial = { mu = 0.8 }\n') % (i, 0.05 + 0.1 * i)
open(SCENE, 'w').write(s)
t0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
r = subprocess.run([BIN, 'run', SCENE, '--method', 'lcp', '--steps', STEPS], capture_output=True, text=True)
t = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - t0
if r.returncode:
    sys.exit(r.stderr[-300:])
rows = list(csv.DictReader(io.StringIO(r.stdout)))
last = rows[-1]
drift = max(math.hypot(float(last['b%d.x' % i]), float(last['b%d.y' % i])) for i in range(N))
kmax = max(float(x['kinetic']) for x in rows[len(rows) // 10:])
print('column of %d: drift %.2e m, KE end %.2e J, largest KE after 10 %% %.2e J, %.1f s CPU'
      % (N, drift, float(last['kinetic']), kmax, t))
