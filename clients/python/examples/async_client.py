"""The asyncio client (rtphys_client.aio.AsyncClient, grpc.aio) end to end: pause,
step N and check the tick advanced by exactly N, resume, read a few states from
the stream (every one after that tick), then pause again if the world was paused.

    python async_client.py --addr 127.0.0.1:PORT [--steps 25]
"""
import asyncio
import sys

from _args import parser

from rtphys_client.aio import AsyncClient


async def main(addr: str, steps: int) -> int:
    async with AsyncClient(addr) as c:
        w = await c.world()
        was_paused = (await c.stats()).paused
        p = await c.pause()
        r = await c.step(steps)
        print(f"{w.scene_name}: {len(w.bodies)} bodies; paused at tick {p.tick}, "
              f"step({steps}) -> tick {r.tick}")
        if r.tick != p.tick + steps:
            print(f"FAIL: expected tick {p.tick + steps}, got {r.tick}")
            return 1
        await c.resume()
        n = 0
        async for s in c.watch(decimation=1):
            if s.tick <= r.tick or len(s.bodies) != len(w.bodies):
                print(f"FAIL: streamed state tick {s.tick} ({len(s.bodies)} bodies) after tick {r.tick}")
                return 1
            n += 1
            if n == 3:
                break
        if was_paused:
            await c.pause()
        print(f"ok: {n} streamed states after tick {r.tick}")
    return 0


if __name__ == "__main__":
    p = parser(__doc__)
    p.add_argument("--steps", type=int, default=25)
    a = p.parse_args()
    sys.exit(asyncio.run(main(a.addr, a.steps)))
