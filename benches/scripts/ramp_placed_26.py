"""A box (0.2 × 0.2 × 0.1 m, 1 kg) placed touching (or 1 mm above) a 20° ramp (a static
6 × 2 × 0.2 m box rotated about its centre), μ = 0.5 (holds: tan 20° = 0.364) and μ = 0.2
(slides at g (sin θ − μ cos θ) = 1.51154 m/s²), under penalty, Hunt–Crossley, LCP
(h = 1e-3) and IPC (h = 1e-2), 1 s: the slide along the slope and the acceleration
between 0.5 s and 1 s (docs/EXPERIMENTS.md, "Outside scenes, session 26", item 4).

    python3 benches/scripts/ramp_placed_26.py target/release/rtphys
"""
import subprocess, csv, math, sys
BIN=sys.argv[1]
th=math.radians(20); n=(math.sin(th),0,math.cos(th)); t=(math.cos(th),0,-math.sin(th))
top=[0.1*n[i]+(0,0,-0.1)[i] for i in range(3)]
def scene(mu, gap, dt, shape='box'):
    c=[top[i]-0.5*t[i]+(0.05+gap)*n[i] for i in range(3)]
    body = 'shape = { type = "box", size = [0.2, 0.2, 0.1] }' 
    return f'''[world]
gravity = [0.0, 0.0, -9.81]
dt = {dt}
method = "penalty"
[[body]]
name = "ramp"
static = true
shape = {{ type = "box", size = [6.0, 2.0, 0.2] }}
position = [0.0, 0.0, -0.1]
rpy = [0.0, {th!r}, 0.0]
material = {{ mu = {mu} }}
[[body]]
name = "b"
{body}
mass = 1.0
position = [{c[0]!r}, 0.0, {c[2]!r}]
rpy = [0.0, {th!r}, 0.0]
material = {{ mu = {mu} }}
'''
for mu in (0.5, 0.2):
  for gap in (0.0, 1e-3):
    for m in ['penalty','hunt_crossley','lcp','ipc']:
        dt = 0.01 if m=='ipc' else 0.001
        open('/tmp/ramp_placed_26.toml','w').write(scene(mu,gap,dt))
        steps=int(1.0/dt)
        out=subprocess.run([BIN,'run','/tmp/ramp_placed_26.toml','--method',m,'--steps',str(steps)],capture_output=True,text=True)
        if out.returncode: print(m,'ERR',out.stderr[-200:]); continue
        r=list(csv.DictReader(out.stdout.splitlines()))
        def s(row): return float(row['b.x'])*t[0]+float(row['b.z'])*t[2]
        def v(row): return float(row['b.vx'])*t[0]+float(row['b.vz'])*t[2]
        i1=int(0.5/dt)-1; i2=steps-1
        a=(v(r[i2])-v(r[i1]))/(0.5)
        expect = 0.0 if mu>math.tan(th) else 9.81*(math.sin(th)-mu*math.cos(th))
        print(f"mu {mu} gap {gap} {m:14s} slide {s(r[-1])-s(r[0]):+.3e} m, a(0.5-1s) {a:+.5f} (law {expect:.5f}), tilt {math.degrees(2*math.acos(min(1,abs(float(r[-1]['b.qw']))))):.3f} deg, maxpen {max(float(x['max_penetration']) for x in r):.2e}")
