"""(peg19, items 1-2) The member-fixed iteration: each set f held by one chosen member j(f) is an
ordinary LCP over (p | beta | sigma) (the slacks gone: row f is member j(f)'s gap, the friction
rows as dumped); a solution of it is one of the eliminated PEG LCP when every set with p_f > 0 has
no member above the chosen one (then max_j gap_j = gap_j(f) = 0), and a set with p_f = 0 has its
chosen member open.  Start: each set's largest member at a feasible point (peg19_warm_lemke.py's
z*, the feasible point's active members) or at z = 0; then, while some pushing set has a member
above its chosen one, switch to that set's largest member and solve again (Lemke from w basic,
peg19_warm_lemke.lemke_from).  A point is completed (slacks by the chains) and checked on the
dumped (M, q).  Usage: python peg19_members.py FILE [ZSTAR.npy|zero] [iterations=30]"""
import sys
import time

import numpy as np

from peg19_lib import Peg
from peg19_warm_lemke import lemke_from

P = Peg(sys.argv[1])
start = sys.argv[2] if len(sys.argv) > 2 else 'zero'
iters = int(sys.argv[3]) if len(sys.argv) > 3 else 30
nf, k, M, q, ic = P.nf, P.k, P.M, P.q, P.ic
x0 = np.zeros(P.is_) if start == 'zero' else np.load(start)[:P.is_]
choice = [int(np.argmax([a + B @ x0 for (a, B) in lst])) for lst in P.members]
seen = set()
t0 = time.time()
for it in range(iters):
    key = tuple(choice)
    if key in seen:
        print('iteration %d: the choice repeats an earlier one (a cycle)' % it)
        break
    seen.add(key)
    Mr = M[:ic, :ic].copy(); qr = q[:ic].copy()
    for f, lst in enumerate(P.members):
        a, B = lst[choice[f]]
        Mr[f, :] = 0.0; Mr[f, :P.is_] = B; qr[f] = a
    sol, st, piv = lemke_from(Mr, qr, np.zeros(ic, bool))
    if sol is None:
        print('iteration %d: the member-fixed LCP: Lemke %s after %d pivots' % (it, st, piv))
        break
    x = sol[:P.is_]
    gaps = [np.array([a + B @ x for (a, B) in lst]) for lst in P.members]
    bad = [f for f in range(nf) if sol[f] > 1e-9 and gaps[f].max() > gaps[f][choice[f]] + 1e-9]
    z = P.complete(sol[:nf], sol[nf:P.is_], sol[P.is_:ic])
    r, zm, wm = P.residual(z)
    print('iteration %d: Lemke %s (%d pivots); pushing sets %d, with a member above the chosen %d; '
          'residual on (M, q) %.3e, |z|inf %.4g' % (it, st, piv, (sol[:nf] > 1e-9).sum(), len(bad),
                                                    r, np.abs(z).max()), flush=True)
    if not bad:
        np.save(sys.argv[1].split('/')[-1] + '.members_sol.npy', z)
        break
    for f in bad:
        choice[f] = int(np.argmax(gaps[f]))
print('%.1fs' % (time.time() - t0))
