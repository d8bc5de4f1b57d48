"""(peg11; docs/EXPERIMENTS.md) Usage: python general_form.py FILE [time_limit_s] [OUT.gen] [Z].
003's general |C| > 1 form (eqs. (20)-(23)) of a dumped single-primary PEG LCP, as the engine
assembles it (src/pipeline/lcp/peg.rs, `assemble(.., general = true)`): z = (p | beta | sigma | c | lam),
one force lam_s per slack member s, and per member the row 0 <= 2 m - g_s _|_ lam_s >= 0 with m the set's
largest gap (the chain of eq. (20)); a primary's row becomes 2 m - g_primary = g_primary + 2 sum c.
The members' couplings to every row come from the Nystrom extension through the primaries' block
(as force_directions.py; exact when rank W = rank W_PP, checked below).
Prints whether the general LCP has a solution with ||z||_inf <= Z (MILP, scipy's HiGHS), with and without
friction (frictionless: beta, sigma removed), and writes the frictional general LCP to OUT.gen
(little-endian: b'PEGGEN01', u64 n, nf, k, ns, f64 q[n], f64 M[n*n] row-major) for the Lemke survey
(tests/peg_lcp_survey.rs, `general_form_of_failing_peg_lcps`)."""
import numpy as np, sys, os, time, struct
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peglib import load, chains_of
from scipy.optimize import milp, LinearConstraint, Bounds


def general(M, q, nf, k):
    n = len(q); ib, is_, ic = nf, nf + nf * k, nf * (k + 2); ns = n - ic
    own = chains_of(M, nf, k)
    prim_of = np.full(ns, -1)
    for f, ch in own.items():
        prim_of[ch] = f
    wb = np.array([M[ic + s, ic + s] for s in range(ns)])
    # member gaps (primary's scaling) over (p, beta) and constants
    Gm = np.zeros((ns, is_)); am = np.zeros(ns)
    for s in range(ns):
        f = prim_of[s]
        Gm[s] = M[f, :is_] - M[ic + s, :is_] / wb[s]
        am[s] = q[f] - q[ic + s] / wb[s]
    Wpp = M[:nf, :nf]; Wpp = (Wpp + Wpp.T) / 2; Pi = np.linalg.pinv(Wpp, rcond=1e-8)
    # coupling of every row (p rows and beta rows) to a member normal: X_r . Pi . Gm_s[p]
    Bp = Gm[:, :nf]                                   # member gaps' p columns
    Wrows = M[:is_, :nf] @ Pi @ Bp.T                  # p and beta rows against members
    Wmm = Bp @ Pi @ Bp.T                              # members against members
    nyst = np.abs(M[:nf, :nf] @ Pi @ M[:nf, :nf].T - Wpp).max()
    d = 1.0 / np.sqrt(np.maximum(np.diag(Wmm), 1e-300))  # lam scaled to its own unit diagonal
    N = ic + 2 * ns; G = np.zeros((N, N)); g = np.zeros(N)
    G[:ic + ns, :ic + ns] = M; g[:ic + ns] = q
    il = ic + ns
    G[:is_, il:] = Wrows * d
    for s in range(ns):
        f = prim_of[s]
        G[f, ic + s] = 2.0                             # primary row: g + 2 sum c
        G[ic + s, il:] = wb[s] * (Wrows[f] - Wmm[s]) * d      # slack row wb (g_f - g_s) + sum c
    for s in range(ns):
        f = prim_of[s]; ch = own[f]; r = il + s
        G[r, :is_] = (M[f, :is_] + M[ic + s, :is_] / wb[s]) * d[s]
        g[r] = (q[f] + q[ic + s] / wb[s]) * d[s]
        G[r, il:] = (2 * Wrows[f] - Wmm[s]) * d * d[s]
        for t in ch:
            G[r, ic + t] = 2.0 * d[s]
    return G, g, ns, nyst


def exists(G, g, Z, tl, keep):
    G = G[np.ix_(keep, keep)]; g = g[keep]; n = len(g)
    Wb = np.abs(g) + np.abs(G).sum(1) * Z
    cons = [LinearConstraint(np.hstack([G, np.zeros((n, n))]), -g, np.inf),
            LinearConstraint(np.hstack([G, np.diag(Wb)]), -np.inf, Wb - g),
            LinearConstraint(np.hstack([np.eye(n), -Z * np.eye(n)]), -np.inf, 0)]
    c = np.zeros(2 * n); c[:n] = 1e-6
    t = time.time()
    r = milp(c, constraints=cons, integrality=np.r_[np.zeros(n), np.ones(n)],
             bounds=Bounds(np.zeros(2 * n), np.r_[np.full(n, Z), np.ones(n)]),
             options={'time_limit': tl, 'disp': False})
    res = None
    if r.x is not None:
        z = r.x[:n]; res = np.abs(np.minimum(z, G @ z + g)).max()
    return r.status, time.time() - t, res


if __name__ == '__main__':
    f = sys.argv[1]; tl = float(sys.argv[2]) if len(sys.argv) > 2 else 60
    out = sys.argv[3] if len(sys.argv) > 3 else None; Z = float(sys.argv[4]) if len(sys.argv) > 4 else 1e4
    M, q, nf, k = load(f)
    G, g, ns, nyst = general(M, q, nf, k)
    N = len(g); ic = nf * (k + 2)
    if out:
        with open(out, 'wb') as o:
            o.write(b'PEGGEN01'); o.write(struct.pack('<4Q', N, nf, k, ns))
            o.write(g.astype('<f8').tobytes()); o.write(G.astype('<f8').tobytes())
    if tl <= 0:
        print(f.split('/')[-1], 'n', len(q), '-> general', N, 'members', ns, 'nystrom %.1e' % nyst)
        sys.exit(0)
    fr = np.r_[np.arange(nf), np.arange(ic, N)]   # frictionless: p, c, lam
    s0, t0, r0 = exists(G, g, Z, tl, fr)
    s1, t1, r1 = exists(G, g, Z, tl, np.arange(N))
    name = {0: 'yes', 2: 'no', 1: 'limit'}
    print(f.split('/')[-1], 'n', len(q), '-> general', N, 'members', ns, 'nystrom %.1e' % nyst,
          '| frictionless:', name.get(s0, s0), '%.1fs' % t0, '| friction:', name.get(s1, s1), '%.1fs' % t1)
