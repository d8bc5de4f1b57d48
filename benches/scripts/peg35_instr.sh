#!/bin/bash
# peg35 (issue 12 item 7): instructions of Pipeline::step_with per step, PEG and the standard
# LCP on the 5-stack (300 steps of 1 ms) and PEG on the 3D pour (seed 1, h = 1e-2, 200 steps),
# for two builds; the 5-stack's CSVs compared byte for byte (docs/BENCHMARKS.md, peg35).
#   benches/scripts/peg35_instr.sh OUT RTPHYS_BEFORE TOOL_BEFORE RTPHYS_AFTER TOOL_AFTER
# TOOL_*: the survey tool of the same build (`cargo test --release --no-run --test
# peg_lcp_survey`, the binary under target/release/deps copied out).
set -e
OUT=${1:?out dir}; mkdir -p "$OUT"
SCENE=$(dirname "$0")/../../config/scenes/lcp_stack5.toml
CG="valgrind --tool=callgrind --toggle-collect=*Pipeline::step_with*"
total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/{print $1}'; }
wrow() { callgrind_annotate "$1" 2>/dev/null | awk '/delassus::w_row/{print $1}'; }
for tag in before after; do
  if [ $tag = before ]; then R=$2; T=$3; else R=$4; T=$5; fi
  for m in peg lcp; do
    $CG --callgrind-out-file="$OUT/$tag.$m.cg" "$R" run "$SCENE" --method $m --steps 300 \
      --out "$OUT/$tag.$m.csv" > "$OUT/$tag.$m.log" 2>&1
    echo "$tag stack5 $m: $(total "$OUT/$tag.$m.cg") Ir (w_row $(wrow "$OUT/$tag.$m.cg"))"
  done
  PEG_SEEDS=1 PEG_H=0.01 $CG --callgrind-out-file="$OUT/$tag.pour3d.cg" "$T" --ignored --nocapture \
    --exact pour_3d_counters > "$OUT/$tag.pour3d.log" 2>&1
  echo "$tag pour3d s1 h=1e-2 peg: $(total "$OUT/$tag.pour3d.cg") Ir (w_row $(wrow "$OUT/$tag.pour3d.cg"))"
done
for m in peg lcp; do
  cmp "$OUT/before.$m.csv" "$OUT/after.$m.csv" && echo "stack5 $m: CSV identical"
done
