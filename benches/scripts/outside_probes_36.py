"""Outside scenes, session 36 (docs/EXPERIMENTS.md, "Outside scenes, session 36"): a plank
leaning against a wall.

    python3 benches/scripts/outside_probes_36.py fall BIN METHODS [ALPHA0_DEG] [DT]
        frictionless floor and wall: the plank slides down and leaves the wall; from then on
        no horizontal force acts, so its centre's horizontal speed stays at its value at the
        parting, sqrt-closed form below (for a thin rod: leaves at sin a = 2/3 sin a0)
    python3 benches/scripts/outside_probes_36.py hold BIN METHODS MU [ALPHA0_DEG]
        floor friction MU, frictionless wall: the plank stands iff tan a >= 1/(2 MU) (thin
        rod; the plank's thickness shifts it, solved below); how far its foot moved in 1 s
    python3 benches/scripts/outside_probes_36.py billiard BIN METHODS [SPIN]
        a ball launched sliding (topspin SPIN v0/R): rolls at (5 v0 + 2 R w0)/7 from
        t = 2 |v0 - R w0| / (7 mu g)
    python3 benches/scripts/outside_probes_36.py curb BIN METHODS [RATIOS]
        a ball rolling into a curb: the angular momentum about the edge kept at the impact;
        climbs iff v >= v_min (RATIOS of v_min, default 0.9,1.1)
METHODS: comma-separated, e.g. penalty,hunt_crossley,lcp,lcp:primal,peg,ipc

The plank: half length l (along its body z), half thickness t (body x), half width w (body
y); it leans in the x-z plane with its underside's two end edges on the floor (z = 0) and on
the wall's face (x = 0). alpha is the angle of its axis from the floor.
"""
import math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outside_probes_35 import run  # noqa: E402  (rtphys run BIN TOML --method M -> CSV rows)

L_HALF, T_HALF, W_HALF, MASS, G = 0.5, 0.01, 0.1, 1.0, 9.81


def header(mu, dt=0.001):
    """A world at dt with gravity and a floor plane of friction mu (the bodies follow)."""
    return f"""[world]
gravity = [0.0, 0.0, {-G}]
dt = {dt}
method = "penalty"

[[body]]
name = "ground"
static = true
shape = {{ type = "plane" }}
material = {{ mu = {mu} }}
"""


def scene(alpha, mu_floor, mu_wall, dt):
    """The plank placed touching: its underside's end edges at z = 0 and at x = 0."""
    l, t = L_HALF, T_HALF
    # centre: c = A + l d + t n with A = (2l cos a, 0, 0), d = (-cos a, 0, sin a), n = (sin a, 0, cos a)
    cx = l * math.cos(alpha) + t * math.sin(alpha)
    cz = l * math.sin(alpha) + t * math.cos(alpha)
    # body z along d: a rotation about y by -(pi/2 - alpha) takes z to (-cos a, 0, sin a)
    pitch = -(math.pi / 2 - alpha)
    return header(mu_floor, dt) + f"""
[[body]]
name = "wall"
static = true
shape = {{ type = "box", half_extents = [0.5, 1.0, 2.0] }}
position = [-0.5, 0.0, 2.0]
material = {{ mu = {mu_wall} }}

[[body]]
name = "b"
shape = {{ type = "box", half_extents = [{t}, {W_HALF}, {l}] }}
mass = {MASS}
position = [{cx!r}, 0.0, {cz!r}]
rpy = [0.0, {pitch!r}, 0.0]
material = {{ mu = {mu_floor} }}
"""


def parting(alpha0):
    """The plank's parting from a frictionless wall, frictionless floor: (alpha_s, x_dot_c).

    One coordinate, a (both contacts held): x_c = l cos a + t sin a, z_c = l sin a + t cos a,
    so |c_dot|^2 = (l^2 + t^2 - 2 l t sin 2a) a_dot^2 and, with I_c = m (l^2 + t^2) / 3,
    M(a) = m (l^2 + t^2 - 2 l t sin 2a) + I_c; Lagrange:
    M a_ddot + M'(a) a_dot^2 / 2 + m g (l cos a - t sin a) = 0, M' = -4 m l t cos 2a.
    The wall's force is m x_ddot_c; integrated (RK4, 1e-6 s) until it vanishes.
    """
    l, t, m = L_HALF, T_HALF, MASS
    r2 = l * l + t * t

    def acc(a, ad):
        M = m * (r2 - 2 * l * t * math.sin(2 * a)) + m * r2 / 3
        dM = -4 * m * l * t * math.cos(2 * a)
        return -(0.5 * dM * ad * ad + m * G * (l * math.cos(a) - t * math.sin(a))) / M

    def wall(a, ad):
        return (-l * math.sin(a) + t * math.cos(a)) * acc(a, ad) + (-l * math.cos(a) - t * math.sin(a)) * ad * ad

    a, ad, h = alpha0, 0.0, 1e-6
    while True:
        k1 = (ad, acc(a, ad))
        k2 = (ad + h / 2 * k1[1], acc(a + h / 2 * k1[0], ad + h / 2 * k1[1]))
        k3 = (ad + h / 2 * k2[1], acc(a + h / 2 * k2[0], ad + h / 2 * k2[1]))
        k4 = (ad + h * k3[1], acc(a + h * k3[0], ad + h * k3[1]))
        a1 = a + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        ad1 = ad + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        if wall(a1, ad1) <= 0 and ad1 < 0:
            a, ad = a1, ad1
            break
        a, ad = a1, ad1
    return a, (-l * math.sin(a) + t * math.cos(a)) * ad


