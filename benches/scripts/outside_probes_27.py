"""Outside scenes of session 27 probed and found right (docs/EXPERIMENTS.md, "Outside scenes,
session 27", "Probed"), under all five methods:
- rod: a 1 × 0.04 × 0.04 m rod dropped flat from 0.3 m on a plane and on a static box: no spin;
- cylcap: a cylinder (r = h/2 = 0.1 m) sliding frictionless on its cap at 2 m/s: speed kept;
- corner: a 0.2 m cube dropped corner-down: no drift, no spin 30 steps after it lands;
- ramp: a box on a 20° / 30° static-box ramp at μ = 0.2 / 0.5: acceleration along the slope
  per 0.1 s window against g (sin θ − μ cos θ) (it holds where that is < 0).

    python3 benches/scripts/outside_probes_27.py target/release/rtphys
"""
import subprocess, csv, math, sys
BIN = sys.argv[1]
M = ['penalty', 'hunt_crossley', 'lcp', 'ipc', 'peg']


def run(scene, method, steps):
    open('/tmp/outside_probes_27.toml', 'w').write('[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\n' + scene)
    out = subprocess.run([BIN, 'run', '/tmp/outside_probes_27.toml', '--method', method, '--steps', str(steps)],
                         capture_output=True, text=True)
    return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(out.stdout.splitlines())]


def w(x):
    return math.sqrt(x['b.wx'] ** 2 + x['b.wy'] ** 2 + x['b.wz'] ** 2)


plane = '[[body]]\nname = "ground"\nstatic = true\nshape = { type = "plane" }\nmaterial = { mu = %g }\n'
table = ('[[body]]\nname = "t"\nstatic = true\nshape = { type = "box", size = [4.0, 4.0, 0.2] }\n'
         'position = [0.0, 0.0, -0.1]\nmaterial = { mu = %g }\n')
for gname, gnd in [('plane', plane), ('table', table)]:
    rod = gnd % 0.5 + ('[[body]]\nname = "b"\nshape = { type = "box", size = [1.0, 0.04, 0.04] }\nmass = 1.0\n'
                       'position = [0.0, 0.0, 0.3]\nmaterial = { mu = 0.5, restitution = 0.5 }\n')
    cyl = gnd % 0.0 + ('[[body]]\nname = "b"\nshape = { type = "cylinder", radius = 0.1, half_length = 0.1 }\n'
                       'mass = 1.0\nposition = [-1.0, 0.0, 0.1]\nvelocity = [2.0, 0.0, 0.0]\nmaterial = { mu = 0.0 }\n')
    rpy = (math.pi / 4, math.atan(1 / math.sqrt(2)), 0.0)
    cube = gnd % 0.5 + ('[[body]]\nname = "b"\nshape = { type = "box", size = [0.2, 0.2, 0.2] }\nmass = 1.0\n'
                        'position = [0.0, 0.0, 0.5]\nrpy = [%r, %r, %r]\nmaterial = { mu = 0.5, restitution = 0.3 }\n' % rpy)
    for m in M:
        r = run(rod, m, 1000)
        print('rod    %s %-14s |w| max %.2e rad/s, xy drift %.2e m'
              % (gname, m, max(map(w, r)), max(math.hypot(x['b.x'], x['b.y']) for x in r)))
        r = run(cyl, m, 800)
        vx = [x['b.vx'] for x in r]
        print('cylcap %s %-14s vx [%.4f, %.4f]' % (gname, m, min(vx), max(vx)))
        r = run(cube, m, 400)
        i = next(k for k, x in enumerate(r) if x['contact_points'] > 0)
        j = min(len(r) - 1, i + 30)
        print('corner %s %-14s xy drift %.2e m, |w| %.2e rad/s' % (gname, m, math.hypot(r[j]['b.x'], r[j]['b.y']), w(r[j])))
for deg, mu in [(20, 0.2), (20, 0.5), (30, 0.5)]:
    th = math.radians(deg)
    c, s = math.cos(th), math.sin(th)
    sc = ('[[body]]\nname = "g"\nstatic = true\nshape = { type = "box", size = [4.0, 2.0, 0.2] }\n'
          'position = [%r, 0.0, %r]\nrpy = [0.0, %r, 0.0]\nmaterial = { mu = %g }\n' % (-0.1 * s, -0.1 * c, th, mu))
    sc += ('[[body]]\nname = "b"\nshape = { type = "box", size = [0.2, 0.2, 0.1] }\nmass = 1.0\n'
           'position = [%r, 0.0, %r]\nrpy = [0.0, %r, 0.0]\nmaterial = { mu = %g }\n' % (-c + 0.05 * s, s + 0.05 * c, th, mu))
    law = max(9.81 * (s - mu * c), 0.0)
    for m in M:
        r = run(sc, m, 1000)
        sp = [x['b.vx'] * c - x['b.vz'] * s for x in r]
        print('ramp %d° μ %.1f %-14s a per 0.1 s: %s (law %.4f)'
              % (deg, mu, m, ' '.join('%.4f' % ((sp[i + 100] - sp[i]) / 0.1) for i in range(0, 900, 100)), law))
