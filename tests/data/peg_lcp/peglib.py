"""The dump reader (format in src/pipeline/lcp/peg_dump.rs) shared by the peg10 scripts."""
"""Least elastic relaxation of a dumped PEG LCP: z>=0, w = M z + q + e >= 0, z ⊥ w (binary y),
e >= 0 only on the rows of class `rows` (all | normal | stab), minimize sum(e) (L1) or max(e) (Linf)."""
import numpy as np, sys, time, importlib.util
from scipy.optimize import milp, LinearConstraint, Bounds
import struct
def load(path):
    b=open(path,'rb').read()
    n,nf,k,r,ns=struct.unpack('<5Q',b[8:48]); at=48
    smax,err=struct.unpack('<2d',b[at:at+16]); at+=16
    q=np.frombuffer(b,'<f8',n,at).copy(); at+=8*n
    M=np.zeros((n,n))
    dt=np.dtype([('i','<u4'),('j','<u4'),('v','<f8')])
    tr=np.frombuffer(b,dt,ns,at); at+=16*ns
    M[tr['i'],tr['j']]=tr['v']
    is_=nf*(k+1); rows=list(range(is_))+list(range(is_+nf,n))
    U=np.frombuffer(b,'<f8',len(rows)*r,at).reshape(len(rows),r); at+=8*len(rows)*r
    V=np.frombuffer(b,'<f8',is_*r,at).reshape(is_,r)
    M[np.ix_(rows,range(is_))]=U@V.T
    return M,q,nf,k
