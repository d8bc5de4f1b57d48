"""(peg10; docs/EXPERIMENTS.md) Usage: python kinematic_jam.py FILE [time_limit_s].
Is there a rigid motion (any velocity change in the span of the force rows' W, no sign, no complementarity)
that makes every constraint's largest gap >= -tau (scaled)?  MILP over p (free) and b (which member holds).
Also: least uniform relaxation t for which one exists (minimize t)."""
import numpy as np,sys,time
f=sys.argv[1]; tl=float(sys.argv[2]) if len(sys.argv)>2 else 120
import os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); from peglib import load, chains_of
from scipy.optimize import milp, LinearConstraint, Bounds
M,q,nf,k=load(f); n=len(q); ic=nf*(k+2); ns=n-ic; S=M[ic:,ic:]
own=chains_of(M,nf,k)
# rows: for each force row f (U or I): list of member gap expressions a + B p (scaled by 1/sqrt(wbar))
mem=[]
for f_ in range(nf):
    a0=q[f_]; B0=M[f_,:nf]
    lst=[(a0,B0)]
    for s in own.get(f_,[]):
        wb=M[ic+s,ic+s]
        lst.append((a0-q[ic+s]/wb, B0-M[ic+s,:nf]/wb))
    mem.append(lst)
nb=sum(len(l) for l in mem)
BIG=1e3*(1+np.abs(q).max())
# vars: p (nf, free, bounded), b (nb binary), t
nv=nf+nb+1
A=[];lo=[];hi=[]
j=nf
for f_,lst in enumerate(mem):
    row=np.zeros(nv); row[nf+ (j-nf):nf+(j-nf)+len(lst)]=1; A.append(row); lo.append(1); hi.append(np.inf)
    for (a,B) in lst:
        r=np.zeros(nv); r[:nf]=B; r[j]=-BIG; r[-1]=1   # a + B p + t >= -BIG(1-b)  -> B p - BIG b... 
        # a + Bp + t >= -BIG + BIG b  => Bp + t - BIG b >= -BIG - a
        A.append(r); lo.append(-BIG-a); hi.append(np.inf); j+=1
c=np.zeros(nv); c[-1]=1
integ=np.r_[np.zeros(nf),np.ones(nb),0]
P=1e4
b=Bounds(np.r_[np.full(nf,-P),np.zeros(nb),0],np.r_[np.full(nf,P),np.ones(nb),np.inf])
t0=time.time()
r=milp(c,constraints=[LinearConstraint(np.array(A),lo,hi)],integrality=integ,bounds=b,options={'time_limit':tl})
print(f.split('/')[-1],'constraints',nf,'members',nb,'status',r.status,'least kinematic relaxation t =',r.fun, '%.1fs'%(time.time()-t0))
