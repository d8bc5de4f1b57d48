#!/bin/bash
# scale22 timing, second run: the branch's binary first in each round (main second), then pile_1000 once
O=$1; B=$2; mkdir -p $O; cd $O
RAP=/work/wt-scale/target/peers/release/rapier_bench
ts() { echo "== $1 $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"; }
ts mj1; PEERS_OUT=$O/mj1 /work/venv-mj/bin/python -u /work/shared/peers/bench_scaling.py --scenes grid,pile --sizes 100 > mj1.txt 2>&1
for r in 1 2; do
  ts "branch round $r"; $B bench --scenes grid_100,pile_100,grid_1000 --no-quality --rep-secs 0.2 --rest-tol 1e-12 > br.$r.json 2> br.$r.err
  ts "main round $r"; /tmp/s22/rtphys_main bench --scenes grid_100,pile_100,grid_1000 --no-quality --rep-secs 0.2 --rest-tol 1e-12 > main.$r.json 2> main.$r.err
  ts "rapier round $r"; $RAP /tmp/s22/scenes grid_100 grid_1000 pile_100 > rap.$r.txt 2>&1
  if [ $r = 1 ]; then ts mj2; PEERS_OUT=$O/mj2 /work/venv-mj/bin/python -u /work/shared/peers/bench_scaling.py --scenes grid --sizes 1000 > mj2.txt 2>&1; fi
done
ts mj3; PEERS_OUT=$O/mj3 /work/venv-mj/bin/python -u /work/shared/peers/bench_scaling.py --scenes grid,pile --sizes 100 > mj3.txt 2>&1
ts "pile_1000 branch"; $B bench --scenes pile_1000 --no-quality --rep-secs 0.2 --rest-tol 1e-12 > br.p1000.json 2> br.p1000.err
ts "pile_1000 rapier"; $RAP /tmp/s22/scenes pile_1000 > rap.p1000.txt 2>&1
ts "pile_1000 mujoco"; PEERS_OUT=$O/mj4 /work/venv-mj/bin/python -u /work/shared/peers/bench_scaling.py --scenes pile --sizes 1000 > mj4.txt 2>&1
ts end
