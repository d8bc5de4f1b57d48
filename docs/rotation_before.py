# Re-implementation (pure Python) of the pre-change free-body rotation updates of
# rtphys main @ 400fda7, for the torque-free tumble of tests/contact_torture_rotation.rs:
#  sie: w += h I_w^-1 (-w x I_w w); q <- exp(h w) q (normalized)
#  lcp: w_f = w + h I_w^-1 (-w x I_w w); q <- normalize(q + (h/2)(0,w+) q)
import math
Id=[0.1,0.26,0.34]
def qmul(a,b):
    w1,x1,y1,z1=a; w2,x2,y2,z2=b
    return [w1*w2-x1*x2-y1*y2-z1*z2, w1*x2+x1*w2+y1*z2-z1*y2, w1*y2-x1*z2+y1*w2+z1*x2, w1*z2+x1*y2-y1*x2+z1*w2]
def norm(v): return math.sqrt(sum(x*x for x in v))
def rot(q):
    w,x,y,z=q
    return [[1-2*(y*y+z*z),2*(x*y-w*z),2*(x*z+w*y)],[2*(x*y+w*z),1-2*(x*x+z*z),2*(y*z-w*x)],[2*(x*z-w*y),2*(y*z+w*x),1-2*(x*x+y*y)]]
def mv(M,v): return [sum(M[i][j]*v[j] for j in range(3)) for i in range(3)]
def mtv(M,v): return [sum(M[j][i]*v[j] for j in range(3)) for i in range(3)]
def cross(a,b): return [a[1]*b[2]-a[2]*b[1],a[2]*b[0]-a[0]*b[2],a[0]*b[1]-a[1]*b[0]]
def Iw(R,v): b=mtv(R,v); return mv(R,[Id[i]*b[i] for i in range(3)])
def Iwinv(R,v): b=mtv(R,v); return mv(R,[b[i]/Id[i] for i in range(3)])
def run(kind,h=1e-3,T=20.0,w0=(0.3,6.0,0.3)):
    q=[1.0,0,0,0]; w=list(w0)
    E0=0.5*sum(Id[i]*w[i]**2 for i in range(3)); L0=norm([Id[i]*w[i] for i in range(3)])
    ed=ld=0.0; prev=w[1]; t=0.0; ups=[]; downs=[]
    for n in range(int(round(T/h))):
        R=rot(q); g=Iwinv(R,[-c for c in cross(w,Iw(R,w))])
        w=[w[i]+h*g[i] for i in range(3)]
        if kind=='sie':
            a=norm(w)*h; s=math.sin(a/2)/norm(w)
            q=qmul([math.cos(a/2),s*w[0],s*w[1],s*w[2]],q)
        else:
            d=qmul([0,0.5*h*w[0],0.5*h*w[1],0.5*h*w[2]],q); q=[q[i]+d[i] for i in range(4)]
        nq=norm(q); q=[c/nq for c in q]
        R=rot(q); L=Iw(R,w); E=0.5*sum(w[i]*L[i] for i in range(3))
        ed=max(ed,abs(E-E0)/E0); ld=max(ld,abs(norm(L)-L0)/L0)
        wb=mtv(R,w)
        if (prev<0)!=(wb[1]<0):
            tc=t+h*(-prev)/(wb[1]-prev); (ups if wb[1]>=0 else downs).append(tc)
        prev=wb[1]; t+=h
    ps=[b-a for a,b in zip(ups,ups[1:])]+[b-a for a,b in zip(downs,downs[1:])]
    print(f"{kind}: max |L| drift {ld:.3e}, max E drift {ed:.3e}, end E/E0-1 {E/E0-1:+.3e}, end |L|/L0-1 {norm(L)/L0-1:+.3e}, flips(up) {len(ups)}, periods {['%.4f'%p for p in ps]} (analytic 4.86989 s)")
for k in ['sie','lcp']: run(k)
