"""Haptic device loop of the rtphys client: a device adapter (read the pose, write
the force), the loop at >= 1 kHz that renders the latest local model between
network updates through its own port (rate limit, Hannaford-Ryu passivity
controller, force clamp), a simulated device (device mass + the operator's hand
following a script) and a stub showing where a real device SDK plugs in.

    from rtphys_client import Client
    from rtphys_client.haptic import SimulatedDevice, run_device_loop
    c = Client("127.0.0.1:50051")
    dev = SimulatedDevice(script=lambda t: ((0, 0, -0.05 * min(t, 1.0)), (0, 0, 0)))
    report = run_device_loop(c, "stylus", dev, seconds=3.0)

Lockstep (``run_device_loop(..., lockstep=True)`` on a server in lockstep mode,
``HapticHello.lockstep``): no pacing -- each period sends its sample, waits for the
feedback of the tick that applied it and renders that; samples carry the device's
own time. Same scene + same device script -> bit-identical runs whatever the host's
load (the rig the tests and hardware-in-the-loop runs use).

Sign convention (as the server's): f is the force the device renders on the
hand, v the device velocity; the energy absorbed by the environment,
E = -sum f.v dt, stays >= 0 when the port is passive. Device coordinates throughout
(WorldInfo.haptic_devices gives the workspace and limits).
"""

from __future__ import annotations

import math
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

from rtphys.v1 import sim_pb2 as pb

Vec = Tuple[float, float, float]

_CLOSE = object()

# How long a lockstep device loop waits for the tick of its sample (s).
LOCKSTEP_WAIT_S = 5.0
# grpc.StatusCode.DEADLINE_EXCEEDED's number (as the server's CommandError codes).
_DEADLINE_EXCEEDED = 4


