#!/bin/bash
# scale24 timing: MuJoCo 4.0 and rapier beside rtphys main (f56f2e0) and this branch in the same minutes
# (scale23_bench.sh's order, without pile_1000: its settle is traced by tests/scale24_settle.rs; rapier
# only if target/peers/release/rapier_bench is built).
# scale24_bench.sh OUTDIR MAIN_BIN BRANCH_BIN SCENES_DIR (SCENES_DIR: bench_scaling.py --write-scenes)
O=$1; M=$2; B=$3; SC=$4; mkdir -p $O; cd $O
RAP=/work/wt-scale/target/peers/release/rapier_bench
MJ="/work/venv-mj/bin/python -u /work/shared/peers/bench_scaling.py"
ts() { echo "== $1 $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"; }
ts mj1; PEERS_OUT=$O/mj1 $MJ --scenes grid,pile --sizes 100 > mj1.txt 2>&1
ts main; $M bench --scenes grid_100,pile_100,grid_1000 --no-quality --rep-secs 0.2 --rest-tol 1e-12 > main.json 2> main.err
ts branch; $B bench --scenes grid_100,pile_100,grid_1000 --no-quality --rep-secs 0.2 --rest-tol 1e-12 > br.json 2> br.err
if [ -x $RAP ]; then ts rapier; $RAP $SC grid_100 grid_1000 pile_100 > rap.txt 2>&1; else ts rapier_not_built; fi
ts mj2; PEERS_OUT=$O/mj2 $MJ --scenes grid --sizes 1000 > mj2.txt 2>&1
ts branch2; $B bench --scenes grid_100,pile_100,grid_1000 --no-quality --rep-secs 0.2 --rest-tol 1e-12 > br2.json 2> br2.err
ts main2; $M bench --scenes grid_100,pile_100,grid_1000 --no-quality --rep-secs 0.2 --rest-tol 1e-12 > main2.json 2> main2.err
ts mj3; PEERS_OUT=$O/mj3 $MJ --scenes grid,pile --sizes 100 > mj3.txt 2>&1
ts end
