#!/bin/bash
# scale26: pile_100 and pile_1000 with sleeping on once settled (4 s), default transitions and
# `--solved-stick`, beside MuJoCo's pile_100 in the same minutes (`uptime` beside each).
# scale26_bench.sh BIN OUTDIR
B=$1; O=$2; mkdir -p $O
for v in "" --solved-stick; do
  date -u; uptime
  $B bench --scenes pile_100,pile_1000 --sleep --rest-tol 1e-12 --settle 4 --no-quality $v \
    --out $O/bench${v:+_ss}.json > /dev/null
done
date -u; uptime
/work/venv-mj/bin/python /work/shared/peers/bench_scaling.py --scenes pile --sizes 100
date -u; uptime
