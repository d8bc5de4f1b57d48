"""Shared by the peg19_*.py scripts (issue 12, branch `peg19`; run with /work/venv-mj/bin/python).
A PEG LCP dump (format in src/pipeline/lcp/peg_dump.rs, reader tests/data/peg_lcp/peglib.py) with
its slacks eliminated (peg_pgs.rs, "The constraint as one coordinate"): over the force columns
x = (p | beta) each set f has members j with gaps a_j + B_j x (scaled as the primary's row), and
0 <= p_f  _|_  max_j gap_j >= 0; the friction rows are the LCP's own rows over (p, beta, sigma).
`complete` rebuilds the slacks c from (p, beta, sigma) (forward substitution of each chain, c_s >= 0
_|_ its row) so that a candidate is checked on the dumped (M, q) itself, not on the elimination."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests',
                                'data', 'peg_lcp'))
from peglib import load, chains_of  # noqa: E402


class Peg:
    def __init__(self, path):
        self.M, self.q, self.nf, self.k = load(path)
        self.n = len(self.q)
        self.is_ = self.nf * (self.k + 1)      # p and beta
        self.ic = self.nf * (self.k + 2)       # first slack
        self.own = chains_of(self.M, self.nf, self.k)
        M, q, ic, nz = self.M, self.q, self.ic, self.is_
        self.members = []                      # per set: list of (a, B over x = (p | beta))
        for f in range(self.nf):
            lst = [(q[f], M[f, :nz].copy())]
            for s in self.own.get(f, []):
                wb = M[ic + s, ic + s]
                lst.append((q[f] - q[ic + s] / wb, M[f, :nz] - M[ic + s, :nz] / wb))
            self.members.append(lst)

    def complete(self, p, beta, sigma):
        """The full z with the chains' least slacks."""
        z = np.zeros(self.n)
        z[:self.nf] = p
        z[self.nf:self.is_] = beta
        z[self.is_:self.ic] = sigma
        for ch in self.own.values():
            for s in ch:
                r = self.ic + s
                base = self.q[r] + self.M[r] @ z - self.M[r, r] * z[r]
                z[r] = max(0.0, -base / self.M[r, r])
        return z

    def residual(self, z):
        """max |min(z, Mz + q)| on the dumped LCP, and the most negative z and w."""
        w = self.M @ z + self.q
        return np.abs(np.minimum(z, w)).max(), z.min(), w.min()

    def set_gaps(self, x):
        return np.array([max(a + B @ x for (a, B) in lst) for lst in self.members])


def gap_rows_factor(P, nofric):
    """The island's rows over x (the members' B and the beta rows' part over x), nx the
    columns of x, and their rank-r factor B = US Vr (singular values above 1e-8 of the
    largest): (nx, B, US, Vr, r, sv). The gaps depend on x only through y = Vr x."""
    nx = P.nf if nofric else P.is_
    rows = [Bj[:nx] for lst in P.members for (a, Bj) in lst]
    if not nofric:
        rows += [P.M[i, :nx] for i in range(P.nf, P.is_)]
    B = np.array(rows)
    Uf, sv, Vt = np.linalg.svd(B, full_matrices=False)
    r = int((sv > 1e-8 * sv[0]).sum())
    return nx, B, Uf[:, :r] * sv[:r], Vt[:r], r, sv
