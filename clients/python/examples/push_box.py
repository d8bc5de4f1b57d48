"""Push "red_box" across the table with a 3 N force for 0.2 s and report how far it went."""
import time

from _args import parser
from rtphys_client import Client, pb, wrench


def main() -> None:
    a = parser(__doc__).parse_args()
    with Client(a.addr) as c:
        w = c.world()
        print(f"world {w.scene_name!r}: {len(w.bodies)} bodies, dt {w.dt} s, {w.rate_hz:.0f} Hz, method {w.method}")
        i = c.body_id("red_box")
        before = c.state()
        r = c.apply_wrench(wrench("red_box", force=(3.0, 0.0, 0.0), duration_s=0.2))
        print(f"push applied at tick {r.applied_tick}")
        if w.mode == pb.RUN_MODE_LOCKSTEP or w.paused:
            c.step(300)
        else:
            time.sleep(0.3)
        after = c.state()
        x0, x1 = before.bodies[i].position[0], after.bodies[i].position[0]
        print(f"red_box x: {x0:.4f} -> {x1:.4f} m after {after.tick - before.tick} ticks")
        assert after.tick > before.tick, "the world did not advance"


if __name__ == "__main__":
    main()
