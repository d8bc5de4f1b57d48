"""Outside scenes of session 26 (docs/EXPERIMENTS.md, "Outside scenes, session 26", the
"Measured, not changed" figures), under penalty, Hunt–Crossley, LCP and IPC:
- slide: a 0.2 × 0.2 × 0.1 m, 1 kg box at 2 m/s on a plane, μ = 0.3: where it stops
  (law v²/(2 μ g));
- bounce: a ball (r = 0.1 m, e = 0.8) dropped with its bottom 0.9 m above the floor: its
  first three bounce heights (law 0.9 e²ⁿ);
- cylinder: r = 0.1 m rolling from rest down a 20° ramp (a rotated static box), μ = 0.8:
  its acceleration between 0.3 s and 0.7 s (law 2/3 g sin θ).

    python3 benches/scripts/outside_scenes_26.py target/release/rtphys
"""
import subprocess, csv, math, sys
BIN=sys.argv[1]
def run(scene, method, steps, extra=""):
    open('/tmp/outside_scenes_26.toml','w').write(scene)
    out=subprocess.run([BIN,'run','/tmp/outside_scenes_26.toml','--method',method,'--steps',str(steps)]+extra.split(),capture_output=True,text=True)
    if out.returncode: return None, out.stderr[-300:]
    return list(csv.DictReader(out.stdout.splitlines())), None
HEAD='[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = "penalty"\n[[body]]\nname = "ground"\nstatic = true\nshape = { type = "plane" }\nmaterial = { mu = %g, restitution = %g }\n'
# (a) sliding box stop distance
mu=0.3
sc=HEAD%(mu,0)+'[[body]]\nname = "b"\nshape = { type = "box", size = [0.2, 0.2, 0.1] }\nmass = 1.0\nposition = [0.0, 0.0, 0.05]\nvelocity = [2.0, 0.0, 0.0]\nmaterial = { mu = %g }\n'%mu
for m in ['penalty','hunt_crossley','lcp','ipc']:
    r,e=run(sc,m,1500)
    if r is None: print('slide',m,'ERR',e); continue
    print('slide %-14s stop x %.4f (analytic %.4f) vx_end %.2e z_end %.5f'%(m,float(r[-1]['b.x']),4/(2*mu*9.81),float(r[-1]['b.vx']),float(r[-1]['b.z'])))
# (b) ball bounce e=0.8 dropped from z=1 (bottom at 0.9)
e=0.8
sc=HEAD%(0.5,e)+'[[body]]\nname = "b"\nshape = { type = "sphere", radius = 0.1 }\nmass = 1.0\nposition = [0.0, 0.0, 1.0]\nmaterial = { mu = 0.5, restitution = %g }\n'%e
for m in ['penalty','hunt_crossley','lcp','ipc']:
    r,er=run(sc,m,2500)
    if r is None: print('bounce',m,'ERR',er); continue
    z=[float(x['b.z']) for x in r]
    peaks=[z[i] for i in range(1,len(z)-1) if z[i]>z[i-1] and z[i]>=z[i+1] and z[i]>0.11]
    print('bounce %-14s peaks'%m, ['%.4f'%(p-0.1) for p in peaks[:3]], 'analytic', ['%.4f'%(0.9*e**(2*k)) for k in range(1,4)])
# (e) cylinder rolling down incline 20 deg, axis along y, mu=0.8 : a = 2/3 g sin
th=math.radians(20); mu=0.8
ramp='[[body]]\nname = "ramp"\nstatic = true\nshape = { type = "box", size = [6.0, 2.0, 0.2] }\nposition = [0.0, 0.0, -0.1]\nrpy = [0.0, %r, 0.0]\nmaterial = { mu = %g }\n'%(th,mu)
# place cylinder axis along y touching ramp top surface: surface normal n=(-sin? ) ramp rotated about y by +th: normal = (sin th, 0, cos th)
r0=0.1; n=(math.sin(th),0,math.cos(th))
pos=(n[0]*r0, 0, n[2]*r0)
sc='[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = "penalty"\n'+ramp+'[[body]]\nname = "c"\nshape = { type = "cylinder", radius = 0.1, half_length = 0.15 }\nmass = 1.0\nposition = [%r, 0.0, %r]\nrpy = [%r, 0.0, 0.0]\nmaterial = { mu = %g }\n'%(pos[0],pos[2],math.pi/2,mu)
for m in ['penalty','hunt_crossley','lcp','ipc']:
    r,er=run(sc,m,800)
    if r is None: print('cyl',m,'ERR',er); continue
    def sp(row): return math.hypot(float(row['c.vx']),float(row['c.vz']))
    a=(sp(r[700])-sp(r[300]))/0.4
    print('cyl   %-14s a %.4f (2/3 g sin %.4f; slide-free box %.4f) wy %.3f v %.3f'%(m,a,2/3*9.81*math.sin(th),9.81*math.sin(th),float(r[700]['c.wy']),sp(r[700])))
