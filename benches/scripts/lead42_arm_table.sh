#!/bin/bash
# The arm on the table timed with two builds (A, B) under penalty and LCP primal,
# beside MuJoCo 4.0 Newton's d_arm_table, in the same minutes (docs/BENCHMARKS.md,
# "Session 42 (lead)"). Usage: benches/scripts/lead42_arm_table.sh OUTDIR BIN_A BIN_B [ROUNDS]
set -e
O=$1; A=$2; B=$3; R=${4:-2}
mkdir -p "$O"
MJ="/work/venv-mj/bin/python -u /work/shared/peers/bench_mujoco.py"
for r in $(seq 1 "$R"); do
  for v in A B; do
    BIN=${!v}
    echo "$(date -u +%T) round $r $v $(cut -d' ' -f1 /proc/loadavg)"
    "$BIN" bench robots --method penalty --scenes arm_table --out "$O/pen_${v}_$r.json" > /dev/null 2>&1
    "$BIN" bench robots --method lcp --lcp-solver primal --scenes arm_table --out "$O/lcp_${v}_$r.json" > /dev/null 2>&1
  done
  echo "$(date -u +%T) round $r mujoco $(cut -d' ' -f1 /proc/loadavg)"
  PEERS_OUT="$O/mj_$r" $MJ --quick --scenes d_arm_table > "$O/mj_$r.txt" 2>&1
done
