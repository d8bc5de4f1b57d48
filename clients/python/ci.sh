#!/usr/bin/env bash
# CI for the Python client (called by .ci/run after `cargo test --release`):
#   1. a venv under target/ with grpcio 1.85.1 (+ tools, health, reflection);
#   2. `pip install ./clients/python` as the README says (the build step generates
#      the stubs); the wheel built from it is checked for the stubs and the script;
#   3. `target/release/rtphys serve` started on a free loopback port;
#   4. every Python example (and the built Rust examples) run end to end, time-bounded,
#      the asyncio client (async_client.py) and the `rtphys-client` commands;
#   5. SIGTERM: the server must shut down gracefully;
#   6. a second server on the arm scene (config/scenes/arm.toml) for the robot
#      controller examples (arm_pd.py, and the Rust arm_pd when built);
#   7. a server on config/scenes/haptic_probe.toml for the haptic device loops
#      (haptic_device.py, and the Rust haptic_device when built), one on
#      config/scenes/haptic_push.toml for the Rust haptic_push when built, and
#      one on config/scenes/haptic_teleop.toml for haptic_teleop.py (and the
#      Rust haptic_teleop when built); every server through start_server;
#   8. servers with bearer tokens and TLS, then mutual TLS (certificates made with
#      openssl here): security_check.py runs the observer/controller/admin roles
#      through the Python client and checks refusals and successes.
# Exits non-zero on any failure. Loopback only.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
BIN="$ROOT/target/release/rtphys"
PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
WORK="$ROOT/target/py-ci"
VENV="$WORK/venv"
LOG="$WORK/server.log"
mkdir -p "$WORK"

if [ ! -x "$BIN" ]; then
    echo "== building rtphys (release)"
    cargo build --release --bin rtphys || exit 1
fi

# A fresh venv every run, and the client installed exactly as clients/README.md
# says: `pip install ./clients/python` (its build step generates the stubs from
# proto/ with grpcio-tools, a build requirement), then the examples' extras.
echo "== fresh venv ($PY) in $VENV; pip install ./clients/python"
rm -rf "$VENV" "$WORK/wheel"
"$PY" -m venv "$VENV" || exit 1
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
"${PIP[@]}" install ./clients/python || exit 1
"${PIP[@]}" install "./clients/python[examples]" || exit 1
# The wheel built from the same tree carries the generated stubs, the type marker
# and the console script (checked by listing it, not by a second install).
"${PIP[@]}" wheel --no-deps -w "$WORK/wheel" ./clients/python || exit 1
"$VENV/bin/python" - "$WORK"/wheel/rtphys_client-*.whl <<'PYEOF' || exit 1
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = ["rtphys/v1/sim_pb2.py", "rtphys/v1/sim_pb2.pyi", "rtphys/v1/sim_pb2_grpc.py",
        "rtphys_client/__init__.py", "rtphys_client/aio.py", "rtphys_client/cli.py",
        "rtphys_client/py.typed"]
missing = [n for n in need if n not in names]
eps = [n for n in names if n.endswith("entry_points.txt")]
ep = zipfile.ZipFile(sys.argv[1]).read(eps[0]).decode() if eps else ""
if missing or "rtphys-client = rtphys_client.cli:main" not in ep:
    sys.exit(f"wheel {sys.argv[1]}: missing {missing}, entry points {ep!r}")
print(f"wheel ok: {sys.argv[1].rsplit('/', 1)[-1]} ({len(names)} files)")
PYEOF

# listen_addr LOG PID: the address the server logs once listening (30 s at most;
# empty if it exits or never says so).
listen_addr() {
    local a=""
    for _ in $(seq 1 300); do
        a=$(sed -n 's/^rtphys listening on //p' "$1" | head -n1)
        [ -n "$a" ] && break
        kill -0 "$2" 2>/dev/null || break
        sleep 0.1
    done
    echo "$a"
}

passed=0; failed=0

