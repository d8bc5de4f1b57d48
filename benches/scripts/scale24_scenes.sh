#!/bin/bash
# scale24: the scaling scenes as rtphys TOML, plain (the default physics) and with the bench's
# `--rest-tol 1e-12` (`[penalty] rest_tol = 1e-12`, suffix _rest).
# scale24_scenes.sh BIN OUTDIR
B=$1; O=$2; mkdir -p $O
for s in grid_100 pile_100 grid_1000 pile_1000; do
  $B scene from-json benches/scenes/scaling/$s.json > $O/$s.toml
  sed 's/^\[penalty\]$/[penalty]\nrest_tol = 1e-12/' $O/$s.toml > $O/${s}_rest.toml
done
