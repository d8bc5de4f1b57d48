#!/usr/bin/env bash
# The `rtphys-client` console script against a running default-scene server at ADDR
# (called by ci.sh with the venv's bin/ first on PATH): every command, its output
# checked; a bad scene path must give a gRPC error line and exit status 1.
#   bash cli_check.sh HOST:PORT
set -uo pipefail
cd "$(dirname "$0")/../.."
CLI=(rtphys-client --addr "$1")
out=$("${CLI[@]}" status) || exit 1
echo "$out" | sed 's/^/   /'
echo "$out" | grep -q "scene: .*default" || { echo "status: no scene line"; exit 1; }
"${CLI[@]}" pause | grep -q "paused" || { echo "pause: not paused"; exit 1; }
t0=$("${CLI[@]}" step 1 | awk '{print $2}') || exit 1
t1=$("${CLI[@]}" step 40 | awk '{print $2}') || exit 1
[ "$t1" = $((t0 + 40)) ] || { echo "step 40: tick $t0 -> $t1"; exit 1; }
echo "   step: tick $t0 -> $t1"
"${CLI[@]}" resume | grep -q "running" || { echo "resume: not running"; exit 1; }
out=$("${CLI[@]}" watch --rate 50 --count 5 --body red_box) || exit 1
echo "$out" | sed 's/^/   /'
[ "$(echo "$out" | grep -c '^tick .* red_box (')" = 5 ] || { echo "watch: expected 5 lines"; exit 1; }
"${CLI[@]}" load-scene config/scenes/default.toml | grep -q "^loaded " || exit 1
"${CLI[@]}" load-scene --inline config/scenes/default.toml --name cli-inline | grep -q "^loaded cli-inline" || exit 1
# Bad input: a clear gRPC error and exit status 1, not a traceback.
out=$("${CLI[@]}" load-scene no/such/scene.toml 2>&1) && { echo "load-scene of a missing file succeeded"; exit 1; }
echo "   $out"
echo "$out" | grep -qE "rtphys-client: load-scene: (NOT_FOUND|INVALID_ARGUMENT|PERMISSION_DENIED)" || exit 1
"${CLI[@]}" load-scene config/scenes/default.toml >/dev/null
