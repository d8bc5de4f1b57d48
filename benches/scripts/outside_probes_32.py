"""Outside scenes, session 32 (docs/EXPERIMENTS.md, "Outside scenes, session 32"):
Housner's rocking block under every method.

A block 2a x 2b (a = 0.05 m along x, b = 0.1 m), 1 kg, released at rest on its +x bottom
edge tilted th0 < alpha = atan(a/b), mu = 1. Rigid and without slip it falls back about
the held edge (RK4 below) and each landing keeps the share (1 - 3/2 sin^2 alpha)^2 of
its energy above the upright rest (Housner 1963). Prints, per method: the first
landing, the held edge's slip before it, the amplitudes, the energy kept at the first
landing.

    python3 benches/scripts/outside_probes_32.py target/release/rtphys METHODS [TH0] [DT]
    e.g.  ... penalty,penalty_deepest,hunt_crossley,lcp,lcp:primal,peg,ipc 0.2 0.001
"""
import csv, math, subprocess, sys, resource
BIN = sys.argv[1]; methods = sys.argv[2].split(',')
a, b, c, m, th0, mu = 0.05, 0.1, 0.05, 1.0, float(sys.argv[3]) if len(sys.argv) > 3 else 0.2, 1.0
dt = float(sys.argv[4]) if len(sys.argv) > 4 else 0.001
steps = int(round(3.0 / dt))
R = math.hypot(a, b); al = math.atan2(a, b); g = 9.81
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
open('/tmp/outside_probes_32.toml', 'w').write(scene)
# analytic amplitudes
amp = [th0]; e = math.cos(al - th0) - math.cos(al); r = 1 - 1.5*math.sin(al)**2
for k in range(5):
    e *= r*r; amp.append(al - math.acos(math.cos(al) + e))
# first impact time: quadrature of the fall from th0 to 0 about the corner
Ip = 4/3*m*R*R
def tfall(t0):
    # the rigid fall about the held edge, I_p th'' = -m g R sin(alpha - th), RK4 at 1 us
    k = m*g*R/Ip
    acc = lambda th: -k*math.sin(al - th)
    th, w, t, dt = t0, 0.0, 0.0, 1e-6
    while th > 0:
        k1t, k1w = w, acc(th)
        k2t, k2w = w + 0.5*dt*k1w, acc(th + 0.5*dt*k1t)
        k3t, k3w = w + 0.5*dt*k2w, acc(th + 0.5*dt*k2t)
        k4t, k4w = w + dt*k3w, acc(th + dt*k3t)
        th += dt/6*(k1t + 2*k2t + 2*k3t + k4t); w += dt/6*(k1w + 2*k2w + 2*k3w + k4w); t += dt
    return t
print('alpha %.4f rad, w ratio %.4f; amplitudes (rad): %s; first landing at t = %.4f s; energy kept per landing %.3f' % (al, r, ' '.join('%.4f' % x for x in amp), tfall(th0), r*r))
for mth in methods:
    args = [BIN, 'run', '/tmp/outside_probes_32.toml', '--steps', str(steps)]
    if ':' in mth:
        mm, sv = mth.split(':'); args += ['--method', mm, '--lcp-solver', sv]
    else:
        args += ['--method', mth]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode:
        print(mth, 'FAILED', out.stderr[-300:]); continue
    rows = list(csv.DictReader(out.stdout.splitlines()))
    th = [2*math.atan2(float(r['blk.qy']), float(r['blk.qw'])) for r in rows]
    t = [float(r['time']) for r in rows]
    # crossings of zero and peaks between them
    peaks, cross = [], []
    cur = 0.0; last_sign = 1
    for i in range(len(th)):
        s = 1 if th[i] > 0 else -1
        if s != last_sign:
            cross.append(t[i]); peaks.append(cur); cur = 0.0; last_sign = s
        cur = max(cur, abs(th[i]))
    peaks.append(cur)
    pen = max(float(r['max_penetration']) for r in rows)
    # the pivot corner (+a, -b) in world x until the first crossing
    slip = 0.0
    for r, thi, ti in zip(rows, th, t):
        if cross and ti >= cross[0]: break
        cx = float(r['blk.x']) + a*math.cos(thi) - b*math.sin(thi)
        slip = max(slip, abs(cx))

    # the landing edge (the -x bottom corners, z = z_c + a sin th - b cos th) below the
    # floor over the 20 steps from the first landing (lcpgap1)
    land = next((i for i, ti in enumerate(t) if cross and ti >= cross[0]), len(rows))
    ldepth = max([-(float(r['blk.z']) + a*math.sin(x) - b*math.cos(x)) for r, x in zip(rows[land:land + 20], th[land:land + 20])] + [0.0])
    ymax = max(abs(float(r['blk.y'])) for r in rows)
    print('%-15s first landing %.4f s, edge slip before it %.2e m, amplitudes: %s, energy kept at the first landing %.3f, max penetration %.2e m, landing edge %.2e m deep' % (
        mth, cross[0] if cross else float('nan'), slip, ' '.join('%.4f' % x for x in peaks[:6]),
        (math.cos(al - peaks[1]) - math.cos(al)) / (math.cos(al - th0) - math.cos(al)) if len(peaks) > 1 else float('nan'), pen, ldepth))
