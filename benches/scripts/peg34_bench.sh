#!/bin/bash
# peg34 (issue 12 item 7): PEG and the standard LCP on the bench's 5-stack and 20-pile, then
# MuJoCo 4.0 on its mirrors, in the same minutes (docs/BENCHMARKS.md, peg34).
#   benches/scripts/peg34_bench.sh RTPHYS OUT_DIR
set -e
RTPHYS=${1:?rtphys binary}; OUT=${2:?output dir}
mkdir -p "$OUT"
uptime
for m in peg lcp; do
  "$RTPHYS" bench --method $m --scenes stack5,pile20 --no-quality --out "$OUT/bench_$m.json" > "$OUT/bench_$m.txt" 2>&1 || true
  echo "$m $(date -u)"; uptime
done
PEERS_OUT="$OUT/mj" /work/venv-mj/bin/python /work/shared/peers/bench_mujoco.py --scenes b_stack5,c_pile20 > "$OUT/mj.txt" 2>&1
echo "mj $(date -u)"; uptime
