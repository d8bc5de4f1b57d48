"""(peg10; docs/EXPERIMENTS.md) Usage: python force_directions.py FILE time_limit_s primary|general.
Frictionless existence, single-primary (eq. 24) vs forces on any member (general |C|>1 form), from a dump.
W between members by Nystrom through the primaries' block (exact when rank W = rank W_PP)."""
import numpy as np,sys,time
f=sys.argv[1]; tl=float(sys.argv[2]); form=sys.argv[3]
from scipy.optimize import milp, LinearConstraint, Bounds
import os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); from peglib import load, chains_of
M,q,nf,k=load(f); n=len(q); ic=nf*(k+2); ns=n-ic; S=M[ic:,ic:]
own=chains_of(M,nf,k)
A=[];B=[];con=[];isprim=[]
for f_ in range(nf):
    a0=q[f_]; B0=M[f_,:nf]; A.append(a0); B.append(B0); con.append(f_); isprim.append(True)
    for s in own.get(f_,[]):
        wb=M[ic+s,ic+s]; A.append(a0-q[ic+s]/wb); B.append(B0-M[ic+s,:nf]/wb); con.append(f_); isprim.append(False)
A=np.array(A);B=np.array(B);con=np.array(con);isprim=np.array(isprim)
Wpp=M[:nf,:nf]; Wpp=(Wpp+Wpp.T)/2
W=B@np.linalg.pinv(Wpp,rcond=1e-8)@B.T
nm=len(A); print(f.split('/')[-1],'members',nm,'nystrom check |W[prim,prim]-Wpp|',np.abs(W[np.ix_(isprim,isprim)]-Wpp).max())
force=np.ones(nm,bool) if form=='general' else isprim
F=np.where(force)[0]; nF=len(F)
Z=1e4; BIG=1e2*(np.abs(A).max()+np.abs(W).sum(1).max()*Z)
# vars: fF (nF), y (nF), b (nm)
nv=2*nF+nm; rows=[];lo=[];hi=[]
def R(): return np.zeros(nv)
for m in range(nm):
    r=R(); r[:nF]=W[m,F]; r[2*nF+m]=-BIG; rows.append(r); lo.append(-BIG-A[m]); hi.append(np.inf)  # g_m >= -BIG(1-b)
for c_ in range(nf):
    r=R(); r[2*nF+np.where(con==c_)[0]]=1; rows.append(r); lo.append(1); hi.append(np.inf)
for i,m in enumerate(F):
    r=R(); r[i]=1; r[nF+i]=-Z; rows.append(r); lo.append(-np.inf); hi.append(0)
    for m2 in np.where(con==con[m])[0]:   # y => g_m2 <= 0 for all members, and g_m >= 0 via b
        r=R(); r[:nF]=W[m2,F]; r[nF+i]=BIG; rows.append(r); lo.append(-np.inf); hi.append(BIG-A[m2])
    r=R(); r[:nF]=W[m,F]; r[nF+i]=-BIG; rows.append(r); lo.append(-BIG-A[m]); hi.append(np.inf)
integ=np.r_[np.zeros(nF),np.ones(nF+nm)]
bd=Bounds(np.zeros(nv),np.r_[np.full(nF,Z),np.ones(nF+nm)])
t=time.time()
r=milp(np.zeros(nv),constraints=[LinearConstraint(np.array(rows),lo,hi)],integrality=integ,bounds=bd,options={'time_limit':tl})
print('  form',form,'forces',nF,'status',r.status,r.message.split('.')[0],'%.1fs'%(time.time()-t))
