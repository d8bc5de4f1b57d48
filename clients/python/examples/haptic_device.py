"""A simulated haptic device probing the table (`rtphys serve --scene
config/scenes/haptic_probe.toml`): the operator's hand lowers the stylus onto the
table and strokes it for a few seconds; the device loop runs at 1 kHz, renders the
server's local model between updates through its own passivity controller and
force clamp, and reports the contact force, the port energy and the round trip."""
import math

from _args import parser
from rtphys_client import Client
from rtphys_client.haptic import SimulatedDevice, percentile, run_device_loop


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--device", default="stylus")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--rate", type=float, default=1000.0, help="device loop rate, Hz")
    p.add_argument("--send-every", type=int, default=2,
                   help="send a sample every N periods (the local model renders in between)")
    a = p.parse_args()
    with Client(a.addr) as c:
        info = [d for d in c.world().haptic_devices if d.name == a.device]
        assert info, f"no haptic device {a.device!r} (serve config/scenes/haptic_probe.toml)"
        d = info[0]
        print(f"device {d.name!r}: tool {d.tool_body!r}, {d.dof}-DoF, scale {d.scale}, "
              f"max force {d.max_force_n} N, watchdog {d.watchdog}")

        def script(t):
            # Down 6 cm (device) at 3 cm/s onto the table, then stroke ±3 cm in x at 0.5 Hz.
            z = max(-0.03 * t, -0.06)
            vz = -0.03 if z > -0.06 else 0.0
            w = 2 * math.pi * 0.5
            s = max(0.0, t - 2.0)
            return (0.03 * math.sin(w * s), 0.0, z), (0.03 * w * math.cos(w * s) if s > 0 else 0.0, 0.0, vz)

        dev = SimulatedDevice(script, hand_k=600.0, hand_b=15.0)
        r = run_device_loop(c, a.device, dev, seconds=a.seconds, rate_hz=a.rate,
                            send_every=a.send_every)
        rtt = [x / 1e6 for x in r.rtt_ns]
        print(f"{r.periods} periods at {r.achieved_hz:.0f} Hz ({r.late} late), {r.feedbacks} feedbacks, "
              f"contact in {r.contact_periods} periods, max |f| {r.max_force:.2f} N, "
              f"port energy min {r.energy_min:.2e} J, round trip p50 {percentile(rtt, 50):.2f} ms "
              f"p99 {percentile(rtt, 99):.2f} ms")
        assert not r.errors, f"samples rejected: {r.errors[:3]}"
        assert r.feedbacks > 0.3 * r.periods, "feedback missing"
        assert r.contact_periods > 100, "the stylus never touched the table"
        assert r.max_force <= d.max_force_n + 1e-9, "device force limit"
        assert r.energy_min >= -1e-9, "the port went active"
        assert r.achieved_hz > 0.9 * a.rate, f"loop at {r.achieved_hz:.0f} Hz"


if __name__ == "__main__":
    main()
