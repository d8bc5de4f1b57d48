#!/usr/bin/env python3
"""Diagnosis of a dumped LCP island (RTPHYS_NEWTON_DUMP JSON; tests/data/newton/).

Reproduces the figures of docs/BENCHMARKS.md "LCP Newton: the resting pile's stall":
the spectrum of W (how many eigenvalues sit at the CFM, 1e-9 diag W), the part of q in
their span, and a proximal-point loop LCP(W + rho I, q - rho z_k), rho = 1e-2 max W_nn,
each subproblem solved by projected Gauss-Seidel, printing the natural-map residual of
the original problem (the one solver::newton stops on) after every outer iteration.

    python3 benches/scripts/newton_pile_diag.py tests/data/newton/pile20_rest_16pts.json 15

Needs numpy only. Row order per point: normal, then the two tangent rows; the friction
set is the k-gon of circumradius mu p_n (solver::newton's module doc).
"""
import json
import sys
import numpy as np
d = json.load(open(sys.argv[1]))
n = len(d["row_start"]) - 1
W = np.zeros((3 * n, 3 * n))
for i in range(n):
    for k in range(d["row_start"][i], d["row_start"][i + 1]):
        j = d["col"][k]
        W[3*i:3*i+3, 3*j:3*j+3] = np.array(d["w"][k]).reshape(3, 3)
q = np.array(d["q"])
print("n points", n, "rows", 3*n, "sym err", np.abs(W - W.T).max())
lam, V = np.linalg.eigh(0.5 * (W + W.T))
print("eigenvalues (ascending):", " ".join(f"{x:.3g}" for x in lam))
small = lam < 1e-6 * lam.max()
print("count below 1e-6 max:", small.sum(), "range", lam[small].min(), lam[small].max(), "next", lam[~small].min(), "max", lam.max())
Vs = V[:, small]
print("||q||inf", np.abs(q).max(), "||P_small q||inf", np.abs(Vs @ (Vs.T @ q)).max())

# --- proximal point: LCP(W + rho I, q - rho z_k), each subproblem by projected Gauss-Seidel
mu = np.array(d["mu"]); k = d["k"]
ang = 2 * np.pi * np.arange(k) / k
verts = np.stack([np.cos(ang), np.sin(ang)], 1)

def proj_poly(y, r):
    """Closest point of the k-gon of circumradius r to y (2-vector)."""
    if r <= 0:
        return np.zeros(2)
    P = r * verts
    inside = True
    for a in range(k):
        b = (a + 1) % k
        e = P[b] - P[a]
        nrm = np.array([e[1], -e[0]])
        if nrm @ (y - P[a]) > 0:
            inside = False
    if inside:
        return y
    best, bd = None, np.inf
    for a in range(k):
        b = (a + 1) % k
        e = P[b] - P[a]
        t = np.clip((y - P[a]) @ e / (e @ e), 0, 1)
        c = P[a] + t * e
        if np.sum((y - c) ** 2) < bd:
            best, bd = c, np.sum((y - c) ** 2)
    return best

def natural_map(Wm, qv, z):
    w = Wm @ z + qv
    F = np.zeros_like(z)
    for i in range(n):
        pn, ft = z[3*i], z[3*i+1:3*i+3]
        F[3*i] = pn - max(0.0, pn - w[3*i])
        F[3*i+1:3*i+3] = ft - proj_poly(ft - w[3*i+1:3*i+3], mu[i] * z[3*i])
    return F

def pgs(Wm, qv, z, sweeps, tol):
    z = z.copy()
    for s in range(sweeps):
        for i in range(n):
            r = slice(3*i, 3*i+3)
            w = Wm[r] @ z + qv[r]
            z[3*i] = max(0.0, z[3*i] - w[0] / Wm[3*i, 3*i])
            w = Wm[r] @ z + qv[r]
            dt = np.array([Wm[3*i+1, 3*i+1], Wm[3*i+2, 3*i+2]])
            z[3*i+1:3*i+3] = proj_poly(z[3*i+1:3*i+3] - w[1:] / dt, mu[i] * z[3*i])
        if s % 50 == 49 and np.abs(natural_map(Wm, qv, z)).max() <= tol:
            return z, s + 1
    return z, sweeps

z = np.array(d["guess"])
rho = 1e-2 * max(W[3*i, 3*i] for i in range(n))
Wr = W + rho * np.eye(3 * n)
print("rho", rho, "warm start ||F||inf", np.abs(natural_map(W, q, z)).max())
for it in range(int(sys.argv[2]) if len(sys.argv) > 2 else 20):
    z, sw = pgs(Wr, q - rho * z, z, 3000, 1e-11)
    print(f"outer {it+1}: sweeps {sw}, true ||F||inf {np.abs(natural_map(W, q, z)).max():.3e}")
