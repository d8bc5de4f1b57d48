"""Tokens and (mutual) TLS end to end with the Python client (grpcio), against a
server started with [auth] tokens and [tls] certificates (clients/python/ci.sh makes
them with openssl). Checks that every role gets what it may do and is refused what
it may not (PERMISSION_DENIED), that a missing or unknown token is UNAUTHENTICATED,
and that a plain-text client, or under mutual TLS a client without a certificate,
is not served. Exits non-zero on the first failed check.

    python security_check.py --addr 127.0.0.1:PORT --certs DIR --tokens-env
      (tokens from RTPHYS_CI_OBSERVER / _CONTROLLER / _ADMIN) [--mtls]
"""
import argparse
import os
import sys

import grpc

from rtphys_client import Client, pb, wrench

checks = 0


def ok(what):
    global checks
    checks += 1
    print(f"   ok   {what}")


def fail(what):
    print(f"   FAIL {what}")
    sys.exit(1)


def expect_code(what, code, fn):
    try:
        fn()
    except grpc.RpcError as e:
        if e.code() == code:
            return ok(f"{what}: {code.name} ({e.details()[:80]})")
        fail(f"{what}: expected {code.name}, got {e.code().name} {e.details()}")
    fail(f"{what}: expected {code.name}, got OK")


def expect_ok(what, fn):
    try:
        r = fn()
    except grpc.RpcError as e:
        fail(f"{what}: {e.code().name} {e.details()}")
    ok(what)
    return r


def expect_not_served(what, make):
    """Connecting fails, or the first call fails with UNAVAILABLE."""
    try:
        c = make()
    except (grpc.FutureTimeoutError, grpc.RpcError) as e:
        return ok(f"{what}: not served ({type(e).__name__})")
    try:
        c.world()
    except grpc.RpcError as e:
        if e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN):
            return ok(f"{what}: not served ({e.code().name})")
        fail(f"{what}: {e.code().name} {e.details()}")
    fail(f"{what}: served")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--addr", required=True)
    ap.add_argument("--certs", required=True)
    ap.add_argument("--mtls", action="store_true")
    a = ap.parse_args()
    d = a.certs
    ca, cert, key = f"{d}/ca.pem", f"{d}/cli.pem", f"{d}/cli.key"
    tok = {r: os.environ[f"RTPHYS_CI_{r.upper()}"] for r in ("observer", "controller", "admin")}
    host = "localhost"

    def client(token, with_cert=True, with_ca=True, timeout=5.0):
        return Client(
            a.addr,
            timeout=timeout,
            token=token,
            ca=ca if with_ca else None,
            cert=cert if (with_cert and a.mtls) else None,
            key=key if (with_cert and a.mtls) else None,
            server_name=host,
        )

    print(f"-- security checks against {a.addr} ({'mutual TLS' if a.mtls else 'TLS'} + tokens)")
    # No token / an unknown token.
    c = client("")
    expect_code("no token: GetWorld", grpc.StatusCode.UNAUTHENTICATED, c.world)
    c.close()
    c = client("not-a-configured-token-0000")
    expect_code("unknown token: GetState", grpc.StatusCode.UNAUTHENTICATED, c.state)
    c.close()

    # Observer: reads; may not command or administer.
    c = client(tok["observer"])
    expect_ok("observer: GetWorld", c.world)
    expect_ok("observer: GetState", c.state)
    expect_ok("observer: GetStats", c.stats)
    it = c.watch()
    expect_ok("observer: StreamState (one state)", lambda: next(iter(it)))
    it.cancel()
    expect_code("observer: ApplyWrench", grpc.StatusCode.PERMISSION_DENIED,
                lambda: c.apply_wrench(wrench("red_box", force=[1.0, 0.0, 0.0])))
    expect_code("observer: Control", grpc.StatusCode.PERMISSION_DENIED,
                lambda: c.control(name="observer").next_state())
    expect_code("observer: Reset", grpc.StatusCode.PERMISSION_DENIED, c.reset)
    c.close()

    # Controller: commands; may not administer.
    c = client(tok["controller"])
    expect_ok("controller: ApplyWrench", lambda: c.apply_wrench(wrench("red_box", force=[1.0, 0.0, 0.0])))
    expect_ok("controller: ClearWrench", lambda: c.clear_wrench())

    def control():
        s = c.control(name="ci-controller")
        s.next_state()
        seq = s.send([wrench("blue_box", force=[0.5, 0.0, 0.0])])
        s.wait_ack(seq)
        s.close()
    expect_ok("controller: Control stream, command acknowledged", control)
    expect_code("controller: Reset", grpc.StatusCode.PERMISSION_DENIED, c.reset)
    expect_code("controller: LoadScene", grpc.StatusCode.PERMISSION_DENIED,
                lambda: c.load_scene(path="config/scenes/default.toml"))
    expect_code("controller: StartRecording", grpc.StatusCode.PERMISSION_DENIED,
                lambda: c.stub.StartRecording(pb.StartRecordingRequest(file="ci.log")))
    c.close()

    # Admin: everything.
    c = client(tok["admin"])
    expect_ok("admin: Reset", c.reset)
    expect_ok("admin: LoadScene (inside the scene roots)",
              lambda: c.load_scene(path="config/scenes/default.toml"))
    expect_code("admin: LoadScene outside the roots", grpc.StatusCode.INVALID_ARGUMENT,
                lambda: c.load_scene(path="/etc/passwd"))
    snap = expect_ok("admin: SaveSnapshot", c.save)
    expect_ok("admin: RestoreSnapshot", lambda: c.restore(snap.snapshot_id))
    c.close()

    # Transport: a client that does not trust the CA; under mutual TLS a client
    # without a certificate; a plain-text client.
    expect_not_served("plain-text client",
                      lambda: Client(a.addr, timeout=3.0, token=tok["admin"]))
    if a.mtls:
        expect_not_served("mutual TLS: client without a certificate",
                          lambda: client(tok["admin"], with_cert=False, timeout=3.0))
    print(f"security checks: {checks} passed")


if __name__ == "__main__":
    main()
