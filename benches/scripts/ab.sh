#!/usr/bin/env bash
# Interleaved before/after benchmark of two rtphys binaries in one session:
#   benches/scripts/ab.sh BEFORE_BIN AFTER_BIN OUT_DIR [ROUNDS]
# Per round and binary: the physics scenes (penalty), the robots, and the LCP scenes
# with PGS; JSON per run in OUT_DIR (see docs/BENCHMARKS.md).
set -euo pipefail
before=$1; after=$2; out=$3; rounds=${4:-2}
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for tag in before after; do
    bin=$before; [ "$tag" = after ] && bin=$after
    "$bin" bench --scenes box,stack5,pile20 --no-quality --out "$out/phys_${tag}_$round.json" > /dev/null
    "$bin" bench robots --out "$out/rob_${tag}_$round.json" > /dev/null
    "$bin" bench --method lcp --lcp-solver pgs --scenes box,stack5,pile20 --no-quality \
      --out "$out/lcp_${tag}_$round.json" > /dev/null
  done
done
echo "written to $out"
