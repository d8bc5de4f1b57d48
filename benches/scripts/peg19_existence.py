"""(peg19; docs/EXPERIMENTS.md, branch `peg19`, item 2) Does a dumped PEG LCP have a complementary
solution with |p|, |beta| <= Z?  The eliminated LCP (peg19_lib.py) as an MILP (scipy's HiGHS):
  member j of set f:  gap_j(x) >= -L_j (1 - y_j),  sum_j y_j >= 1     (y_j: "member j is open")
                      gap_j(x) <=  U_j (1 - u_f),  p_f <= Z u_f       (u_f = 0: p_f = 0)
  beta row i:         0 <= w_i <= W_i (1 - v_i),   beta_i <= Z v_i
  sigma row f:        0 <= mu p_f - sum beta <= mu Z (1 - s_f),  sigma_f <= S s_f
with L, U, W the rows' bounds over the box.  With u_f = 1 every member is <= 0 and one is >= 0:
max_j gap_j = 0, p_f's complementarity; with u_f = 0, p_f = 0 and a member is open.  A point found
is completed (slacks by the chains, peg19_lib.Peg.complete) and checked on the dumped (M, q): the
printed residual is the verdict.  'infeasible' proves no solution inside the box (not beyond it).
The rows over x (members' B and the beta rows' part over x) have rank r of a few times 6 (the
island's moving bodies; 9 on n340): they are written over y = V_r^T x (r free columns, r equality
rows; singular values below 1e-8 of the largest dropped, their error printed), which makes every
row short; the check on (M, q) is unaffected.
Feasibility only (no objective); PEG19_DISP=1 prints HiGHS's log.  Checked on the committed
tests/data/peg_lcp/2d_peg_lcp_056_n56.bin (no solution, peg9: infeasible) and _005_n69.bin (a
solution, ||z||_inf 130) at Z = 1e4.
Usage: python peg19_existence.py FILE [Z=200] [time_limit_s=600] [frictionless=0]
(frictionless=1: beta = sigma = 0 and the friction rows dropped, a different LCP, for contrast)."""
import os
import sys
import time

import numpy as np
from scipy.optimize import milp, LinearConstraint, Bounds
from scipy.sparse import lil_matrix, csr_matrix

from peg19_lib import Peg, gap_rows_factor

f = sys.argv[1]
Z = float(sys.argv[2]) if len(sys.argv) > 2 else 200.0
tl = float(sys.argv[3]) if len(sys.argv) > 3 else 600.0
nofric = len(sys.argv) > 4 and sys.argv[4] == '1'
P = Peg(f)
nf, k, M, q = P.nf, P.k, P.M, P.q
nsig = 0 if nofric else nf
nb = sum(len(l) for l in P.members)
nbeta = 0 if nofric else nf * k
# The rows over x through their rank-r factor: B = (U s) V^T.
nx, Ball, US, Vr, r, sv = gap_rows_factor(P, nofric)   # x = p (| beta)
print('rows over x: %d, rank %d (s_r+1/s_1 %.2e), factor error %.2e'
      % (Ball.shape[0], r, sv[r] / sv[0] if r < len(sv) else 0.0, np.abs(US @ Vr - Ball).max()))
# columns: x (nx) | sigma (nsig) | yv (r) | y (nb) | u (nf) | v (nbeta) | s (nsig)
cyv = nx + nsig
cy = cyv + r; cu = cy + nb; cv = cu + nf; cs = cv + nbeta; nv = cs + nsig
fac = {}                                      # row of Ball -> its (dict over yv)
for i in range(Ball.shape[0]):
    fac[i] = {cyv + t: US[i, t] for t in range(r) if US[i, t] != 0}
ibeta0 = sum(len(l) for l in P.members)
S = 0.0
if not nofric:
    for i in range(nf, P.is_):
        S = max(S, abs(q[i]) + np.abs(M[i, :nx]).sum() * Z)
