"""Does a dumped PEG LCP (tests/data/peg_lcp/*.bin, format in src/pipeline/lcp/peg_dump.rs)
have a solution with ||z||_inf <= Z?  A mixed-integer program (scipy's HiGHS):
z >= 0, w = M z + q >= 0, z <= Z y, w <= Wb (1 - y) (+ tau), y binary.
Usage: python milp_existence.py FILE [Z=1e3] [time_limit_s=60] [tau_rel=0]
(docs/EXPERIMENTS.md, peg9; run with /work/venv-mj/bin/python)."""
import numpy as np, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); from peglib import load


import time
from scipy.optimize import milp, LinearConstraint, Bounds
M,q,nf,k=load(sys.argv[1]); n=len(q)
Z=float(sys.argv[2]) if len(sys.argv)>2 else 1e3
tl=float(sys.argv[3]) if len(sys.argv)>3 else 60
tau=float(sys.argv[4])*max(1,np.abs(q).max()) if len(sys.argv)>4 else 0.0
# vars: z (n), y (n) binary.  w = Mz+q >= 0 ; w <= Wb (1-y) ; z <= Z y
Wb = np.abs(q) + np.abs(M).sum(1)*Z
A1=np.hstack([M,np.zeros((n,n))])            # Mz >= -q
A2=np.hstack([M,np.diag(Wb)])                # Mz + Wb y <= Wb - q
A3=np.hstack([np.eye(n),-Z*np.eye(n)])       # z - Z y <= 0
cons=[LinearConstraint(A1,-q,np.inf),LinearConstraint(A2,-np.inf,Wb-q+tau),LinearConstraint(A3,-np.inf,tau)]
c=np.zeros(2*n); c[:n]=1e-6
integ=np.r_[np.zeros(n),np.ones(n)]
b=Bounds(np.r_[np.zeros(n),np.zeros(n)],np.r_[np.full(n,Z),np.ones(n)])
t=time.time()
r=milp(c,constraints=cons,integrality=integ,bounds=b,options={'time_limit':tl,'disp':False})
print(sys.argv[1], 'n',n,'status',r.status,r.message,'%.1fs'%(time.time()-t))
if r.x is not None:
    z=r.x[:n]; w=M@z+q; print(' residual', np.abs(np.minimum(z,w)).max(), 'max z', z.max())
