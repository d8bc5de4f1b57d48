#!/bin/bash
# scale24 task 1: where a step's instructions go (callgrind, one dump per step; scale22's scripts,
# dumps under /tmp/s22/d/TAG). scale24_profile.sh BIN SCENES_DIR TAGPREFIX
# grid_100 settled: steps 301-340; pile_100 settled: steps 3001-3100; pile_1000 at 3 s: steps 3001-3003.
B=$1; S=$2; T=$3
cd "$(dirname "$0")"
python3 scale22_cg_per_step.py $B $S/grid_100_rest.toml ${T}_grid100 300 340
python3 scale22_cg_per_step.py $B $S/pile_100_rest.toml ${T}_pile100 3000 3100
