"""(peg19; docs/EXPERIMENTS.md, branch `peg19`, item 2) Does a dumped PEG LCP have a complementary
solution?  The eliminated LCP (peg19_lib.py) with SCIP's indicator and SOS1 constraints, so no
big-M and, with Z = inf, no bound on the impulses: 'infeasible' is then a proof that no solution
exists at all (up to SCIP's tolerances, 1e-6 feasibility by default, 1e-9 here).
  member j of set f:  y_j = 1  =>  gap_j(x) >= 0,     sum_j y_j >= 1
                      u_f = 1  =>  gap_j(x) <= 0  (every member),   u_f = 0  =>  p_f <= 0
  beta row i:         w_i = q_i + M_i (x, sigma) >= 0,  SOS1(beta_i, w_i)
  sigma row f:        w_f = mu p_f - sum beta >= 0,      SOS1(sigma_f, w_f)
The rows over x are written over y = V_r^T x (their rank r; peg19_existence.py).  A point found is
completed (slacks by the chains) and checked on the dumped (M, q).
Usage: python peg19_scip.py FILE [Z=inf] [time_limit_s=600] [frictionless=0]"""
import sys
import time

import numpy as np
from pyscipopt import Model, quicksum

from peg19_lib import Peg, gap_rows_factor

f = sys.argv[1]
Z = float(sys.argv[2]) if len(sys.argv) > 2 else float('inf')
tl = float(sys.argv[3]) if len(sys.argv) > 3 else 600.0
nofric = len(sys.argv) > 4 and sys.argv[4] == '1'
P = Peg(f)
nf, k, M, q = P.nf, P.k, P.M, P.q
nx, Ball, US, Vr, r, sv = gap_rows_factor(P, nofric)
m = Model()
m.hideOutput()
m.setParam('limits/time', tl)
m.setParam('numerics/feastol', 1e-9)
ub = None if np.isinf(Z) else Z
x = [m.addVar('x%d' % i, lb=0.0, ub=ub) for i in range(nx)]
yv = [m.addVar('yv%d' % t, lb=None, ub=None) for t in range(r)]
for t in range(r):
    m.addCons(yv[t] == quicksum(Vr[t, c] * x[c] for c in np.nonzero(Vr[t])[0]))


def row(i, const):
    return const + quicksum(US[i, t] * yv[t] for t in range(r))


ib = 0
for fi, lst in enumerate(P.members):
    u = m.addVar('u%d' % fi, vtype='B')
    ys = []
    for (a, B) in lst:
        y = m.addVar('y%d' % ib, vtype='B'); ys.append(y)
        g = m.addVar('g%d' % ib, lb=None, ub=None)
        m.addCons(g == row(ib, a))
        m.addConsIndicator(-g <= 0.0, binvar=y)             # y = 1  =>  gap >= 0
        m.addConsIndicator(g <= 0.0, binvar=u)              # u = 1  =>  gap <= 0
        ib += 1
    m.addCons(quicksum(ys) >= 1)
    m.addConsIndicator(x[fi] <= 0.0, binvar=u, activeone=False)   # u = 0  =>  p = 0
sig = []
if not nofric:
    sig = [m.addVar('s%d' % i, lb=0.0, ub=None) for i in range(nf)]
    nb = ib
    for i in range(nf, P.is_):
        fi = (i - nf) // k
        w = m.addVar('wb%d' % i, lb=0.0, ub=None)
        m.addCons(w == row(nb + i - nf, q[i]) + M[i, P.is_ + fi] * sig[fi])
        m.addConsSOS1([x[i], w])
    for fi in range(nf):
        rr = P.is_ + fi
        w = m.addVar('ws%d' % fi, lb=0.0, ub=None)
        m.addCons(w == q[rr] + quicksum(M[rr, c] * x[c] for c in np.nonzero(M[rr, :nx])[0]))
        m.addConsSOS1([sig[fi], w])
t0 = time.time()
m.optimize()
st = m.getStatus()
print(f.split('/')[-1], 'n', P.n, 'nf', nf, 'members', ib, 'rank', r, 'Z', Z,
      'frictionless' if nofric else 'with friction', 'SCIP status', st, '%.1fs' % (time.time() - t0),
      'nodes', m.getNNodes())
if m.getNSols() > 0:
    s = m.getBestSol()
    xx = np.zeros(P.is_); xx[:nx] = [m.getSolVal(s, v) for v in x]
    ss = np.zeros(nf) if nofric else np.array([m.getSolVal(s, v) for v in sig])
    z = P.complete(xx[:nf], xx[nf:], ss)
    if nofric:
        w = M @ z + q
        keep = np.r_[np.arange(nf), np.arange(P.ic, P.n)]
        print('  frictionless LCP residual %.3e, |z|inf %.4g' % (np.abs(np.minimum(z, w))[keep].max(),
                                                                np.abs(z).max()))
    else:
        r_, zm, wm = P.residual(z)
        print('  residual on the dumped LCP %.3e (min z %.2e, min w %.2e), |z|inf %.4g, p > 0 on %d sets'
              % (r_, zm, wm, np.abs(z).max(), (z[:nf] > 1e-9).sum()))
    np.save(f.split('/')[-1] + ('.nofric' if nofric else '') + '.scip.z.npy', z)
