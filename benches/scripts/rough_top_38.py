"""The heavy top of outside_probes_37 on a rough floor (mu = 0.3), per method: the energy's relative change and the
tilt (deg) at five equal marks (docs/EXPERIMENTS.md, "Outside scenes, session 38 (lead)").

    cd benches/scripts && python3 rough_top_38.py BIN DT SECONDS METHODS     (e.g. BIN 1e-3 5 penalty,lcp,peg)
"""
import math, sys
sys.path.insert(0, '.')
import outside_probes_37 as o
BIN = sys.argv[1]; dt = float(sys.argv[2]); secs = float(sys.argv[3])
theta = math.radians(30.0)
open('/tmp/rough_top_38_rough.toml', 'w').write(o.top_scene(theta, 150.0, dt, mu=0.3))
for meth in sys.argv[4].split(','):
    rows = o.run(BIN, '/tmp/rough_top_38_rough.toml', meth, int(round(secs / dt)))
    if rows is None: continue
    E = [float(r['kinetic']) + float(r['potential']) for r in rows]
    t = [float(r['time']) for r in rows]
    tilts = [math.degrees(math.acos(max(-1, min(1, o.axis(r)[2])))) for r in rows]
    n = len(rows); marks = [int(k * (n - 1) / 5) for k in range(1, 6)]
    print(meth, 'E rel:', ' '.join('%+.2e' % (E[k] / E[0] - 1) for k in marks), '| tilt:', ' '.join('%.2f' % tilts[k] for k in marks), flush=True)