def fall(BIN, methods, alpha0_deg, dt):
    a0 = math.radians(alpha0_deg)
    a_s, v_s = parting(a0)
    print(f"alpha0 {alpha0_deg} deg: parts at {math.degrees(a_s):.3f} deg "
          f"(thin rod {math.degrees(math.asin(2 / 3 * math.sin(a0))):.3f}), x_dot_c {v_s:.5f} m/s")
    open('/tmp/outside_probes_36.toml', 'w').write(scene(a0, 0.0, 0.0, dt))
    steps = int(round(1.5 / dt))
    for meth in methods:
        rows = run(BIN, '/tmp/outside_probes_36.toml', meth, steps)
        if rows is None:
            continue
        t = [float(r['time']) for r in rows]
        vx = [float(r['b.vx']) for r in rows]
        z = [float(r['b.z']) for r in rows]
        e = [float(r['kinetic']) + float(r['potential']) for r in rows]
        # the plateau: vx at the first step where z is within 2 t of lying flat, and at the end
        i_flat = next((i for i, zi in enumerate(z) if zi < 3 * T_HALF), len(z) - 1)
        i_end = len(vx) - 1
        vmax = max(vx[:i_flat + 1])
        e0 = e[0]
        emax = max(e[:i_flat + 1])
        print(f"{meth:14s} vx max before landing {vmax:.5f} ({(vmax / v_s - 1) * 100:+.2f} %), "
              f"at landing {vx[i_flat]:.5f} ({(vx[i_flat] / v_s - 1) * 100:+.2f} %), end {vx[i_end]:.5f}; "
              f"lands t = {t[i_flat]:.3f}; energy max {(emax / e0 - 1) * 100:+.3f} %, "
              f"at landing {(e[i_flat] / e0 - 1) * 100:+.3f} %")


def hold(BIN, methods, mu, alpha0_deg):
    a0 = math.radians(alpha0_deg)
    l, t = L_HALF, T_HALF
    # statics, wall frictionless: N_floor = m g, N_wall = F_floor; moments about the foot A:
    # N_wall * 2l sin a = m g * (x_c - x_A) ... with the offset, the torque arm of gravity is
    # |x_c - 2l cos a| = l cos a - t sin a, the wall's arm 2l sin a.
    need = (l * math.cos(a0) - t * math.sin(a0)) / (2 * l * math.sin(a0))
    print(f"alpha0 {alpha0_deg} deg, mu {mu}: friction needed / normal = {need:.4f} "
          f"({'holds' if need <= mu else 'slides'})")
    open('/tmp/outside_probes_36.toml', 'w').write(scene(a0, mu, 0.0, 0.001))
    for meth in methods:
        rows = run(BIN, '/tmp/outside_probes_36.toml', meth, 1000)
        if rows is None:
            continue
        x0, x1 = float(rows[0]['b.x']), float(rows[-1]['b.x'])
        z0, z1 = float(rows[0]['b.z']), float(rows[-1]['b.z'])
        print(f"{meth:14s} centre moved dx {x1 - x0:+.3e} m, dz {z1 - z0:+.3e} m in 1 s")


