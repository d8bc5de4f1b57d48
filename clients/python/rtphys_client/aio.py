"""asyncio client of the rtphys server (grpc.aio), the same calls as the blocking
`rtphys_client.Client`:

    import asyncio
    from rtphys_client.aio import AsyncClient

    async def main() -> None:
        async with AsyncClient("127.0.0.1:50051") as c:
            print((await c.world()).scene_name)
            await c.pause()
            print((await c.step(10)).tick)
            async for s in c.watch(decimation=100):
                print(s.tick)
                break

    asyncio.run(main())
"""

from __future__ import annotations

import os
from typing import AsyncIterator, Iterable, List, Optional, Tuple

import grpc
import grpc.aio

from rtphys.v1 import sim_pb2 as pb
from rtphys.v1 import sim_pb2_grpc

from . import MODES, BodyLike, body, now_ns

__all__ = ["AsyncClient"]


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


class AsyncClient:
    """asyncio client (grpc.aio). Open with `await AsyncClient.connect(...)` or
    `async with AsyncClient(...) as c`; same arguments as the blocking `Client`
    (`token` defaults to the RTPHYS_TOKEN environment variable)."""

    def __init__(self, addr: str = "127.0.0.1:50051", timeout: float = 10.0,
                 token: Optional[str] = None, ca: Optional[str] = None,
                 cert: Optional[str] = None, key: Optional[str] = None,
                 server_name: Optional[str] = None) -> None:
        self.addr = addr
        self.timeout = timeout
        options: List[Tuple[str, object]] = [("grpc.max_receive_message_length", 64 << 20)]
        if ca:
            creds = grpc.ssl_channel_credentials(
                root_certificates=_read(ca),
                private_key=_read(key) if key else None,
                certificate_chain=_read(cert) if cert else None,
            )
            if server_name:
                options.append(("grpc.ssl_target_name_override", server_name))
            self.channel = grpc.aio.secure_channel(addr, creds, options=options)
        else:
            self.channel = grpc.aio.insecure_channel(addr, options=options)
        token = token if token is not None else os.environ.get("RTPHYS_TOKEN")
        self._metadata: Tuple[Tuple[str, str], ...] = (
            (("authorization", f"Bearer {token}"),) if token else ()
        )
        self.stub = sim_pb2_grpc.SimulationStub(self.channel)
        self._seq = 0

    @classmethod
    async def connect(cls, addr: str = "127.0.0.1:50051", **kw) -> "AsyncClient":
        """A client whose channel is ready (waits at most `timeout` seconds)."""
        c = cls(addr, **kw)
        await c.wait_ready()
        return c

    async def wait_ready(self) -> None:
        import asyncio

        await asyncio.wait_for(self.channel.channel_ready(), self.timeout)

    async def close(self) -> None:
        await self.channel.close()

    async def __aenter__(self) -> "AsyncClient":
        await self.wait_ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _header(self) -> "pb.CommandHeader":
        self._seq += 1
        return pb.CommandHeader(seq=self._seq, client_time_ns=now_ns())

    async def world(self) -> "pb.WorldInfo":
        return await self.stub.GetWorld(pb.GetWorldRequest(), metadata=self._metadata)

    async def state(self, fields: Iterable[int] = (), bodies: Iterable[BodyLike] = ()) -> "pb.State":
        req = pb.GetStateRequest(fields=list(fields), bodies=[body(b) for b in bodies])
        return await self.stub.GetState(req, metadata=self._metadata)

    async def apply_wrench(self, *wrenches: "pb.BodyWrench") -> "pb.CommandReply":
        req = pb.ApplyWrenchRequest(header=self._header(), wrenches=list(wrenches))
        return await self.stub.ApplyWrench(req, metadata=self._metadata)

    async def command_joints(self, *joints: "pb.JointCommand") -> "pb.CommandReply":
        req = pb.CommandJointsRequest(header=self._header(), joints=list(joints))
        return await self.stub.CommandJoints(req, metadata=self._metadata)

    async def clear_wrench(self, *bodies: BodyLike) -> "pb.CommandReply":
        req = pb.ClearWrenchRequest(header=self._header(), bodies=[body(b) for b in bodies])
        return await self.stub.ClearWrench(req, metadata=self._metadata)

    async def step(self, n: int = 1) -> "pb.StepReply":
        return await self.stub.Step(pb.StepRequest(n=n), metadata=self._metadata)

    async def pause(self) -> "pb.RunStatus":
        return await self.stub.Pause(pb.PauseRequest(), metadata=self._metadata)

    async def resume(self) -> "pb.RunStatus":
        return await self.stub.Resume(pb.ResumeRequest(), metadata=self._metadata)

    async def set_mode(self, mode: Optional[str] = None, realtime_factor: float = 0.0) -> "pb.RunStatus":
        m = MODES[mode] if mode else pb.RUN_MODE_UNSPECIFIED
        req = pb.SetModeRequest(mode=m, realtime_factor=realtime_factor)
        return await self.stub.SetMode(req, metadata=self._metadata)

    async def reset(self) -> "pb.CommandReply":
        return await self.stub.Reset(pb.ResetRequest(), metadata=self._metadata)

    async def load_scene(self, path: Optional[str] = None, toml: Optional[str] = None,
                         name: str = "") -> "pb.WorldInfo":
        if (path is None) == (toml is None):
            raise ValueError("give exactly one of path or toml")
        req = pb.LoadSceneRequest(path=path, name=name) if path else pb.LoadSceneRequest(toml=toml, name=name)
        return await self.stub.LoadScene(req, metadata=self._metadata)

    async def stats(self, reset: bool = False) -> "pb.Stats":
        return await self.stub.GetStats(pb.GetStatsRequest(reset=reset), metadata=self._metadata)

    async def watch(self, decimation: int = 1, fields: Iterable[int] = (),
                    bodies: Iterable[BodyLike] = (),
                    latest_only: bool = False) -> AsyncIterator["pb.State"]:
        """Server stream of states (`async for`); leaving the loop cancels the call."""
        call = self.stub.StreamState(
            pb.StreamStateRequest(decimation=decimation, fields=list(fields),
                                  bodies=[body(b) for b in bodies], latest_only=latest_only),
            metadata=self._metadata,
        )
        try:
            async for s in call:
                yield s
        finally:
            call.cancel()