# start_server NAME LOG SERVE-ARGS...: `rtphys serve --listen 127.0.0.1:0 ARGS` in the
# background; sets SPID and SADDR and returns 0 once it listens, else counts a
# failure, stops it and returns 1. stop_server: SIGTERM and wait.
start_server() {
    local name=$1 log=$2; shift 2
    echo "== $name server ($*)"
    "$BIN" serve --listen 127.0.0.1:0 "$@" >"$log" 2>&1 &
    SPID=$!
    trap 'kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null' EXIT
    SADDR=$(listen_addr "$log" "$SPID")
    if [ -z "$SADDR" ]; then
        echo "$name server did not start:"; cat "$log"; failed=$((failed + 1))
        stop_server
        return 1
    fi
    echo "$name server on $SADDR"
}
stop_server() {
    kill -TERM "$SPID" 2>/dev/null
    wait "$SPID" 2>/dev/null
    trap - EXIT
}

start_server default "$LOG" --scene config/scenes/default.toml || exit 1
SERVER=$SPID
ADDR=$SADDR
run() {  # run NAME TIMEOUT CMD...
    local name=$1 t=$2; shift 2
    echo "-- $name"
    if timeout "$t" "$@"; then
        passed=$((passed + 1)); echo "   ok"
    else
        failed=$((failed + 1)); echo "   FAILED: $name"
    fi
}

EX="$ROOT/clients/python/examples"
PYV="$VENV/bin/python"
run health_check.py 60 "$PYV" "$EX/health_check.py" --addr "$ADDR"
run push_box.py 60 "$PYV" "$EX/push_box.py" --addr "$ADDR"
run watch_state.py 60 "$PYV" "$EX/watch_state.py" --addr "$ADDR" --count 20 --decimation 50
run "latency_probe.py (lockstep)" 120 "$PYV" "$EX/latency_probe.py" --addr "$ADDR" --count 3000 --lockstep
run "latency_probe.py (realtime)" 120 "$PYV" "$EX/latency_probe.py" --addr "$ADDR" --count 1000
run lockstep_hil.py 120 "$PYV" "$EX/lockstep_hil.py" --addr "$ADDR" --ticks 500
run "async_client.py (grpc.aio)" 60 "$PYV" "$EX/async_client.py" --addr "$ADDR" --steps 25

# The console script: every command, with its output checked (cli_check.sh).
run "rtphys-client status/pause/step/resume/watch/load-scene" 120 env PATH="$VENV/bin:$PATH" bash "$ROOT/clients/python/cli_check.sh" "$ADDR"

# The Rust examples, when `cargo test --release` built them.
RX="$ROOT/target/release/examples"
if [ -x "$RX/push_box" ]; then
    run "rust push_box" 60 "$RX/push_box" "$ADDR"
    run "rust watch_state" 60 "$RX/watch_state" "$ADDR" 10 50
    run "rust latency_probe" 120 "$RX/latency_probe" "$ADDR" 3000 --lockstep
    run "rust lockstep_hil" 120 "$RX/lockstep_hil" "$ADDR" 500
fi

echo "-- graceful shutdown on SIGTERM"
kill -TERM "$SERVER"
ok=0
for _ in $(seq 1 100); do
    if ! kill -0 "$SERVER" 2>/dev/null; then ok=1; break; fi
    sleep 0.1
done
if [ $ok = 1 ] && wait "$SERVER"; then
    passed=$((passed + 1)); echo "   ok"
else
    failed=$((failed + 1)); echo "   FAILED: server did not exit cleanly on SIGTERM"; tail -20 "$LOG"
fi
trap - EXIT

if start_server robot "$WORK/server_arm.log" --scene config/scenes/arm.toml; then
    run "arm_pd.py (realtime 1 kHz)" 120 "$PYV" "$EX/arm_pd.py" --addr "$SADDR" --seconds 3
    run "arm_pd.py (lockstep)" 120 "$PYV" "$EX/arm_pd.py" --addr "$SADDR" --seconds 3 --lockstep
    if [ -x "$RX/arm_pd" ]; then
        run "rust arm_pd" 120 "$RX/arm_pd" "$SADDR" --seconds 3
    fi
    stop_server
