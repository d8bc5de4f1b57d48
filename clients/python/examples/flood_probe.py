"""Connection-flood probe (docs/SERVER.md, Security): open N silent TCP connections to
an rtphys server, then try a new HTTP/2 connection every few seconds and report how long
it took until the server answered with its HTTP/2 SETTINGS frame. Standard library only.

    python clients/python/examples/flood_probe.py 127.0.0.1:50051 [--silent 200] [--for 15]
"""
import argparse
import socket
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])

ap = argparse.ArgumentParser()
ap.add_argument("addr")
ap.add_argument("--silent", type=int, default=200)
ap.add_argument("--for", dest="seconds", type=float, default=15.0)
a = ap.parse_args()
host, port = a.addr.rsplit(":", 1)
silent = [socket.create_connection((host, int(port))) for _ in range(a.silent)]
t0 = time.time()
served = False
while time.time() - t0 < a.seconds:
    s = socket.create_connection((host, int(port)))
    s.settimeout(3)
    try:
        s.sendall(PREFACE)
        if s.recv(64):
            served = True
            break
    except OSError:
        pass
    finally:
        s.close()
if served:
    print(f"served after {time.time() - t0:.1f} s with {a.silent} silent connections open")
else:
    print(f"LOCKED OUT for the whole {a.seconds:.0f} s probe ({a.silent} silent connections)")