rows = []                                     # (dict col -> coef, lo, hi)
for t in range(r):                            # yv = V_r^T x
    d = {c: -Vr[t, c] for c in np.nonzero(Vr[t])[0]}
    d[cyv + t] = 1.0
    rows.append((d, 0.0, 0.0))
j = cy
for fi, lst in enumerate(P.members):
    rows.append(({cy + (j - cy) + t: 1.0 for t in range(len(lst))}, 1.0, np.inf))
    for (a, B) in lst:
        B = B[:nx]
        L = max(0.0, -(a + np.minimum(B, 0).sum() * Z))
        U = max(0.0, a + np.maximum(B, 0).sum() * Z)
        d = fac[j - cy]
        rows.append(({**d, j: -L}, -L - a, np.inf))              # gap >= -L (1 - y)
        rows.append(({**d, cu + fi: U}, -np.inf, U - a))         # gap <= U (1 - u)
        j += 1
    rows.append(({fi: 1.0, cu + fi: -Z}, -np.inf, 0.0))          # p <= Z u
if not nofric:
    for i in range(nf, P.is_):
        fi = (i - nf) // k
        d = dict(fac[ibeta0 + i - nf])
        d[nx + fi] = M[i, P.is_ + fi]                             # + sigma
        W = abs(q[i]) + np.abs(M[i, :nx]).sum() * Z + abs(M[i, P.is_ + fi]) * S
        rows.append((d, -q[i], np.inf))
        rows.append(({**d, cv + (i - nf): W}, -np.inf, W - q[i]))
        rows.append(({i: 1.0, cv + (i - nf): -Z}, -np.inf, 0.0))  # beta_i <= Z v_i
    for fi in range(nf):
        r = P.is_ + fi
        d = {c: M[r, c] for c in np.nonzero(M[r, :nx])[0]}
        mu_z = M[r, fi] * Z
        rows.append((d, -q[r], np.inf))
        rows.append(({**d, cs + fi: mu_z}, -np.inf, mu_z - q[r]))
        rows.append(({nx + fi: 1.0, cs + fi: -S}, -np.inf, 0.0))  # sigma <= S s
A = lil_matrix((len(rows), nv)); lo = []; hi = []
for r, (d, l_, h_) in enumerate(rows):
    for c, v in d.items():
        A[r, c] = v
    lo.append(l_); hi.append(h_)
c = np.zeros(nv)                                               # feasibility only
integ = np.r_[np.zeros(cy), np.ones(nv - cy)]
ybound = np.abs(Vr).sum(1) * Z
lb = np.r_[np.zeros(cyv), -ybound, np.zeros(nv - cy)]
ub = np.r_[np.full(nx, Z), np.full(nsig, S), ybound, np.ones(nv - cy)]
t0 = time.time()
res = milp(c, constraints=[LinearConstraint(csr_matrix(A), lo, hi)], integrality=integ,
           bounds=Bounds(lb, ub), options={'time_limit': tl, 'disp': bool(os.environ.get('PEG19_DISP'))})
print(f.split('/')[-1], 'n', P.n, 'nf', nf, 'members', nb, 'binaries', nv - cy,
      'Z', Z, 'frictionless' if nofric else 'with friction', 'status', res.status,
      (res.message or '').split('.')[0], '%.1fs' % (time.time() - t0))
if res.x is not None:
    x = np.zeros(P.is_); x[:nx] = res.x[:nx]
    sig = np.zeros(nf) if nofric else res.x[nx:nx + nf]
    z = P.complete(x[:nf], x[nf:], sig)
    if nofric:
        w = M @ z + q
        keep = np.r_[np.arange(nf), np.arange(P.ic, P.n)]
        print('  frictionless LCP residual %.3e' % np.abs(np.minimum(z, w))[keep].max())
    else:
        r_, zm, wm = P.residual(z)
        print('  residual on the dumped LCP %.3e (min z %.2e, min w %.2e), |z|inf %.4g, p > 0 on %d sets'
              % (r_, zm, wm, np.abs(z).max(), (z[:nf] > 1e-9).sum()))
    np.save(f.split('/')[-1] + ('.nofric' if nofric else '') + '.z.npy', z)
