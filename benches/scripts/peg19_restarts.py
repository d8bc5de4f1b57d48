"""(peg19, item 1) Lemke from many starting complementary bases: the feasible point's active set
(peg19_warm_lemke.py) with each member randomly dropped/kept, and random bases.  A solution found
is checked on the dumped (M, q).  Usage: python peg19_restarts.py FILE ZSTAR.npy [tries=40] [seed=1]"""
import sys
import time

import numpy as np

from peg19_lib import Peg
from peg19_warm_lemke import lemke_from, repair

P = Peg(sys.argv[1])
zs = np.load(sys.argv[2])
tries = int(sys.argv[3]) if len(sys.argv) > 3 else 40
rng = np.random.default_rng(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
order = np.argsort(-zs)
best = np.inf
t0 = time.time()
for t in range(tries):
    if t % 2 == 0:
        bz = (zs > 1e-9) & (rng.random(P.n) < 0.7)
    else:
        bz = rng.random(P.n) < 0.2
    sol, st, piv = lemke_from(P.M, P.q, repair(P.M, bz, order if t % 2 == 0 else None))
    res = P.residual(sol)[0] if sol is not None else np.inf
    best = min(best, res)
    print('try %d (%s): %s after %d pivots%s' % (t, 'z* subset' if t % 2 == 0 else 'random', st, piv,
          '' if sol is None else ', residual %.3e |z|inf %.4g' % (res, np.abs(sol).max())), flush=True)
    if sol is not None and res < 1e-8:
        np.save(sys.argv[1].split('/')[-1] + '.lemke_sol.npy', sol)
        break
print('best residual %.3e, %.0fs' % (best, time.time() - t0))
