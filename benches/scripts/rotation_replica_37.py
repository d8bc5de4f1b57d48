"""A replica of the first-order steps' rotation (src/pipeline/rotation.rs) on the heavy top of
tests/contact_top.rs with the floor's force held at m g through the tip's centre, to separate the
scheme's error from the contact (docs/EXPERIMENTS.md, "Outside scenes, session 37").

    /work/venv-mj/bin/python benches/scripts/rotation_replica_37.py H SECONDS MODE
MODE: old (w+ = w_f + dw, the step before session 37), b (w+ = I_w(q+)^-1 (L + h tau), the fix),
c (kick then drift: the momentum kicked first, the free step from it). Prints the precession
rate's least-squares slope against the analytic rate and the tilt's range.
"""
import numpy as np, math, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outside_probes_37 import top_inertia, precession, G
m,l,i1,i3 = top_inertia()
I = np.diag([i1,i1,i3]); Iinv=np.linalg.inv(I)
def qmul(a,b):
    w1,x1,y1,z1=a; w2,x2,y2,z2=b
    return np.array([w1*w2-x1*x2-y1*y2-z1*z2, w1*x2+x1*w2+y1*z2-z1*y2, w1*y2-x1*z2+y1*w2+z1*x2, w1*z2+x1*y2-y1*x2+z1*w2])
def rot(q):
    w,x,y,z=q
    return np.array([[1-2*(y*y+z*z),2*(x*y-w*z),2*(x*z+w*y)],[2*(x*y+w*z),1-2*(x*x+z*z),2*(y*z-w*x)],[2*(x*z-w*y),2*(y*z+w*x),1-2*(x*x+y*y)]])
def midpoint(L,h):
    w=Iinv@L
    for _ in range(8):
        iw=I@w; f=iw+0.5*h*np.cross(w,iw)-L
        if abs(f).max()<1e-15*abs(L).max(): break
        sk=lambda v: np.array([[0,-v[2],v[1]],[v[2],0,-v[0]],[-v[1],v[0],0]])
        J=I+0.5*h*(sk(w)@I-sk(iw)); w=w-np.linalg.solve(J,f)
    return w
def step(q,w,h,mode):
    R=rot(q); Iw=R@I@R.T; Iwi=R@Iinv@R.T
    e3=R[:,2]; tau=np.cross(-l*e3, np.array([0,0,m*G]))
    if mode=='old':
        L=Iw@w; Lb=R.T@L; wm=midpoint(Lb,h); Ln=2*I@wm-Lb
        dq=np.array([1,*(0.5*h*wm)]); qf=qmul(q,dq); qf/=np.linalg.norm(qf)
        wf=rot(qf)@(Iinv@Ln)
        kw=h*Iwi@tau
        qn=qf+qmul(np.array([0,*(0.5*h*kw)]),qf); qn/=np.linalg.norm(qn)
        return qn, wf+kw
    if mode=='b':
        L=Iw@w; Lb=R.T@L; wm=midpoint(Lb,h); Ln=2*I@wm-Lb
        dq=np.array([1,*(0.5*h*wm)]); qf=qmul(q,dq); qf/=np.linalg.norm(qf)
        kw=h*Iwi@tau
        qn=qf+qmul(np.array([0,*(0.5*h*kw)]),qf); qn/=np.linalg.norm(qn)
        Rn=rot(qn); Lw=rot(qf)@Ln + h*tau
        return qn, Rn@Iinv@Rn.T@Lw
    if mode=='c':
        L=Iw@w+h*tau; Lb=R.T@L; wm=midpoint(Lb,h); Ln=2*I@wm-Lb
        dq=np.array([1,*(0.5*h*wm)]); qf=qmul(q,dq); qf/=np.linalg.norm(qf)
        return qf, rot(qf)@(Iinv@Ln)
theta=math.radians(30); w3=150; h=float(sys.argv[1]); T=float(sys.argv[2]); MODE=sys.argv[3]
W=precession(theta,w3)
q=np.array([math.cos(theta/2),math.sin(theta/2),0,0])
e3=rot(q)[:,2]; w=W*np.array([0,0,1])+(w3-W*math.cos(theta))*e3
phis=[];tilts=[];ts=[]
for k in range(int(T/h)):
    q,w=step(q,w,h,MODE)
    e=rot(q)[:,2]; phis.append(math.atan2(e[1],e[0])); tilts.append(math.degrees(math.acos(e[2]))); ts.append((k+1)*h)
un=np.unwrap(phis); sl=np.polyfit(ts,un,1)[0]
print(h, 'rate', sl, 'exact', W, 'tilt', min(tilts), max(tilts))