def billiard(BIN, methods, spin):
    """A ball launched sliding at v0 with spin w0 = SPIN v0 / R about -y (SPIN = 0: no spin,
    -1: pure backspin of the same surface speed): friction mu m g acts until the contact
    point stops, then it rolls at v = (5 v0 + 2 R w0') / 7 with w0' its topspin (v0 + R w0' the
    contact's slip), reached at t = 2 |v0 - R w0'| / (7 mu g)."""
    R, m, mu, v0 = 0.05, 0.17, 0.2, 2.0
    w0 = spin * v0 / R  # topspin rate (rolling forward: w0 = v0 / R)
    v_f = (5 * v0 + 2 * R * w0) / 7
    t_f = 2 * abs(v0 - R * w0) / (7 * mu * G)
    print(f"ball v0 {v0} topspin {w0:.1f} rad/s: rolls at {v_f:.5f} m/s from {t_f:.4f} s")
    open('/tmp/outside_probes_36.toml', 'w').write(header(mu, 0.001) + f"""
[[body]]
name = "b"
shape = {{ type = "sphere", radius = {R} }}
mass = {m}
position = [0.0, 0.0, {R}]
velocity = [{v0}, 0.0, 0.0]
angular_velocity = [0.0, {w0}, 0.0]
material = {{ mu = {mu} }}
""")
    for meth in methods:
        rows = run(BIN, '/tmp/outside_probes_36.toml', meth, 1000)
        if rows is None:
            continue
        t = [float(r['time']) for r in rows]
        vx = [float(r['b.vx']) for r in rows]
        wy = [float(r['b.wy']) for r in rows]
        slip = [v - R * w for v, w in zip(vx, wy)]
        ts = next((ti for ti, s in zip(t, slip) if abs(s) < 1e-3), None)
        print(f"{meth:14s} v at 1 s {vx[-1]:.5f} ({(vx[-1] / v_f - 1) * 100:+.3f} %), slip < 1 mm/s from {ts}, "
              f"slip at 1 s {slip[-1]:.2e}")


def curb(BIN, methods, ratios):
    """A solid ball (R = 5 cm, 0.2 kg, mu = 1) rolls at v into a curb of height H = 1 cm. The
    impact at the curb's edge is impulsive and passes through the edge, so the angular momentum
    about the edge is kept: m v (R - H) + I v / R = I_e w', I = 2/5 m R^2, I_e = 7/5 m R^2, so
    w' R / v = (5 (R - H) / R + 2) / 7; it climbs iff 1/2 I_e w'^2 >= m g H."""
    R, H, m, mu = 0.05, 0.01, 0.2, 1.0
    k = (5 * (R - H) / R + 2) / 7
    v_min = math.sqrt(10 * G * H / 7) / k
    print(f"ball R {R} into a curb H {H}: w' R / v = {k:.4f}, climbs from v = {v_min:.4f} m/s")
    for ratio in ratios:
        v = ratio * v_min
        open('/tmp/outside_probes_36.toml', 'w').write(header(mu, 0.001) + f"""
[[body]]
name = "curb"
static = true
shape = {{ type = "box", half_extents = [0.5, 0.5, {H / 2}] }}
position = [0.5, 0.0, {H / 2}]
material = {{ mu = {mu} }}

[[body]]
name = "b"
shape = {{ type = "sphere", radius = {R} }}
mass = {m}
position = [-0.1, 0.0, {R}]
velocity = [{v}, 0.0, 0.0]
angular_velocity = [0.0, {v / R}, 0.0]
material = {{ mu = {mu} }}
""")
        for meth in methods:
            rows = run(BIN, '/tmp/outside_probes_36.toml', meth, 1500)
            if rows is None:
                continue
            x = [float(r['b.x']) for r in rows]
            z = [float(r['b.z']) for r in rows]
            vx = [float(r['b.vx']) for r in rows]
            vz = [float(r['b.vz']) for r in rows]
            # the impact: the first step the ball is within R of the edge (0, H) and the centre
            # speed just after: the speed 5 ms later (the impact's transient), against k v
            i = next((i for i, (xi, zi) in enumerate(zip(x, z)) if math.hypot(xi, zi - H) <= R + 1e-4), None)
            after = math.hypot(vx[i + 5], vz[i + 5]) if i is not None and i + 5 < len(vx) else float('nan')
            up = z[-1] > R + H / 2
            print(f"  v/v_min {ratio:.2f} {meth:14s} {'climbs' if up else 'back  '} end x {x[-1]:+.3f} z {z[-1]:.4f}; "
                  f"speed 5 ms after the edge {after / v:.4f} v (rigid {k:.4f}, less g t)")


if __name__ == '__main__':
    mode, BIN, methods = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
    if mode == 'fall':
        fall(BIN, methods, float(sys.argv[4]) if len(sys.argv) > 4 else 60.0,
             float(sys.argv[5]) if len(sys.argv) > 5 else 0.001)
    elif mode == 'hold':
        hold(BIN, methods, float(sys.argv[4]), float(sys.argv[5]) if len(sys.argv) > 5 else 60.0)
    elif mode == 'billiard':
        billiard(BIN, methods, float(sys.argv[4]) if len(sys.argv) > 4 else 0.0)
    elif mode == 'curb':
        curb(BIN, methods, [float(r) for r in sys.argv[4].split(',')] if len(sys.argv) > 4 else [0.9, 1.1])
    else:
        sys.exit(__doc__)