fi

if start_server haptic "$WORK/server_haptic.log" --scene config/scenes/haptic_probe.toml; then
    run "haptic_device.py (1 kHz device loop)" 120 "$PYV" "$EX/haptic_device.py" --addr "$SADDR" --seconds 3
    if [ -x "$RX/haptic_device" ]; then
        run "rust haptic_device" 120 "$RX/haptic_device" "$SADDR" --seconds 3
    fi
    stop_server
fi

if [ -x "$RX/haptic_push" ] && start_server "haptic push" "$WORK/server_push.log" --scene config/scenes/haptic_push.toml; then
    run "rust haptic_push (6-DoF multi-rate tool pushing a box)" 120 "$RX/haptic_push" "$SADDR"
    stop_server
fi

if start_server teleop "$WORK/server_teleop.log" --scene config/scenes/haptic_teleop.toml; then
    run "haptic_teleop.py (the arm teleoperated by a 1 kHz device loop)" 120 "$PYV" "$EX/haptic_teleop.py" --addr "$SADDR"
    stop_server
fi
if [ -x "$RX/haptic_teleop" ] && start_server teleop "$WORK/server_teleop_rs.log" --scene config/scenes/haptic_teleop.toml; then
    run "rust haptic_teleop" 120 "$RX/haptic_teleop" "$SADDR"
    stop_server
fi

echo "== tokens + TLS / mutual TLS (certificates made with openssl now)"
TLSD="$WORK/tls"
rm -rf "$TLSD" && mkdir -p "$TLSD"
mkcerts() {
    cd "$TLSD" || return 1
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > srv.ext
    printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n' > cli.ext
    EC="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
    openssl req -x509 $EC -keyout ca.key -out ca.pem -days 2 -subj "/CN=rtphys ci CA" 2>/dev/null || return 1
    for n in srv cli; do
        cn=localhost; [ $n = cli ] && cn=ci-client
        openssl req $EC -keyout $n.key -out $n.csr -subj "/CN=$cn" 2>/dev/null || return 1
        openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $n.pem -days 2 -extfile $n.ext 2>/dev/null || return 1
    done
}
if ! command -v openssl >/dev/null 2>&1 || ! (mkcerts); then
    echo "   FAILED: openssl could not make the certificates"; failed=$((failed + 1))
else
    export RTPHYS_CI_OBSERVER="observer-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
    export RTPHYS_CI_CONTROLLER="controller-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
    export RTPHYS_CI_ADMIN="admin-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
    printf 'observer = ["%s"]\ncontroller = ["%s"]\nadmin = ["%s"]\n' \
        "$RTPHYS_CI_OBSERVER" "$RTPHYS_CI_CONTROLLER" "$RTPHYS_CI_ADMIN" > "$TLSD/tokens.toml"
    for variant in tls mtls; do
        CA_LINE=""
        [ $variant = mtls ] && CA_LINE="client_ca_file = \"$TLSD/ca.pem\""
        printf '[auth]\ntokens_file = "%s"\n[tls]\ncert_file = "%s"\nkey_file = "%s"\n%s\n' \
            "$TLSD/tokens.toml" "$TLSD/srv.pem" "$TLSD/srv.key" "$CA_LINE" > "$TLSD/server-$variant.toml"
        if start_server "$variant" "$WORK/server_$variant.log" --config "$TLSD/server-$variant.toml"; then
            M=""; [ $variant = mtls ] && M="--mtls"
            run "security_check.py ($variant + tokens)" 120 "$PYV" "$EX/security_check.py" --addr "$SADDR" --certs "$TLSD" $M
            stop_server
        fi
    done
fi

echo "python client: $passed passed, $failed failed"
[ "$failed" = 0 ]
