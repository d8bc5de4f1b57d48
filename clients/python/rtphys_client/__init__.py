"""Python client of the rtphys simulation server.

    from rtphys_client import Client, wrench
    c = Client("127.0.0.1:50051")
    print(c.world().scene_name)
    c.apply_wrench(wrench("red_box", force=(3, 0, 0), duration_s=0.2))
    s = c.state()

Robot worlds (e.g. `rtphys serve --scene config/scenes/arm.toml`):

    c.command_joints(joint_servo("arm/joint1", 0.3), joint_torque("joint7", 0.2))
    ctl = c.control(name="pd", fields=[pb.STATE_FIELD_JOINTS, pb.STATE_FIELD_ACKS])
    seq = ctl.send_joints([joint_torque(j.id, 0.0) for j in ctl.next_state().joints])

asyncio: `rtphys_client.aio.AsyncClient` (grpc.aio, the same calls). Shell:
the `rtphys-client` command (`rtphys_client.cli`).

The stubs (``rtphys.v1.sim_pb2``) are generated from proto/rtphys/v1 by the
package's build step (setup.py): ``pip install ./clients/python`` is the setup.
"""

from __future__ import annotations

import os
import queue
import time
from typing import Any, Iterable, Iterator, Optional, Sequence, Union

import grpc

from rtphys.v1 import sim_pb2 as pb
from rtphys.v1 import sim_pb2_grpc

__all__ = [
    "Client",
    "ControlSession",
    "pb",
    "body",
    "wrench",
    "joint",
    "joint_effort",
    "joint_torque",
    "joint_servo",
    "MODES",
    "now_ns",
]

MODES = {
    "realtime": pb.RUN_MODE_REALTIME,
    "lockstep": pb.RUN_MODE_LOCKSTEP,
    "max": pb.RUN_MODE_MAX,
}

SAFE = {
    None: pb.SAFE_BEHAVIOR_UNSPECIFIED,
    "zero": pb.SAFE_BEHAVIOR_ZERO,
    "hold": pb.SAFE_BEHAVIOR_HOLD,
    "damp": pb.SAFE_BEHAVIOR_DAMP,
}

BodyLike = Union[str, int, "pb.BodyRef"]
JointLike = Union[str, int, "pb.JointRef"]


def now_ns() -> int:
    """CLOCK_MONOTONIC, the server's clock too (on the same host)."""
    return time.monotonic_ns()


def body(b: BodyLike) -> "pb.BodyRef":
    """A body by name or id."""
    if isinstance(b, pb.BodyRef):
        return b
    if isinstance(b, int):
        return pb.BodyRef(id=b)
    return pb.BodyRef(name=b)


def wrench(
    b: BodyLike,
    force: Sequence[float] = (0.0, 0.0, 0.0),
    torque: Sequence[float] = (0.0, 0.0, 0.0),
    frame: str = "world",
    point: Optional[Sequence[float]] = None,
    duration_s: float = 0.0,
) -> "pb.BodyWrench":
    """A wrench on a body: force (N), torque (N·m) in `frame` ("world" or "body"),
    optionally at a point, for `duration_s` seconds (0 = until cleared)."""
    return pb.BodyWrench(
        body=body(b),
        force=list(force),
        torque=list(torque),
        frame=pb.FRAME_BODY if frame == "body" else pb.FRAME_WORLD,
        point=list(point) if point is not None else [],
        duration_s=duration_s,
    )


def joint(j: JointLike) -> "pb.JointRef":
    """A joint by id or by name ("robot/joint", or a joint name only one robot has)."""
    if isinstance(j, pb.JointRef):
        return j
    if isinstance(j, int):
        return pb.JointRef(id=j)
    return pb.JointRef(name=j)


def joint_effort(j: JointLike, effort: float) -> "pb.JointCommand":
    """A held effort (N·m or N) on a joint, added to its servo (if any)."""
    return pb.JointCommand(joint=joint(j), effort=effort)


def joint_torque(j: JointLike, effort: float) -> "pb.JointCommand":
    """Torque control: a held effort with the joint's servo disabled (joints that
    have a servo in the scene; use `joint_effort` for the others)."""
    return pb.JointCommand(joint=joint(j), effort=effort, servo=pb.ServoCommand(enabled=False))


def joint_servo(
    j: JointLike, position: float, velocity: float = 0.0, torque: float = 0.0, enabled: bool = True
) -> "pb.JointCommand":
    """A servo set-point: τ = kp (position − q) + kd (velocity − q̇) + torque, run by the
    server at every force evaluation (joints with a servo in the scene)."""
    return pb.JointCommand(
        joint=joint(j),
        servo=pb.ServoCommand(enabled=enabled, position=position, velocity=velocity, torque=torque),
    )


