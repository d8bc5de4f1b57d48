#!/bin/bash
# lcp33 (issue 14): the face patches' cones ([lcp] friction = "patch") against the points' own
# (the default), docs/BENCHMARKS.md "lcp33". Usage (from the worktree, after
# `cargo build --release` and `cargo test --release --test primal_profile --no-run`):
#   benches/scripts/lcp33_measure.sh OUTDIR counts|callgrind|timing [MAIN_BIN]
# counts:    the pile20 harness per step (profile_pile20_primal; drop = steps 1-300, landing = 301-1,000,
#            settled = 3,001-3,300, 4,501-4,800, 6,001-6,300) and per solve on the same problems
#            (same_problems: "as is" on the patch trajectory's problems and "point cones", the same
#            problems with the patches taken off; "pass trace": the passes' records, both models).
# callgrind: instructions of Pipeline::step_with per step: box and 5-stack 1,500 steps (rtphys run),
#            the pile20 harness's settled window; with MAIN_BIN (main's rtphys, e.g. built from
#            `git archive f56f2e0 | tar -x -C DIR`, `touch` its sources, `CARGO_TARGET_DIR=... cargo build
#            --release --bin rtphys` in DIR) also main's box and 5-stack.
# timing:    µs/step beside MuJoCo 4.0 in the same minutes (bench --quick box,stack5,pile20 and the
#            settled pile20; bench_mujoco.py), point and patch alternated, three rounds.
set -u
O=$1; WHAT=$2; mkdir -p "$O"
W=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$W/target/release/rtphys
PP=$(ls -t "$W"/target/release/deps/primal_profile-* | grep -v '\.d$' | head -1)
ts() { echo "== $1 $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
case $WHAT in
counts)
  for f in point patch; do
    for sw in "0 300" "300 700" "3000 300" "4500 300" "6000 300"; do
      set -- $sw
      ts "profile $f settle=$1 window=$2"
      PROFILE_FRICTION=$f PROFILE_SETTLE=$1 PROFILE_WINDOW=$2 nice "$PP" --ignored --nocapture --test-threads=1 \
        profile_pile20_primal > "$O/profile_${f}_$1.txt" 2>&1
    done
    ts "pass trace $f"
    PROFILE_FRICTION=$f SAME_VARIANTS="as is,pass trace" nice "$PP" --ignored --nocapture --test-threads=1 same_problems \
      > "$O/trace_$f.txt" 2>&1
  done
  for s in 0 3000; do
    ts "same problems patch settle=$s"
    PROFILE_FRICTION=patch PROFILE_SETTLE=$s SAME_VARIANTS="as is,point cones" nice "$PP" --ignored --nocapture \
      --test-threads=1 same_problems > "$O/same_patch_$s.txt" 2>&1
  done
  ts end ;;
callgrind)
  for f in point patch; do
    for s in lcp_box lcp_stack5; do
      ts "callgrind $s $f"
      valgrind --tool=callgrind --toggle-collect='*Pipeline::step_with*' --callgrind-out-file="$O/cg_${s}_$f.out" \
        "$BIN" run "$W/config/scenes/$s.toml" --method lcp --lcp-solver primal --lcp-friction $f --steps 1500 \
        --out /dev/null > "$O/cg_${s}_$f.txt" 2>&1
    done
    ts "callgrind pile20 $f"
    PROFILE_FRICTION=$f valgrind --tool=callgrind --instr-atstart=no --toggle-collect='*Pipeline::step_with*' \
      --callgrind-out-file="$O/cg_pile20_$f.out" "$PP" --ignored --nocapture --test-threads=1 profile_pile20_primal \
      > "$O/cg_pile20_$f.txt" 2>&1
  done
  if [ -n "${3:-}" ]; then
    for s in lcp_box lcp_stack5; do
      ts "callgrind $s main"
      valgrind --tool=callgrind --toggle-collect='*Pipeline::step_with*' --callgrind-out-file="$O/cg_${s}_main.out" \
        "$3" run "$W/config/scenes/$s.toml" --method lcp --lcp-solver primal --steps 1500 --out /dev/null \
        > "$O/cg_${s}_main.txt" 2>&1
    done
  fi
  for f in "$O"/cg_*.out; do echo "$f $(callgrind_annotate "$f" | grep 'PROGRAM TOTALS')"; done
  ts end ;;
timing)
  MJ="/work/venv-mj/bin/python -u /work/shared/peers/bench_mujoco.py"
  for r in 1 2 3; do
    for f in point patch; do
      ts "round $r $f quick"
      "$BIN" bench --method lcp --lcp-solver primal --lcp-friction $f --scenes box,stack5,pile20 --no-quality --quick \
        > "$O/q_${f}_$r.json" 2> "$O/q_${f}_$r.err"
    done
    ts "round $r mujoco quick"
    PEERS_OUT="$O/mj_q_$r" $MJ --quick --scenes a_box,b_stack5,c_pile20 > "$O/mj_q_$r.txt" 2>&1
  done
  for f in point patch point patch; do
    ts "settled $f"
    "$BIN" bench --method lcp --lcp-solver primal --lcp-friction $f --scenes pile20 --no-quality \
      > "$O/s_${f}_$(date +%s).json" 2>> "$O/s_$f.err"
  done
  ts "mujoco settled"
  PEERS_OUT="$O/mj_s" $MJ --scenes c_pile20 > "$O/mj_s.txt" 2>&1
  ts end ;;
esac
