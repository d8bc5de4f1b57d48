"""The 7-DoF arm teleoperated by a simulated haptic device (`rtphys serve --scene
config/scenes/haptic_teleop.toml`): the operator's hand moves the arm's link in
free space, lowers it onto the table, presses, slides and releases (the segments
of rtphys::haptics::scripts::teleop); the device loop runs at 1 kHz and renders
the table's force on the link, through its own passivity controller and clamp.

With --lockstep the server is switched to lockstep mode and the device drives it
(`HapticHello.lockstep`: one tick per device sample, unpaced): the run is made
twice from a Reset, and the two must render bit-identical forces in every period."""
from _args import parser
from rtphys_client import Client, pb
from rtphys_client.haptic import SimulatedDevice, percentile, run_device_loop

# (name, start s, duration s, hand target at the end, device coordinates, m):
# the same segments as src/haptics/scripts.rs TELEOP_SEGMENTS.
SEGMENTS = [
    ("free", 0.0, 1.5, (0.04, 0.0, 0.0)),
    ("lower", 2.0, 1.0, (0.04, 0.0, -0.065)),
    ("press", 3.0, 1.0, (0.04, 0.0, -0.065)),
    ("slide", 4.0, 1.5, (-0.02, 0.0, -0.065)),
    ("release", 6.0, 1.0, (-0.02, 0.0, 0.0)),
    ("rest", 7.0, 1.0, (-0.02, 0.0, 0.0)),
]
SECONDS = 8.0


def min_jerk(a, b, t0, d, t):
    tau = min(max((t - t0) / d, 0.0), 1.0)
    s = tau ** 3 * (10.0 + tau * (-15.0 + 6.0 * tau))
    ds = 30.0 * tau * tau * (1.0 - tau) ** 2 / d if t0 < t < t0 + d else 0.0
    return (tuple(x + (y - x) * s for x, y in zip(a, b)),
            tuple((y - x) * ds for x, y in zip(a, b)))


def script(t):
    frm = (0.0, 0.0, 0.0)
    for _, t0, d, to in SEGMENTS:
        if t < t0 + d:
            return min_jerk(frm, to, t0, d, t)
        frm = to
    return frm, (0.0, 0.0, 0.0)


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--device", default="teleop")
    p.add_argument("--rate", type=float, default=1000.0, help="device loop rate, Hz")
    p.add_argument("--lockstep", action="store_true",
                   help="the device drives a lockstep server; two runs from a Reset, compared bit for bit")
    a = p.parse_args()
    with Client(a.addr) as c:
        info = [d for d in c.world().haptic_devices if d.name == a.device]
        assert info, f"no haptic device {a.device!r} (serve config/scenes/haptic_teleop.toml)"
        d = info[0]
        print(f"device {d.name!r}: tool {d.tool_body!r}, {d.dof}-DoF, max force {d.max_force_n} N")
        if not a.lockstep:
            check(run(c, a, d), d, SECONDS * a.rate)
            return
        before = c.set_mode().mode
        c.set_mode("lockstep")
        try:
            runs = []
            for _ in range(2):
                c.reset()
                r = run(c, a, d, lockstep=True)
                check(r, d, SECONDS * a.rate)
                runs.append(r.forces)
            # Same scene + same device script -> the same forces, bit for bit.
            same = sum(1 for f, g in zip(*runs) if f == g)
            print(f"lockstep: the two runs render the same force in {same} of {len(runs[0])} periods")
            assert runs[0] == runs[1], "two lockstep runs differ"
        finally:
            c.set_mode(MODES[before])


MODES = {pb.RUN_MODE_REALTIME: "realtime", pb.RUN_MODE_LOCKSTEP: "lockstep", pb.RUN_MODE_MAX: "max"}


def run(c, a, d, lockstep=False):
    dev = SimulatedDevice(script, hand_k=600.0, hand_b=15.0)
    r = run_device_loop(c, a.device, dev, seconds=SECONDS, rate_hz=a.rate,
                        max_rate=d.max_rate_n_per_s, lockstep=lockstep)
    rtt = [x / 1e6 for x in r.rtt_ns]
    print(f"{r.periods} periods at {r.achieved_hz:.0f} Hz ({r.late} late), {r.feedbacks} feedbacks, "
          f"contact in {r.contact_periods} periods, max |f| {r.max_force:.2f} N, "
          f"port energy min {r.energy_min:.2e} J"
          + ("" if lockstep else f", round trip p50 {percentile(rtt, 50):.2f} ms p99 {percentile(rtt, 99):.2f} ms"))
    return r


def check(r, d, periods):
    assert not r.errors, f"samples rejected: {r.errors[:3]}"
    assert r.periods == round(periods), f"the loop stopped after {r.periods} periods"
    assert r.contact_periods > 500, "the link never pressed on the table"
    assert r.max_force <= d.max_force_n + 1e-9, "device force limit"
    assert r.energy_min >= -1e-9, "the port went active"


if __name__ == "__main__":
    main()