class _BearerToken(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
                   grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Adds `authorization: Bearer <token>` to every call."""

    def __init__(self, token: str):
        self._md = ("authorization", f"Bearer {token}")

    def _details(self, d):
        md = list(d.metadata or []) + [self._md]
        return d._replace(metadata=md) if hasattr(d, "_replace") else _Details(d, md)

    def intercept_unary_unary(self, cont, d, req):
        return cont(self._details(d), req)

    def intercept_unary_stream(self, cont, d, req):
        return cont(self._details(d), req)

    def intercept_stream_unary(self, cont, d, it):
        return cont(self._details(d), it)

    def intercept_stream_stream(self, cont, d, it):
        return cont(self._details(d), it)


class _Details(grpc.ClientCallDetails):
    def __init__(self, d, metadata):
        self.method = d.method
        self.timeout = d.timeout
        self.metadata = metadata
        self.credentials = d.credentials
        self.wait_for_ready = getattr(d, "wait_for_ready", None)
        self.compression = getattr(d, "compression", None)


class Client:
    """Blocking client (grpcio). For asyncio: `rtphys_client.aio.AsyncClient`."""

    def __init__(self, addr: str = "127.0.0.1:50051", timeout: float = 10.0,
                 token: Optional[str] = None, ca: Optional[str] = None,
                 cert: Optional[str] = None, key: Optional[str] = None,
                 server_name: Optional[str] = None) -> None:
        """`token`: sent as `authorization: Bearer <token>` with every call (servers
        with `[auth]` tokens; default: the RTPHYS_TOKEN environment variable, if set).
        `ca`: PEM file of the CA to trust = TLS; `cert`/`key`: PEM files of this
        client's certificate for mutual TLS; `server_name`: the name the server's
        certificate is checked against (default: the host of `addr`)."""
        self.addr = addr
        options = [("grpc.max_receive_message_length", 64 << 20)]
        if ca:
            def rd(p):
                with open(p, "rb") as f:
                    return f.read()
            creds = grpc.ssl_channel_credentials(
                root_certificates=rd(ca),
                private_key=rd(key) if key else None,
                certificate_chain=rd(cert) if cert else None,
            )
            if server_name:
                options.append(("grpc.ssl_target_name_override", server_name))
            self.channel = grpc.secure_channel(addr, creds, options=options)
        else:
            self.channel = grpc.insecure_channel(addr, options=options)
        grpc.channel_ready_future(self.channel).result(timeout=timeout)
        token = token if token is not None else os.environ.get("RTPHYS_TOKEN")
        if token:
            self.channel = grpc.intercept_channel(self.channel, _BearerToken(token))
        self.stub = sim_pb2_grpc.SimulationStub(self.channel)
        self._seq = 0

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _header(self) -> "pb.CommandHeader":
        self._seq += 1
        return pb.CommandHeader(seq=self._seq, client_time_ns=now_ns())

    def world(self) -> "pb.WorldInfo":
        return self.stub.GetWorld(pb.GetWorldRequest())

    def body_id(self, name: str) -> int:
        for b in self.world().bodies:
            if b.name == name:
                return b.id
        raise KeyError(name)

    def state(self, fields: Iterable[int] = (), bodies: Iterable[BodyLike] = ()) -> "pb.State":
        return self.stub.GetState(
            pb.GetStateRequest(fields=list(fields), bodies=[body(b) for b in bodies])
        )

    def apply_wrench(self, *wrenches: "pb.BodyWrench") -> "pb.CommandReply":
        return self.stub.ApplyWrench(
            pb.ApplyWrenchRequest(header=self._header(), wrenches=list(wrenches))
        )

    def command_joints(self, *joints: "pb.JointCommand") -> "pb.CommandReply":
        """Set joint efforts and servo set-points (held until replaced); replies once
        they are in effect. Bad input raises grpc.RpcError (INVALID_ARGUMENT /
        NOT_FOUND naming the field) and never reaches the physics."""
        return self.stub.CommandJoints(
            pb.CommandJointsRequest(header=self._header(), joints=list(joints))
        )

    def joint_id(self, name: str) -> int:
        """Id of a joint by its full name ("robot/joint") or a bare name only one robot has."""
        matches = [j.id for j in self.world().joints if j.name == name or j.name.endswith("/" + name)]
        if len(matches) != 1:
            raise KeyError(name)
        return matches[0]

    def clear_wrench(self, *bodies: BodyLike) -> "pb.CommandReply":
        return self.stub.ClearWrench(
            pb.ClearWrenchRequest(header=self._header(), bodies=[body(b) for b in bodies])
        )

    def step(self, n: int = 1) -> "pb.StepReply":
        return self.stub.Step(pb.StepRequest(n=n))

    def pause(self) -> "pb.RunStatus":
        return self.stub.Pause(pb.PauseRequest())

    def resume(self) -> "pb.RunStatus":
        return self.stub.Resume(pb.ResumeRequest())

    def set_mode(self, mode: Optional[str] = None, realtime_factor: float = 0.0) -> "pb.RunStatus":
        m = MODES[mode] if mode else pb.RUN_MODE_UNSPECIFIED
        return self.stub.SetMode(pb.SetModeRequest(mode=m, realtime_factor=realtime_factor))

    def reset(self) -> "pb.CommandReply":
        return self.stub.Reset(pb.ResetRequest())

    def save(self) -> "pb.SnapshotInfo":
        return self.stub.SaveSnapshot(pb.SaveSnapshotRequest())

    def restore(self, snapshot_id: int) -> "pb.CommandReply":
        return self.stub.RestoreSnapshot(pb.RestoreSnapshotRequest(snapshot_id=snapshot_id))

    def load_scene(self, path: Optional[str] = None, toml: Optional[str] = None, name: str = "") -> "pb.WorldInfo":
        if (path is None) == (toml is None):
            raise ValueError("give exactly one of path or toml")
        req = pb.LoadSceneRequest(path=path, name=name) if path else pb.LoadSceneRequest(toml=toml, name=name)
        return self.stub.LoadScene(req)

    def stats(self, reset: bool = False) -> "pb.Stats":
        return self.stub.GetStats(pb.GetStatsRequest(reset=reset))

    def watch(
        self,
        decimation: int = 1,
        fields: Iterable[int] = (),
        bodies: Iterable[BodyLike] = (),
        latest_only: bool = False,
    ) -> Iterator["pb.State"]:
        """Server stream of states; cancel with `.cancel()` on the returned iterator."""
        return self.stub.StreamState(
            pb.StreamStateRequest(
                decimation=decimation,
                fields=list(fields),
                bodies=[body(b) for b in bodies],
                latest_only=latest_only,
            )
        )

    def control(
        self,
        name: str = "python",
        lockstep: bool = False,
        decimation: int = 1,
        watchdog_timeout_s: float = 0.0,
        safe_behavior: Optional[str] = None,
        fields: Iterable[int] = (),
        bodies: Iterable[BodyLike] = (),
        latest_only: bool = False,
    ) -> "ControlSession":
        hello = pb.ControlHello(
            latest_only=latest_only,
            name=name,
            lockstep=lockstep,
            decimation=decimation,
            watchdog_timeout_s=watchdog_timeout_s,
            safe_behavior=SAFE[safe_behavior],
            fields=list(fields),
            bodies=[body(b) for b in bodies],
        )
        return ControlSession(self.stub, hello)


_CLOSE = object()


class ControlSession:
    """A bidirectional control stream: `send` commands, read states."""

    def __init__(self, stub: Any, hello: "pb.ControlHello") -> None:
        self._q: "queue.Queue" = queue.Queue()
        self._q.put(pb.ControlRequest(hello=hello))
        self._seq = 0
        self.stream_id = 0
        self._states = stub.Control(self._requests())

    def _requests(self) -> Iterator["pb.ControlRequest"]:
        while True:
            m = self._q.get()
            if m is _CLOSE:
                return
            yield m

    def send(
        self,
        wrenches: Iterable["pb.BodyWrench"] = (),
        clear: bool = False,
        joints: Iterable["pb.JointCommand"] = (),
    ) -> int:
        """Queue a command (wrenches and joint commands); returns its sequence number."""
        self._seq += 1
        cmd = pb.ControlCommand(
            header=pb.CommandHeader(seq=self._seq, client_time_ns=now_ns()),
            wrenches=list(wrenches),
            clear=clear,
            joints=list(joints),
        )
        self._q.put(pb.ControlRequest(command=cmd))
        return self._seq

    def send_joints(self, joints: Iterable["pb.JointCommand"]) -> int:
        """Queue joint commands only; returns the sequence number."""
        return self.send(joints=joints)

    def next_state(self) -> "pb.State":
        s = next(self._states)
        self.stream_id = s.stream_id
        return s

    def own_ack(self, s: "pb.State") -> Optional["pb.CommandAck"]:
        for a in s.acks:
            if a.stream_id == s.stream_id:
                return a
        return None

    def wait_ack(self, seq: int) -> "pb.State":
        """Read states until one acknowledges `seq`; a rejection raises ValueError."""
        while True:
            s = self.next_state()
            for e in s.errors:
                if e.seq == seq:
                    raise ValueError(f"command {seq} rejected (code {e.code}): {e.message}")
            a = self.own_ack(s)
            if a is not None and a.seq >= seq:
                return s

    def close(self) -> None:
        self._q.put(_CLOSE)

    def cancel(self) -> None:
        self._states.cancel()
