"""(peg10; docs/EXPERIMENTS.md) Usage: python milp_elastic.py FILE all|normal|pc l1|linf|uniform time_limit_s [Z].
Least elastic relaxation of a dumped PEG LCP: z>=0, w = M z + q + e >= 0, z ⊥ w (binary y),
e >= 0 only on the rows of class `rows` (all | normal | stab), minimize sum(e) (L1) or max(e) (Linf)."""
import numpy as np, sys, time
from scipy.optimize import milp, LinearConstraint, Bounds
import os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); from peglib import load
path=sys.argv[1]; mode=sys.argv[2]; norm=sys.argv[3]; tl=float(sys.argv[4]); Z=float(sys.argv[5]) if len(sys.argv)>5 else 1e4
M,q,nf,k=load(path); n=len(q); ic=nf*(k+2)
cls=np.array(['p']*nf+['b']*(nf*k)+['s']*nf+['c']*(n-ic))
if mode=='all': rel=np.ones(n,bool)
elif mode=='normal': rel=(cls=='p')
elif mode=='pc': rel=(cls=='p')|(cls=='c')
E=np.diag(rel.astype(float))[:,rel]; ne=rel.sum()
Wb=np.abs(q)+np.abs(M).sum(1)*Z+ (np.abs(q).max()*10 if True else 0)
# vars: z(n), y(n), e(ne), [tmax]
nv=2*n+ne+1
def st(*b): return np.hstack(b)
zn=np.zeros((n,n)); 
A1=st(M,zn,E,np.zeros((n,1)))                 # Mz+e >= -q
A2=st(M,np.diag(Wb),E,np.zeros((n,1)))        # Mz+e+Wb y <= Wb-q
A3=st(np.eye(n),-Z*np.eye(n),np.zeros((n,ne)),np.zeros((n,1)))
A4=st(np.zeros((ne,2*n)),np.eye(ne),-np.ones((ne,1)))
cons=[LinearConstraint(A1,-q,np.inf),LinearConstraint(A2,-np.inf,Wb-q),LinearConstraint(A3,-np.inf,0),LinearConstraint(A4,(0 if norm=='uniform' else -np.inf),0)]
c=np.zeros(nv); c[:n]=1e-9
if norm=='l1': c[2*n:2*n+ne]=1
else: c[-1]=1
integ=np.r_[np.zeros(n),np.ones(n),np.zeros(ne+1)]
emax=np.abs(q).max()*2+1
b=Bounds(np.zeros(nv),np.r_[np.full(n,Z),np.ones(n),np.full(ne+1,emax)])
t=time.time()
r=milp(c,constraints=cons,integrality=integ,bounds=b,options={'time_limit':tl,'disp':False})
print(path.split('/')[-1],'n',n,'nf',nf,'mode',mode,norm,'status',r.status,r.message.split('.')[0],'%.1fs'%(time.time()-t),'|q|',np.abs(q).max())
if r.x is not None:
    z=r.x[:n]; e=np.zeros(n); e[rel]=r.x[2*n:2*n+ne]; w=M@z+q+e
    print(' obj',r.fun,'dual bound',getattr(r,'mip_dual_bound',None),'resid',np.abs(np.minimum(z,w)).max(),'max z',z.max())
    idx=np.where(e>1e-7)[0]
    for i in idx: print('  row',i,cls[i],'e=%.4g q=%.4g z=%.3g'%(e[i],q[i],z[i]))
