"""`rtphys-client`: poke a running rtphys server from a shell.

    rtphys-client status                         # scene, mode, tick, RTF, timing
    rtphys-client pause | resume
    rtphys-client step 100                       # N ticks (the world pauses first if running)
    rtphys-client load-scene config/scenes/arm.toml [--inline]
    rtphys-client watch --rate 10 [--count 50] [--body red_box]

Connection options (before the command), as the examples take them:
--addr HOST:PORT (alias --target; default 127.0.0.1:50051 or RTPHYS_ADDR),
--token (default RTPHYS_TOKEN), --ca PEM (TLS), --cert/--key PEM (mutual TLS),
--server-name NAME (the name the certificate is checked against), --timeout S.
Errors from the server print their gRPC code and message; the exit status is 1.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import List, Optional, Sequence

import grpc

from . import Client, pb

_MODE = {pb.RUN_MODE_REALTIME: "realtime", pb.RUN_MODE_LOCKSTEP: "lockstep", pb.RUN_MODE_MAX: "max"}


def _mode(m: int) -> str:
    return _MODE.get(m, "unspecified")


def _status(c: Client, a: argparse.Namespace) -> None:
    w = c.world()
    s = c.stats()
    rows = [
        ("server", f"{c.addr} (rtphys {w.server_version})"),
        ("scene", f"{w.scene_name} (generation {w.world_generation})"),
        ("bodies", f"{len(w.bodies)}  joints {len(w.joints)}  haptic devices {len(w.haptic_devices)}"),
        ("method", f"{w.method} / {w.integrator}, dt {w.dt:g} s"),
        ("run", f"{_mode(s.mode)}{' (paused)' if s.paused else ''}, {s.rate_hz:g} Hz, "
                f"RTF target {s.realtime_factor_target:g} recent {s.realtime_factor_recent:.3f}"),
        ("tick", f"{s.tick}  sim_time {s.sim_time:.6f} s  uptime {s.uptime_s:.1f} s"),
        ("tick compute", f"p50 {s.tick_compute.p50_us:.1f} us  p99 {s.tick_compute.p99_us:.1f} us"),
        ("tick lateness", f"p50 {s.tick_lateness.p50_us:.1f} us  p99 {s.tick_lateness.p99_us:.1f} us"),
        ("overruns", f"{s.overruns}  states dropped {s.state_frames_dropped}  subscribers {s.subscribers}"),
    ]
    if s.fault:
        rows.append(("FAULT", s.fault))
    for k, v in rows:
        print(f"{k:>14}: {v}")


def _run_status(r: "pb.RunStatus") -> None:
    print(f"{_mode(r.mode)}{' paused' if r.paused else ' running'} tick {r.tick} sim_time {r.sim_time:.6f}")


def _step(c: Client, a: argparse.Namespace) -> None:
    r = c.step(a.n)
    print(f"tick {r.tick} sim_time {r.sim_time:.6f}")


def _load_scene(c: Client, a: argparse.Namespace) -> None:
    if a.inline:
        with open(a.file, encoding="utf-8") as f:
            w = c.load_scene(toml=f.read(), name=a.name or os.path.basename(a.file))
    else:
        w = c.load_scene(path=a.file, name=a.name)
    print(f"loaded {w.scene_name}: {len(w.bodies)} bodies, {len(w.joints)} joints, "
          f"generation {w.world_generation}")


def _watch(c: Client, a: argparse.Namespace) -> None:
    w = c.world()
    # `--rate` is states per simulated second: every round(1 / (dt rate))-th tick.
    decimation = max(1, round(1.0 / (w.dt * a.rate))) if a.rate > 0 else 1
    names = {b.id: b.name for b in w.bodies}
    stream = c.watch(decimation=decimation, fields=[pb.STATE_FIELD_POSE],
                     bodies=a.body or [], latest_only=True)
    n = 0
    try:
        for s in stream:
            poses = "  ".join(
                f"{names.get(b.id, b.id)} ({b.position[0]:+.4f} {b.position[1]:+.4f} {b.position[2]:+.4f})"
                for b in s.bodies
            )
            print(f"tick {s.tick} t {s.sim_time:.4f}{' paused' if s.paused else ''}  {poses}", flush=True)
            n += 1
            if a.count and n >= a.count:
                break
    finally:
        stream.cancel()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rtphys-client", description="Poke a running rtphys server.")
    p.add_argument("--addr", "--target", dest="addr",
                   default=os.environ.get("RTPHYS_ADDR", "127.0.0.1:50051"),
                   help="server address host:port (default: RTPHYS_ADDR or 127.0.0.1:50051)")
    p.add_argument("--token", default=None, help="bearer token (default: RTPHYS_TOKEN)")
    p.add_argument("--ca", default=None, help="PEM of the CA to trust: use TLS")
    p.add_argument("--cert", default=None, help="PEM of this client's certificate (mutual TLS)")
    p.add_argument("--key", default=None, help="PEM of this client's key (mutual TLS)")
    p.add_argument("--server-name", default=None, help="name the server certificate is checked against")
    p.add_argument("--timeout", type=float, default=10.0, help="connect timeout, s")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("status", help="scene, run mode, tick, real-time factor and timing")
    sub.add_parser("pause", help="pause the world")
    sub.add_parser("resume", help="resume the world")
    st = sub.add_parser("step", help="step N ticks (the world pauses first if running)")
    st.add_argument("n", type=int)
    ls = sub.add_parser("load-scene", help="load a scene: a path on the server host, or --inline")
    ls.add_argument("file")
    ls.add_argument("--inline", action="store_true", help="send this file's text instead of its path")
    ls.add_argument("--name", default="", help="name shown in WorldInfo")
    wa = sub.add_parser("watch", help="state stream, one line per state")
    wa.add_argument("--rate", type=float, default=10.0,
                    help="states per simulated second (default 10; 0 = every tick)")
    wa.add_argument("--count", type=int, default=0, help="stop after N states (default: until Ctrl-C)")
    wa.add_argument("--body", action="append", help="only this body (repeatable; default all)")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    a = parser().parse_args(argv)
    if a.command == "step" and a.n < 1:
        print("rtphys-client: step N needs N >= 1", file=sys.stderr)
        return 2
    if a.command == "watch" and (a.rate < 0 or not math.isfinite(a.rate)):
        print("rtphys-client: --rate must be a finite number >= 0", file=sys.stderr)
        return 2
    try:
        c = Client(a.addr, timeout=a.timeout, token=a.token, ca=a.ca, cert=a.cert,
                   key=a.key, server_name=a.server_name)
    except grpc.FutureTimeoutError:
        print(f"rtphys-client: no server at {a.addr} (waited {a.timeout:g} s)", file=sys.stderr)
        return 1
    try:
        if a.command == "status":
            _status(c, a)
        elif a.command == "pause":
            _run_status(c.pause())
        elif a.command == "resume":
            _run_status(c.resume())
        elif a.command == "step":
            _step(c, a)
        elif a.command == "load-scene":
            _load_scene(c, a)
        elif a.command == "watch":
            _watch(c, a)
    except grpc.RpcError as e:
        print(f"rtphys-client: {a.command}: {e.code().name}: {e.details()}", file=sys.stderr)
        return 1
    except (OSError, KeyboardInterrupt) as e:
        if isinstance(e, KeyboardInterrupt):
            return 130
        print(f"rtphys-client: {e}", file=sys.stderr)
        return 1
    finally:
        c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
