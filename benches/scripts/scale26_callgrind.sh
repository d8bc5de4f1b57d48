#!/bin/bash
# scale26: instructions per step (callgrind, --toggle-collect='*Pipeline::step_with*') of the
# default (key off) and `[penalty.friction] solved_stick = true` (suffix _ss), each window as the
# difference of two runs (`rtphys run S --steps A` and `--steps B`) over B − A steps.
# scale26_callgrind.sh BIN SCENES_DIR OUT   (SCENES_DIR: `rtphys scene from-json` of the scaling
# scenes with `[penalty] rest_tol = 1e-12` as *_rest.toml, `[penalty.friction] solved_stick = true`
# appended as *_rest_ss.toml; config/scenes/stack5.toml as stack5.toml / stack5_ss.toml)
B=$1; S=$2; O=$3; mkdir -p $O
ir() { # scene steps -> instructions collected
  valgrind --tool=callgrind --toggle-collect='*Pipeline::step_with*' --callgrind-out-file=$O/cg.$$ \
    $B run $1 --steps $2 > /dev/null 2> $O/err.$$
  callgrind_annotate $O/cg.$$ 2>/dev/null | awk '/PROGRAM TOTALS/{gsub(",","",$1); print $1; exit}'
  rm -f $O/cg.$$
}
win() { # tag scene a b (a = 0: no step, nothing collected)
  local x=0 y=$(ir $2 $4)
  [ $3 -gt 0 ] && x=$(ir $2 $3)
  echo "$1 $3..$4 $x $y $(python3 -c "print(f'{($y-$x)/($4-$3):.0f}')")" | tee -a $O/table.txt
}
for v in "" _ss; do
  win stack5$v $S/stack5$v.toml 0 1500
  win grid_100$v $S/grid_100_rest$v.toml 300 340
  win pile_100_drop$v $S/pile_100_rest$v.toml 300 400
  win pile_100_settled$v $S/pile_100_rest$v.toml 3000 3100
done
