#!/bin/bash
# lcp34 (issue 14): `[lcp] split_memory` (the split held toward the last tick's loads) measured on the
# pile20 harness, docs/BENCHMARKS.md "lcp34". Usage (from the worktree, after `cargo build --release`
# and `cargo test --release --test primal_profile --no-run`):
#   benches/scripts/lcp34_split.sh OUTDIR counts|trace|callgrind [SIGMAS]
# counts:    profile_pile20_primal per step on each σ's own trajectory (drop = steps 1-300, landing =
#            301-1,000, settled = 3,001-3,300, 4,501-4,800, 6,001-6,300); SIGMAS default "0 1e-6 1e-5 1e-4".
# trace:     same_problems "as is,pass trace" on the settled window 3,001-3,300 (the first pass's radii
#            against the final ones, passes per island), per σ.
# callgrind: instructions of Pipeline::step_with per step over the settled window 3,001-3,300, per σ.
set -u
O=$1; WHAT=$2; SIGMAS=${3:-"0 1e-6 1e-5 1e-4"}; mkdir -p "$O"
W=$(cd "$(dirname "$0")/../.." && pwd)
PP=$(ls -t "$W"/target/release/deps/primal_profile-* | grep -v '\.d$' | head -1)
ts() { echo "== $1 $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$O/log.txt"; }
cd "$W" || exit 1
case $WHAT in
counts)
  for sw in "3000 300" "0 300" "300 700" "4500 300" "6000 300"; do
    set -- $sw
    for s in $SIGMAS; do
      ts "profile sigma=$s settle=$1 window=$2"
      PROFILE_SPLIT=$s PROFILE_SETTLE=$1 PROFILE_WINDOW=$2 nice "$PP" --ignored --nocapture --test-threads=1 \
        profile_pile20_primal > "$O/profile_${s}_$1.txt" 2>&1
      grep 'pile20 primal' "$O/profile_${s}_$1.txt" | tee -a "$O/log.txt"
    done
  done ;;
trace)
  for s in $SIGMAS; do
    ts "pass trace sigma=$s"
    PROFILE_SPLIT=$s SAME_VARIANTS="as is,pass trace" nice "$PP" --ignored --nocapture --test-threads=1 same_problems \
      > "$O/trace_$s.txt" 2>&1
  done ;;
callgrind)
  for s in $SIGMAS; do
    ts "callgrind sigma=$s"
    PROFILE_SPLIT=$s valgrind --tool=callgrind --instr-atstart=no --toggle-collect='*Pipeline::step_with*' \
      --callgrind-out-file="$O/cg_$s.out" "$PP" --ignored --nocapture --test-threads=1 profile_pile20_primal \
      > "$O/cg_$s.txt" 2>&1
    echo "$s $(callgrind_annotate "$O/cg_$s.out" | grep 'PROGRAM TOTALS')" | tee -a "$O/log.txt"
  done ;;
esac
ts end
