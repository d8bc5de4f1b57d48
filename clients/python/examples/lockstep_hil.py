"""Hardware-in-the-loop style lockstep run: the world advances one tick per command of
this controller. Read the state, compute a PD force holding "red_box" 5 cm ahead of
where it started, send it, and assert the contract at every tick (one tick per
command, our sequence number acknowledged at the tick boundary). Then step with
Step(n), snapshot, restore, and check the replay is bitwise identical."""
from _args import parser
from rtphys_client import Client, pb, wrench


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--ticks", type=int, default=500)
    a = p.parse_args()
    with Client(a.addr) as c:
        prev = c.world()
        c.set_mode("lockstep")
        try:
            i = c.body_id("red_box")
            mass = prev.bodies[i].mass
            ctl = c.control(name="lockstep_hil.py", lockstep=True)
            s = ctl.next_state()
            start, x_target = s.tick, s.bodies[i].position[0] + 0.05
            for _ in range(a.ticks):
                b = s.bodies[i]
                f = mass * (400.0 * (x_target - b.position[0]) - 40.0 * b.linear_velocity[0])
                seq = ctl.send([wrench("red_box", force=(f, 0.0, 0.0))])
                nxt = ctl.wait_ack(seq)
                assert nxt.tick == s.tick + 1, (nxt.tick, s.tick)
                assert ctl.own_ack(nxt).applied_tick == s.tick
                s = nxt
            ctl.close()
            x = s.bodies[i].position[0]
            print(f"lockstep: {s.tick - start} ticks, red_box x = {x:.4f} m (target {x_target:.4f} m)")
            assert abs(x - x_target) < 0.03, f"PD hold failed: x = {x}"

            # Step(n), snapshot -> run -> restore -> run: bitwise replay.
            snap = c.save()
            runs = []
            for _ in range(2):
                c.restore(snap.snapshot_id)
                c.apply_wrench(wrench("blue_box", force=(0.5, 0.0, 0.0), duration_s=0.05))
                runs.append([tuple(b.position) + tuple(b.orientation) for b in c.step(100).state.bodies])
            assert runs[0] == runs[1], "replay after restore differs"
            print(f"snapshot {snap.snapshot_id} at tick {snap.tick}: replay identical")
            print("OK")
        finally:
            c.set_mode(pb.RunMode.Name(prev.mode).replace("RUN_MODE_", "").lower())


if __name__ == "__main__":
    main()
