"""(peg18; docs/EXPERIMENTS.md) Usage: python jam_check.py FILE MODE [time_limit_s] [Z].
Is a dumped PEG LCP (format in src/pipeline/lcp/peg_dump.rs) jammed: is there an impulse that
leaves every constraint's largest predicted gap >= 0 (every U row's gap, and for an I/X set
max over its members)?  And the least uniform violation t (scaled units, as the LCP's rows)
for which one exists: minimize t subject to  max_{j in set} g_j(z) >= -t  for every set.

Why not the plain LP {z >= 0, M z + q >= 0}: PEG's slack columns c enter the primary and
slack rows only through the nonnegative blocks E_I1, E_I2 (eqs. (45)-(46)), so a large c
satisfies every I/X row; that LP is feasible on every dump.  The slacks are eliminated here
(c_s is the running maximum, peg_pgs.rs) and a set holds when ANY member's gap is >= -t:
a disjunction, one binary per member (scipy's HiGHS MILP), or an LP when every set is held by
its primary alone (mode 'primary': an upper bound on the least t).

MODE: plain   the LP above (all rows, slacks free): feasible on every dump
      kin     p free in sign, normal columns only (peg10's kinematic_jam.py: any motion)
      push    p >= 0 on the normal columns (frictionless impulses)
      fric    p >= 0, beta >= 0 on the friction columns, sum beta <= mu p (the sigma rows)
      primary as fric, each set held by its primary only (an LP)
Impulses bounded |z| <= Z (default 1e2 max(1, |q|_inf); a larger Z makes the big-M rows so loose that
HiGHS accepts binaries 1e-6 from integral: the printed check of the sets at the returned z is the
verdict, not the status)."""
import numpy as np, sys, time, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peglib import load, chains_of
from scipy.optimize import milp, LinearConstraint, Bounds
from scipy.sparse import lil_matrix, csr_matrix

f = sys.argv[1]; mode = sys.argv[2]
tl = float(sys.argv[3]) if len(sys.argv) > 3 else 120
M, q, nf, k = load(f); n = len(q); ic = nf * (k + 2); ns = n - ic
if mode == 'plain':
    # the LP the slacks make trivial: least t with M z + q + t >= 0, z >= 0
    from scipy.optimize import linprog
    t0 = time.time()
    r = linprog(np.r_[np.zeros(n), 1.0], A_ub=-np.hstack([M, np.ones((n, 1))]), b_ub=q,
                bounds=[(0, None)] * (n + 1), method='highs')
    print(f.split('/')[-1], 'n', n, 'mode plain status', r.status, 'least t', r.fun,
          '|z|inf %.4g' % np.abs(r.x[:n]).max(), '%.1fs' % (time.time() - t0))
    sys.exit(0)
Z = float(sys.argv[4]) if len(sys.argv) > 4 else 1e2 * max(1.0, np.abs(q).max())
own = chains_of(M, nf, k)
fric = mode in ('fric', 'primary')
nz = nf * (k + 1) if fric else nf          # columns: p (and beta)
# Member gaps a + B z (scaled as the primary's row), as kinematic_jam.py.
mem = []
for f_ in range(nf):
    a0 = q[f_]; B0 = M[f_, :nz]
    lst = [(a0, B0)]
    if mode != 'primary':
        for s in own.get(f_, []):
            wb = M[ic + s, ic + s]
            lst.append((a0 - q[ic + s] / wb, B0 - M[ic + s, :nz] / wb))
    mem.append(lst)
nb = sum(len(l) for l in mem)
binary = mode != 'primary'
nv = nz + (nb if binary else 0) + 1
A = lil_matrix((nb + (nf if binary else 0) + (nf if fric else 0), nv)); lo = []; hi = []
row = 0; j = nz
for f_, lst in enumerate(mem):
    if binary:
        A[row, j:j + len(lst)] = 1; lo.append(1); hi.append(np.inf); row += 1
    for (a, B) in lst:
        # a + B z + t >= -BIG (1 - b)
        A[row, :nz] = B; A[row, nv - 1] = 1
        if binary:
            # the member's own big-M: how far below 0 its gap can go in the box
            lo_g = a + (np.minimum(B, 0).sum() * Z if mode != 'kin' else -np.abs(B).sum() * Z)
            big = max(0.0, -lo_g) + 1.0
            A[row, j] = -big; lo.append(-big - a)
        else:
            lo.append(-a)
        hi.append(np.inf); row += 1; j += 1
if fric:
    # the sigma rows' cone: mu p - sum beta >= 0 (M's sigma row over p and beta)
    for f_ in range(nf):
        r = nf * (k + 1) + f_
        A[row, :nz] = M[r, :nz]; lo.append(0.0); hi.append(np.inf); row += 1
A = csr_matrix(A)
c = np.zeros(nv); c[-1] = 1
integ = np.zeros(nv)
if binary:
    integ[nz:nz + nb] = 1
zlo = -Z if mode == 'kin' else 0.0
lb = np.r_[np.full(nz, zlo), np.zeros(nv - nz - 1), 0]
ub = np.r_[np.full(nz, Z), np.ones(nv - nz - 1), np.inf]
t0 = time.time()
r = milp(c, constraints=[LinearConstraint(A, lo, hi)], integrality=integ, bounds=Bounds(lb, ub),
         options={'time_limit': tl, 'disp': False})
bound = getattr(r, 'mip_dual_bound', None)
print(f.split('/')[-1], 'n', n, 'nf', nf, 'k', k, 'slacks', ns, 'members', nb, 'mode', mode,
      'status', r.status, (r.message or '').split('.')[0], 'least t', r.fun, 'dual bound', bound,
      '|q|inf %.3g' % np.abs(q).max(), '%.1fs' % (time.time() - t0))
if r.x is not None:
    z = r.x[:nz]
    # Self-check of the member expressions: at z, each primary row's w with the slack chain's
    # least c (forward substitution, c_s >= 0, its row >= 0, c_s ⊥ it) is the set's largest gap.
    zz = np.zeros(n); zz[:nz] = z; dev = 0.0
    for f_, ch in own.items():
        cs = {}
        for s in ch:
            rr = ic + s
            base = q[rr] + M[rr, :nz] @ zz[:nz] + sum(M[rr, ic + t] * cs[t] for t in cs)
            cs[s] = max(0.0, -base / M[rr, rr])
        wp = q[f_] + M[f_, :nz] @ zz[:nz] + sum(M[f_, ic + t] * cs[t] for t in cs)
        if mode != 'primary':
            dev = max(dev, abs(wp - max(a + B @ z for (a, B) in mem[f_])))
    print('  self-check: max |w_primary(z, chain c) - largest member gap| = %.2e' % dev)
    gaps = np.array([max(a + B @ z for (a, B) in lst) for lst in mem])
    print('  sets violated by > 1e-9: %d of %d; most violated %.4g; |z|inf %.4g; sets violated at z = 0: %d'
          % ((gaps < -1e-9).sum(), nf, gaps.min(), np.abs(z).max(),
             sum(1 for lst in mem if max(a for (a, B) in lst) < -1e-9)))
