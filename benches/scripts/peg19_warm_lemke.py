"""(peg19; docs/EXPERIMENTS.md, branch `peg19`, item 1) Lemke started from a feasible point's
active set.  Usage: python peg19_warm_lemke.py FILE [Z=2e3] [mode=push|fric] [time_limit_s=120]

1. A feasible point of the eliminated problem (every set's largest gap >= 0; jam_check.py's
   'push' (p >= 0, beta = 0) or 'fric' (p, beta >= 0, the sigma rows' cone) at t = 0; an MILP, one
   binary per member; objective: the least sum of x, so the point is small).
2. Its full z (sigma the least that makes the beta rows >= 0, slacks by the chains), and the
   complementary basis "z_i basic where z_i > w_i, else w_i".
3. Lemke from that basis: the covering column is -B e (B the basis' columns), so the artificial
   z0 = max(0, -min B^-1 q) makes every basic value >= 0; then complementary pivoting until z0
   leaves (a solution) or the entering column has no blocking row (a ray).  Dense tableau,
   pivot tolerance 1e-9, ties to the smallest index.  The guessed active set is singular (its
   columns span the W block's rank), so the basis keeps its largest part with cond(M_SS) < 1e10,
   greedy from the largest z* (`repair`).  The residual is max |min(z, Mz + q)| on the dumped (M, q).
4. Lemke cold (w basic), and a Fischer-Burmeister semismooth Newton from z* (`fb_newton`).
z* is saved to FILE.MODE.zstar.npy in the working folder (peg19_restarts.py, peg19_members.py)."""
import sys
import time

import numpy as np
from scipy.optimize import milp, LinearConstraint, Bounds
from scipy.sparse import lil_matrix, csr_matrix

from peg19_lib import Peg


def feasible_point(P, Z, mode, tl):
    nz = P.is_ if mode == 'fric' else P.nf
    nb = sum(len(l) for l in P.members)
    nv = nz + nb
    rows = nb + P.nf + (P.nf if mode == 'fric' else 0)
    A = lil_matrix((rows, nv)); lo = []; hi = []
    r = 0; j = nz
    for lst in P.members:
        A[r, j:j + len(lst)] = 1; lo.append(1); hi.append(np.inf); r += 1
        for (a, B) in lst:
            B = B[:nz]
            big = max(0.0, -(a + np.minimum(B, 0).sum() * Z)) + 1.0
            A[r, :nz] = B; A[r, j] = -big; lo.append(-big - a); hi.append(np.inf)
            r += 1; j += 1
    if mode == 'fric':
        for f in range(P.nf):
            rr = P.is_ + f
            A[r, :nz] = P.M[rr, :nz]; lo.append(0.0); hi.append(np.inf); r += 1
    c = np.r_[np.ones(nz), np.zeros(nb)]
    integ = np.r_[np.zeros(nz), np.ones(nb)]
    res = milp(c, constraints=[LinearConstraint(csr_matrix(A[:r]), lo, hi)], integrality=integ,
               bounds=Bounds(np.zeros(nv), np.r_[np.full(nz, Z), np.ones(nb)]),
               options={'time_limit': tl, 'disp': False})
    if res.x is None:
        return None, res
    x = np.zeros(P.is_); x[:nz] = res.x[:nz]
    return x, res


def repair(M, basic_z, order=None, cond_max=1e10):
    """The largest nonsingular part of the guessed active set S: B is nonsingular iff M_SS is.
    Greedy in `order` (default: index order), keeping i when M_SS stays well conditioned."""
    S = []
    for i in (order if order is not None else np.where(basic_z)[0]):
        if not basic_z[i]:
            continue
        T = S + [i]
        if np.linalg.cond(M[np.ix_(T, T)]) < cond_max:
            S = T
    out = np.zeros(len(basic_z), bool); out[S] = True
    return out


def lemke_from(M, q, basic_z, max_piv=20000, tol=1e-9):
    """Lemke with the starting complementary basis basic_z[i] (True: z_i basic, else w_i).
    Variables: w 0..n-1, z n..2n-1, z0 2n.  Returns (z, status, pivots)."""
    n = len(q)
    # w - M z - a z0 = q, columns [I | -M | a]
    A = np.hstack([np.eye(n), -M])
    basic_z = repair(M, basic_z)
    basis = np.array([n + i if basic_z[i] else i for i in range(n)])
    Bm = A[:, basis]
    a = -Bm @ np.ones(n)
    T = np.linalg.solve(Bm, np.hstack([A, a[:, None], q[:, None]]))   # tableau B^-1 [A | a | q]
    xb = T[:, -1]
    if xb.min() >= 0:
        z = np.zeros(n)
        for r, v in enumerate(basis):
            if v >= n:
                z[v - n] = xb[r]
        return z, 'solution at the start', 0
    # z0 enters; column B^-1 a = -e: x_B = xb + e z0, the most negative leaves
    r = int(np.argmin(xb))
    def pivot(r, col):
        T[r] /= T[r, col]
        for i in range(n):
            if i != r and T[i, col] != 0:
                T[i] -= T[i, col] * T[r]
    pivot(r, 2 * n); leaving = basis[r]; basis[r] = 2 * n
    for it in range(1, max_piv):
        enter = leaving + n if leaving < n else leaving - n
        col = T[:, enter]; rhs = T[:, -1]
        pos = col > tol
        if not pos.any():
            return None, 'ray', it
        ratios = np.where(pos, rhs / np.where(pos, col, 1), np.inf)
        m = ratios.min()
        cand = np.where(ratios <= m + 1e-12 * max(1, abs(m)))[0]
        # z0 leaves first when it ties
        zr = [c for c in cand if basis[c] == 2 * n]
        r = zr[0] if zr else cand[np.argmax(col[cand])]
        pivot(r, enter); leaving = basis[r]; basis[r] = enter
        if leaving == 2 * n:
            z = np.zeros(n)
            for rr, v in enumerate(basis):
                if n <= v < 2 * n:
                    z[v - n] = T[rr, -1]
            return z, 'solution', it
    return None, 'pivot limit', max_piv


