"""The dump reader (format in src/pipeline/lcp/peg_dump.rs) and the slack chains, shared by the
peg9-peg11 scripts of this directory (run with /work/venv-mj/bin/python)."""
import struct
import numpy as np


def load(path):
    """(M, q, nf, k) of a dump: z = (p nf | beta nf*k | sigma nf | c ns), scaled."""
    b = open(path, 'rb').read()
    n, nf, k, r, ns = struct.unpack('<5Q', b[8:48]); at = 48
    smax, err = struct.unpack('<2d', b[at:at + 16]); at += 16
    q = np.frombuffer(b, '<f8', n, at).copy(); at += 8 * n
    M = np.zeros((n, n))
    dt = np.dtype([('i', '<u4'), ('j', '<u4'), ('v', '<f8')])
    tr = np.frombuffer(b, dt, ns, at); at += 16 * ns
    M[tr['i'], tr['j']] = tr['v']
    is_ = nf * (k + 1); rows = list(range(is_)) + list(range(is_ + nf, n))
    U = np.frombuffer(b, '<f8', len(rows) * r, at).reshape(len(rows), r); at += 8 * len(rows) * r
    V = np.frombuffer(b, '<f8', is_ * r, at).reshape(is_, r)
    M[np.ix_(rows, range(is_))] = U @ V.T
    return M, q, nf, k


def chains_of(M, nf, k):
    """Per primary force row f: its constraint's slack indices (0-based among the c's), in chain
    order. A chain is a run of slacks whose rows read the slack before (the lower-triangular ones of
    eq. (20)); its primary is the force row with the chain's first c in its row."""
    n = M.shape[0]; ic = nf * (k + 2); ns = n - ic; S = M[ic:, ic:]
    chains = []; cur = []
    for s in range(ns):
        if s > 0 and S[s, s - 1] != 0:
            cur.append(s)
        else:
            if cur:
                chains.append(cur)
            cur = [s]
    if ns:
        chains.append(cur)
    own = {}
    for ch in chains:
        fs = [f for f in range(nf) if M[f, ic + ch[0]] != 0]
        own[fs[0]] = ch
    return own
