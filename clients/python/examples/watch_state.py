"""Print a decimated stream of the poses of the free bodies."""
from _args import parser
from rtphys_client import Client, pb


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--decimation", type=int, default=100)
    a = p.parse_args()
    with Client(a.addr) as c:
        w = c.world()
        names = {b.id: b.name for b in w.bodies if not b.is_static}
        stream = c.watch(decimation=a.decimation, fields=[pb.STATE_FIELD_POSE], bodies=list(names))
        last = None
        for k, s in enumerate(stream):
            poses = " ".join(f"{names[b.id]}=({b.position[0]:.3f},{b.position[1]:.3f},{b.position[2]:.3f})" for b in s.bodies)
            print(f"tick {s.tick:>7} t={s.sim_time:.3f}s dropped={s.dropped} {poses}")
            assert last is None or s.tick > last
            last = s.tick
            if k + 1 >= a.count:
                stream.cancel()
                break


if __name__ == "__main__":
    main()
