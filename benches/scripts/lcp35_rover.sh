#!/bin/bash
# lcp35 (issue 14): the driven rover's primal solves — the same problems under the DoF islands'
# line searches and radii options, its counters and checksum per window, and its instructions.
# docs/BENCHMARKS.md "lcp35". Usage (from the worktree, after `cargo test --release --test
# primal_profile --no-run`):
#   benches/scripts/lcp35_rover.sh OUTDIR same ["as is,dof kinks,..."]   # same_problems_rover_primal
#   benches/scripts/lcp35_rover.sh OUTDIR profile                          # counters + checksum
#   benches/scripts/lcp35_rover.sh OUTDIR callgrind [NAME]                 # profile_rover_primal under callgrind
#   benches/scripts/lcp35_rover.sh OUTDIR scenes [NAME] [BIN]              # box, 5-stack, robots: step_with under callgrind
set -u
O=$1; MODE=${2:-same}; mkdir -p "$O"
W=$(cd "$(dirname "$0")/../.." && pwd)
cd "$W" || exit 1
T=$(ls -t target/release/deps/primal_profile-* 2>/dev/null | grep -v '\.d$' | head -1)
ts() { echo "== $1 $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$O/log.txt"; }
case $MODE in
  same)
    V=${3:-"as is,dof bracketed,dof breakpoints,dof radius newton,plain radii"}
    ts "same $V"
    SAME_VARIANTS="$V" "$T" --ignored --nocapture --test-threads=1 same_problems_rover > "$O/same.txt" 2>&1
    ;;
  profile)
    ts profile
    "$T" --ignored --nocapture --test-threads=1 profile_rover_primal > "$O/profile.txt" 2>&1
    ;;
  callgrind)
    N=${3:-rover}
    ts "callgrind $N"
    valgrind --tool=callgrind --instr-atstart=no --toggle-collect='*Pipeline::step_with*' \
      --callgrind-out-file="$O/cg_$N.out" "$T" --ignored --nocapture --test-threads=1 profile_rover_primal \
      > "$O/cg_$N.log" 2>&1
    callgrind_annotate --inclusive=yes "$O/cg_$N.out" > "$O/cg_$N.txt" 2>&1
    ;;
  scenes)
    N=${3:-now}; BIN=${4:-$W/target/release/rtphys}
    for s in box stack5; do
      ts "callgrind $s $N"
      valgrind --tool=callgrind --toggle-collect='*Pipeline::step_with*' --callgrind-out-file="$O/cg_${s}_$N.out" \
        "$BIN" bench --method lcp --lcp-solver primal --scenes $s --no-quality --quick --reps 5 --rep-secs 0.005 \
        --out "$O/cg_${s}_$N.json" > /dev/null 2> "$O/cg_${s}_$N.err"
      callgrind_annotate --inclusive=yes "$O/cg_${s}_$N.out" > "$O/cg_${s}_$N.txt" 2>&1
    done
    ;;
esac
ts end