def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _mul(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _norm(a):
    return math.sqrt(_dot(a, a))


def _matvec(m, v):
    return (
        m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
        m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
        m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
    )


class DeviceAdapter:
    """Where the loop reads the device and writes its force. Subclass it for a device."""

    def read(self) -> Tuple[Vec, Vec]:
        """Position (m) and velocity (m/s), device coordinates."""
        raise NotImplementedError

    def write(self, force: Vec) -> None:
        """Force to render, N."""
        raise NotImplementedError

    def advance(self, dt: float) -> None:
        """A simulated device moves by one period; a real one moves by itself."""


class RealDeviceStub(DeviceAdapter):
    """Where a real device SDK plugs in (not a working driver). For example, with a
    vendor SDK exposing ``get_position()``, ``get_velocity()`` and ``set_force()``:

        class MyDevice(DeviceAdapter):
            def __init__(self):
                self.sdk = vendor.open_device()      # the SDK's own handle
            def read(self):
                return self.sdk.get_position(), self.sdk.get_velocity()
            def write(self, force):
                self.sdk.set_force(force)            # N, device coordinates

    Map the SDK's axes and units to the device coordinates the server expects
    (metres, the workspace in WorldInfo.haptic_devices) in ``read``/``write``.
    """

    def read(self):
        raise NotImplementedError("plug the device SDK's position/velocity read in here")

    def write(self, force):
        raise NotImplementedError("plug the device SDK's force command in here")


class SimulatedDevice(DeviceAdapter):
    """m dv/dt = f + k_h (x_op - x) + b_h (v_op - v) - b_d v, semi-implicit (the
    server's rtphys::haptics::device model). ``script(t) -> (x_op, v_op)``."""

    def __init__(self, script: Callable[[float], Tuple[Vec, Vec]], mass=0.15,
                 damping=0.0, hand_k=1000.0, hand_b=30.0, x0: Vec = (0.0, 0.0, 0.0)):
        self.script = script
        self.m, self.bd, self.kh, self.bh = mass, damping, hand_k, hand_b
        self.x, self.v = tuple(x0), (0.0, 0.0, 0.0)
        self.f = (0.0, 0.0, 0.0)
        self.t = 0.0

    def read(self):
        return self.x, self.v

    def write(self, force):
        self.f = force

    def advance(self, dt):
        x_op, v_op = self.script(self.t)
        c = self.bh + self.bd
        spring = _add(_mul(_sub(x_op, self.x), self.kh), _mul(v_op, self.bh))
        num = _add(_mul(self.v, self.m), _mul(_add(self.f, spring), dt))
        self.v = _mul(num, 1.0 / (self.m + c * dt))
        self.x = _add(self.x, _mul(self.v, dt))
        self.t += dt


@dataclass
class LocalModel:
    """f(x, v) = f0 - K (x - x0) - B v; one-sided along `normal` if given."""
    f0: Vec = (0.0, 0.0, 0.0)
    x0: Vec = (0.0, 0.0, 0.0)
    k: Sequence[float] = (0.0,) * 9
    b: Sequence[float] = (0.0,) * 9
    normal: Optional[Vec] = None

    @staticmethod
    def from_pb(m: "pb.LocalModel") -> "LocalModel":
        v3 = lambda r: tuple(r) if len(r) == 3 else (0.0, 0.0, 0.0)
        return LocalModel(
            f0=v3(m.f0), x0=v3(m.x0),
            k=tuple(m.stiffness) if len(m.stiffness) == 9 else (0.0,) * 9,
            b=tuple(m.damping) if len(m.damping) == 9 else (0.0,) * 9,
            normal=tuple(m.normal) if len(m.normal) == 3 else None,
        )

    def force(self, x: Vec, v: Vec) -> Vec:
        dx = _sub(x, self.x0)
        f = _sub(_sub(self.f0, _matvec(self.k, dx)), _matvec(self.b, v))
        n = self.normal
        if n is not None and (_dot(n, dx) > 0.0 or _dot(f, n) < 0.0):
            return (0.0, 0.0, 0.0)
        return f


class DevicePort:
    """Rate limit, passivity observer/controller (Hannaford & Ryu 2002), clamp: the
    server's rtphys::haptics::passivity::DevicePort, step for step."""

    def __init__(self, max_force: float, max_rate: float = math.inf, control: bool = True):
        self.max_force, self.max_rate, self.control = max_force, max_rate, control
        self.energy = 0.0
        self.energy_min = 0.0
        self.f_prev = (0.0, 0.0, 0.0)
        self.active_steps = 0

    def render(self, f_env: Vec, v: Vec, dt: float) -> Vec:
        step = _sub(f_env, self.f_prev)
        n = _norm(step)
        max_step = self.max_rate * dt
        f1 = _add(self.f_prev, _mul(step, max_step / n)) if n > max_step else f_env
        self.f_prev = f1
        v2 = _dot(v, v)
        e_star = self.energy - _dot(f1, v) * dt
        f2 = f1
        if self.control and e_star < 0.0 and v2 > 0.0:
            alpha = -e_star / (dt * v2)
            f2 = _sub(f1, _mul(v, alpha))
            self.active_steps += 1
        m = _norm(f2)
        f = _mul(f2, self.max_force / m) if m > self.max_force else f2
        self.energy -= _dot(f, v) * dt
        self.energy_min = min(self.energy_min, self.energy)
        return f


class HapticSession:
    """An open Haptic stream: samples in (``send``), the newest feedback kept by a
    reader thread (``latest``)."""

    def __init__(self, stub, device, network: Optional["pb.NetworkConditions"] = None,
                 lockstep: bool = False):
        hello = pb.HapticHello(network=network, lockstep=lockstep)
        if isinstance(device, int):
            hello.id = device
        else:
            hello.name = device
        self._q: "queue.Queue" = queue.Queue()
        self._q.put(pb.HapticRequest(hello=hello))
        self._seq = 0
        self.lockstep = lockstep
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._closed = False
        self.latest: Optional["pb.HapticFeedback"] = None
        self.fresh = False
        self.feedbacks = 0
        self.errors: List["pb.CommandError"] = []
        self.rtt_ns: List[int] = []
        self.error: Optional[Exception] = None
        self._last_seq = 0
        self._stream = stub.Haptic(self._requests())
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _requests(self):
        while True:
            m = self._q.get()
            if m is _CLOSE:
                return
            yield m

    def _read(self):
        try:
            for fb in self._stream:
                now = time.monotonic_ns()
                with self._lock:
                    self.feedbacks += 1
                    self.errors.extend(fb.errors)
                    if fb.seq > self._last_seq and fb.client_time_ns > 0:
                        self._last_seq = fb.seq
                        # (Lockstep samples carry the device's time, not the host's.)
                        if not self.lockstep:
                            self.rtt_ns.append(now - fb.client_time_ns)
                    self.latest = fb
                    self.fresh = True
                    self._arrived.notify_all()
        except Exception as e:  # the stream's status (grpc.RpcError)
            self.error = e
        finally:
            with self._lock:
                self._closed = True
                self._arrived.notify_all()

    def send(self, x: Vec, v: Optional[Vec] = None, device_time_ns: Optional[int] = None) -> int:
        """Send a sample; it carries `device_time_ns` if given (lockstep), else the host's clock."""
        self._seq += 1
        t = time.monotonic_ns() if device_time_ns is None else device_time_ns
        s = pb.DeviceSample(seq=self._seq, client_time_ns=t,
                            position=list(x), linear_velocity=list(v) if v else [])
        self._q.put(pb.HapticRequest(sample=s))
        return self._seq

    def await_tick_of(self, seq: int, timeout: float = LOCKSTEP_WAIT_S) -> bool:
        """Lockstep: wait until the feedback of the tick that applied sample `seq` is in.
        False if the stream ended, or if no tick came within `timeout` (a rejected
        sample, reported in the stream's errors, leaves the world waiting): that is
        recorded as an error with code DEADLINE_EXCEEDED."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self.latest is None or self.latest.seq < seq:
                if self._closed:
                    return False
                left = deadline - time.monotonic()
                if left <= 0.0:
                    self.errors.append(pb.CommandError(
                        seq=seq, code=_DEADLINE_EXCEEDED,
                        message=f"lockstep: no tick applied sample {seq} within {timeout} s"))
                    return False
                self._arrived.wait(left)
            return True

    def take(self) -> Optional["pb.HapticFeedback"]:
        """The newest feedback if one arrived since the last call."""
        with self._lock:
            if not self.fresh:
                return None
            self.fresh = False
            return self.latest

    def close(self):
        self._q.put(_CLOSE)
        self._reader.join(timeout=5.0)


@dataclass
class LoopReport:
    periods: int = 0
    achieved_hz: float = 0.0
    late: int = 0
    feedbacks: int = 0
    contact_periods: int = 0
    max_force: float = 0.0
    energy_min: float = 0.0
    rtt_ns: List[int] = field(default_factory=list)
    errors: List["pb.CommandError"] = field(default_factory=list)
    last: Optional["pb.HapticFeedback"] = None
    # The force rendered in each period (device coordinates), in order.
    forces: List[Vec] = field(default_factory=list)


def run_device_loop(client, device, adapter: DeviceAdapter, seconds: float,
                    rate_hz: float = 1000.0, max_force: Optional[float] = None,
                    max_rate: float = math.inf, control: bool = True,
                    network: Optional["pb.NetworkConditions"] = None,
                    send_every: int = 1, lockstep: bool = False) -> LoopReport:
    """Run the device loop for `seconds` at `rate_hz`: read, send (every
    `send_every`-th period), render the latest local model through the device's
    port, write. The device limits default to the server's
    (WorldInfo.haptic_devices).

    `lockstep` (a server in lockstep mode): unpaced; every period sends its sample
    stamped with the device's time, waits for the feedback of the tick that applied
    it (at most LOCKSTEP_WAIT_S) and renders that. Needs send_every = 1 (one tick
    per sample). The loop stops early if the stream ends or a tick does not come
    (the report's errors say which sample)."""
    if lockstep and send_every != 1:
        raise ValueError("lockstep: send_every must be 1 (one tick per sample)")
    if max_force is None:
        info = [d for d in client.world().haptic_devices
                if d.name == device or d.id == device]
        if not info:
            raise ValueError(f"no haptic device {device!r} in this world")
        max_force = info[0].max_force_n
    session = HapticSession(client.stub, device, network, lockstep)
    port = DevicePort(max_force, max_rate, control)
    model = LocalModel()
    dt = 1.0 / rate_hz
    n = int(round(seconds * rate_hz))
    rep = LoopReport()
    start = time.perf_counter()
    try:
        for k in range(n):
            deadline = start + k * dt
            now = time.perf_counter()
            if lockstep:
                pass  # Unpaced: the server's ticks are the clock.
            elif now < deadline:
                # Sleep, never spin: a spinning thread holds the GIL for the whole
                # switch interval and starves gRPC's sender and reader threads.
                time.sleep(deadline - now)
            elif now - deadline > dt:
                rep.late += 1
            x, v = adapter.read()
            if k % send_every == 0:
                seq = session.send(x, v, int(round((k + 1) * dt * 1e9)) if lockstep else None)
                if lockstep and not session.await_tick_of(seq):
                    break
            fb = session.take()
            if fb is not None:
                model = LocalModel.from_pb(fb.local_model)
                rep.last = fb
            if rep.last is not None and rep.last.contact:
                rep.contact_periods += 1
            f = port.render(model.force(x, v), v, dt)
            adapter.write(f)
            adapter.advance(dt)
            rep.max_force = max(rep.max_force, _norm(f))
            rep.forces.append(tuple(f))
            rep.periods += 1
        rep.achieved_hz = rep.periods / (time.perf_counter() - start)
    finally:
        session.close()
    if session.error is not None and not _cancelled(session.error):
        raise session.error
    rep.feedbacks = session.feedbacks
    rep.energy_min = port.energy_min
    rep.rtt_ns = list(session.rtt_ns)
    rep.errors = list(session.errors)
    return rep


def _cancelled(e) -> bool:
    code = getattr(e, "code", None)
    try:
        import grpc
        return callable(code) and code() == grpc.StatusCode.CANCELLED
    except Exception:
        return False


def percentile(xs: Sequence[float], p: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100.0 * len(s)))]
