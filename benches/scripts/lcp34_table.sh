#!/bin/bash
# lcp34 (issue 14): the whole "Done when" table — µs/step of the LCP method beside MuJoCo 4.0 Newton
# (C loop) in the same minutes, with the primal solver's counts per step; the rover against its own
# penalty time. docs/BENCHMARKS.md "lcp34". Usage (from the worktree, after `cargo build --release`):
#   benches/scripts/lcp34_table.sh OUTDIR [ROUNDS] [BIN]      # then: python3 benches/scripts/lcp34_table.py OUTDIR
# Each round: rtphys --lcp-solver primal (box, 5-stack, 20-pile `--quick`; the settled 20-pile; the four
# robot cases), the robots under penalty, MuJoCo's quick set (box, 5-stack, settled 20-pile and its drop,
# arm free, arm on table, humanoid). Once, after the rounds: the scenes' own solver (Lemke) on box,
# 5-stack, quick 20-pile and the robots.
# callgrind: benches/scripts/lcp34_table.sh OUTDIR callgrind — instructions of Pipeline::step_with per
# step of each robot case under primal (bench robots --quick), split by callgrind_annotate --inclusive.
set -u
O=$1; R=${2:-2}; mkdir -p "$O"
W=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${3:-$W/target/release/rtphys}
MJ="/work/venv-mj/bin/python -u /work/shared/peers/bench_mujoco.py"
ts() { echo "== $1 $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$O/log.txt"; }
cd "$W" || exit 1
if [ "$R" = callgrind ]; then
  for c in arm_free arm_table diffdrive humanoid; do
    ts "callgrind $c"
    valgrind --tool=callgrind --toggle-collect='*Pipeline::step_with*' --callgrind-out-file="$O/cg_$c.out" \
      "$BIN" bench robots --method lcp --lcp-solver primal --scenes $c --no-quality --quick \
      --out "$O/cg_$c.json" > /dev/null 2> "$O/cg_$c.err"
    callgrind_annotate --inclusive=yes "$O/cg_$c.out" > "$O/cg_$c.txt" 2>&1
  done
  ts end; exit 0
fi
for r in $(seq 1 "$R"); do
  ts "round $r primal quick"
  "$BIN" bench --method lcp --lcp-solver primal --scenes box,stack5,pile20 --no-quality --quick \
    --out "$O/primal_q_$r.json" > /dev/null 2> "$O/primal_q_$r.err"
  ts "round $r primal settled pile20"
  "$BIN" bench --method lcp --lcp-solver primal --scenes pile20 --no-quality \
    --out "$O/primal_s_$r.json" > /dev/null 2> "$O/primal_s_$r.err"
  ts "round $r primal robots"
  "$BIN" bench robots --method lcp --lcp-solver primal \
    --out "$O/primal_robots_$r.json" > /dev/null 2> "$O/primal_robots_$r.err"
  ts "round $r penalty robots"
  "$BIN" bench robots --method penalty \
    --out "$O/penalty_robots_$r.json" > /dev/null 2> "$O/penalty_robots_$r.err"
  ts "round $r mujoco"
  PEERS_OUT="$O/mj_$r" $MJ --quick --scenes a_box,b_stack5,c_pile20,d_arm_free,d_arm_table,e_humanoid_dmc \
    > "$O/mj_$r.txt" 2>&1
done
ts "lemke quick"
"$BIN" bench --method lcp --lcp-solver lemke --scenes box,stack5,pile20 --no-quality --quick \
  --out "$O/lemke_q.json" > /dev/null 2> "$O/lemke_q.err"
ts "lemke robots"
"$BIN" bench robots --method lcp --lcp-solver lemke --out "$O/lemke_robots.json" > /dev/null 2> "$O/lemke_robots.err"
ts end
