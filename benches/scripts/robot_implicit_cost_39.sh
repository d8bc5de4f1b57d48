#!/bin/bash
# Callgrind instructions per step (1,000 steps, collection toggled on the step) of
# arm_table and humanoid under penalty with the links' normal force explicit (the
# default) and with `[penalty] robot_implicit = true` (docs/BENCHMARKS.md,
# "Session 39 (lead)"). Usage: benches/scripts/robot_implicit_cost_39.sh [BIN]
set -e
BIN=${1:-target/release/rtphys}
OUT=$(mktemp -d)
for s in arm_table humanoid; do
  cp config/scenes/$s.toml $OUT/$s.toml
  sed 's/^\[penalty\]$/[penalty]\nrobot_implicit = true/' config/scenes/$s.toml > config/scenes/_ri_$s.toml
  for v in $s _ri_$s; do
    valgrind --tool=callgrind --toggle-collect='*step_with*' --callgrind-out-file=$OUT/$v.out \
      $BIN run config/scenes/$v.toml --steps 1000 --out /dev/null > /dev/null 2>&1
    echo "$v $(callgrind_annotate $OUT/$v.out 2>/dev/null | grep -m1 'PROGRAM TOTALS' | awk '{print $1}') Ir / 1000 steps"
  done
  rm config/scenes/_ri_$s.toml
done
