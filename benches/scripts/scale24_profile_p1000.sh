#!/bin/bash
# scale24 task 1: pile_1000 at 3 s under callgrind (3,000 steps uninstrumented, then 3 dumped steps).
# scale24_profile_p1000.sh BIN SCENES_DIR TAG
B=$1; S=$2; T=$3
cd "$(dirname "$0")"
python3 scale22_cg_per_step.py $B $S/pile_1000_rest.toml ${T}_pile1000 3000 3003
