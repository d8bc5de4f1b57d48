"""A 1 kHz bidirectional control loop (grpc.aio) printing command -> state round-trip
percentiles. With --lockstep the server is switched to lockstep for the run, so each
command triggers its own tick; otherwise the round trip includes the wait for the
next realtime tick."""
import asyncio
import time

import grpc

from _args import parser
from rtphys_client import MODES, pb
from rtphys.v1 import sim_pb2_grpc


async def run(addr: str, count: int, lockstep: bool, rate: float) -> list:
    async with grpc.aio.insecure_channel(addr) as ch:
        stub = sim_pb2_grpc.SimulationStub(ch)
        prev = await stub.GetWorld(pb.GetWorldRequest())
        if lockstep:
            await stub.SetMode(pb.SetModeRequest(mode=MODES["lockstep"]))
        call = stub.Control()
        await call.write(pb.ControlRequest(hello=pb.ControlHello(
            name="latency_probe.py", lockstep=lockstep,
            fields=[pb.STATE_FIELD_POSE], bodies=[pb.BodyRef(name="red_box")])))
        first = await call.read()
        me = first.stream_id
        period = 1.0 / rate
        w = pb.BodyWrench(body=pb.BodyRef(name="red_box"), force=[0.0, 0.0, 0.0])
        rtt = []
        t0 = time.perf_counter()
        for seq in range(1, count + 1):
            delay = t0 + (seq - 1) * period - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            t = time.perf_counter_ns()
            await call.write(pb.ControlRequest(command=pb.ControlCommand(
                header=pb.CommandHeader(seq=seq, client_time_ns=time.monotonic_ns()), wrenches=[w])))
            while True:
                s = await call.read()
                if s.errors:
                    raise RuntimeError(s.errors[0].message)
                if any(a.stream_id == me and a.seq >= seq for a in s.acks):
                    break
            rtt.append((time.perf_counter_ns() - t) / 1000.0)
        await call.done_writing()
        call.cancel()
        if lockstep:
            await stub.SetMode(pb.SetModeRequest(mode=prev.mode))
        return rtt


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--count", type=int, default=20000)
    p.add_argument("--rate", type=float, default=1000.0, help="commands per second")
    p.add_argument("--lockstep", action="store_true")
    a = p.parse_args()
    rtt = sorted(asyncio.run(run(a.addr, a.count, a.lockstep, a.rate)))
    q = lambda f: rtt[round((len(rtt) - 1) * f)]
    print(f"round trip over {len(rtt)} commands ({'lockstep' if a.lockstep else 'server mode unchanged'}): "
          f"p50 {q(0.5):.1f} us  p99 {q(0.99):.1f} us  p99.9 {q(0.999):.1f} us  max {rtt[-1]:.1f} us")


if __name__ == "__main__":
    main()