def main():
    f = sys.argv[1]
    Z = float(sys.argv[2]) if len(sys.argv) > 2 else 2e3
    mode = sys.argv[3] if len(sys.argv) > 3 else 'push'
    tl = float(sys.argv[4]) if len(sys.argv) > 4 else 120
    P = Peg(f)
    t0 = time.time()
    x, res = feasible_point(P, Z, mode, tl)
    print(f.split('/')[-1], 'n', P.n, 'nf', P.nf, 'mode', mode, 'Z', Z, 'feasible point:',
          res.status, (res.message or '').split('.')[0], '%.1fs' % (time.time() - t0))
    if x is None:
        sys.exit(1)
    g = P.set_gaps(x)
    print('  sets below -1e-9 at x: %d; |x|inf %.4g' % ((g < -1e-9).sum(), np.abs(x).max()))
    # sigma: the least that makes the beta rows >= 0
    zz = np.zeros(P.n); zz[:P.is_] = x
    sig = np.zeros(P.nf)
    for fi in range(P.nf):
        rows = range(P.nf + fi * P.k, P.nf + (fi + 1) * P.k)
        sig[fi] = max(0.0, max(-(P.q[r] + P.M[r] @ zz) for r in rows))
    z = P.complete(x[:P.nf], x[P.nf:], sig)
    w = P.M @ z + P.q
    np.save(f.split('/')[-1] + '.%s.zstar.npy' % mode, z)
    print('  full z*: residual %.3e (min z %.2e, min w %.2e), z > 0 on %d of %d'
          % (*P.residual(z), (z > 1e-12).sum(), P.n))
    for name, bz in (('z_i > w_i', z > w), ('z_i > 1e-9', z > 1e-9)):
        order = np.argsort(-z)
        t0 = time.time()
        print('  guessed active set %d, nonsingular part %d' % (bz.sum(), repair(P.M, bz, order).sum()))
        sol, st, piv = lemke_from(P.M, P.q, repair(P.M, bz, order))
        msg = '  Lemke from the basis [%s]: %s after %d pivots, %.1fs' % (name, st, piv,
                                                                         time.time() - t0)
        if sol is not None:
            r, zm, wm = P.residual(sol)
            msg += '; residual %.3e (min z %.2e, min w %.2e), |z|inf %.4g' % (r, zm, wm,
                                                                             np.abs(sol).max())
        print(msg)
    t0 = time.time()
    sol, st, piv = lemke_from(P.M, P.q, np.zeros(P.n, bool))
    print('  Lemke from w basic (the cold start): %s after %d pivots, %.1fs' % (st, piv,
                                                                              time.time() - t0))
    t0 = time.time()
    zf, hist = fb_newton(P.M, P.q, z, 200)
    print('  FB Newton from z*: %d iterations, residual start %.3e best %.3e last %.3e, %.1fs'
          % (len(hist), hist[0], min(hist), hist[-1], time.time() - t0))


def fb_newton(M, q, z, iters=300):
    """Semismooth Newton on the Fischer-Burmeister function phi(a, b) = a + b - sqrt(a^2 + b^2)
    (phi = 0 iff a, b >= 0 and ab = 0), Armijo line search on Psi = |phi|^2 / 2, the gradient step
    when the Newton direction does not descend.  Returns (z, residual history)."""
    n = len(q)
    hist = []
    for it in range(iters):
        w = M @ z + q
        r = np.sqrt(z * z + w * w)
        phi = z + w - r
        psi = 0.5 * phi @ phi
        hist.append(np.abs(np.minimum(z, w)).max())
        if hist[-1] < 1e-10:
            break
        safe = r > 1e-14
        da = np.where(safe, 1 - z / np.where(safe, r, 1), 1 - 1 / np.sqrt(2))
        db = np.where(safe, 1 - w / np.where(safe, r, 1), 1 - 1 / np.sqrt(2))
        J = np.diag(da) + db[:, None] * M
        grad = J.T @ phi
        try:
            d = np.linalg.solve(J, -phi)
            if grad @ d > -1e-12 * np.linalg.norm(d) * np.linalg.norm(grad):
                d = -grad
        except np.linalg.LinAlgError:
            d = -grad
        t = 1.0
        while t > 1e-12:
            zn = z + t * d
            wn = M @ zn + q
            pn = zn + wn - np.sqrt(zn * zn + wn * wn)
            if 0.5 * pn @ pn <= psi + 1e-4 * t * (grad @ d):
                break
            t *= 0.5
        z = zn
    return z, hist


if __name__ == '__main__':
    main()
