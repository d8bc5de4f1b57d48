"""The rough-floor top under penalty at three stiffnesses (kp, kv, ki per kg: the defaults, x10, x100 in kp), 3 s at
1 ms: the energy lost scales with the contact patch's radius (docs/EXPERIMENTS.md, "Outside scenes, session 38 (lead)").

    cd benches/scripts && python3 rough_top_stiffness_38.py BIN
"""
import math, sys
sys.path.insert(0, '.')
import outside_probes_37 as o
BIN = sys.argv[1]; dt = 1e-3; secs = 3.0
theta = math.radians(30.0)
base = o.top_scene(theta, 150.0, dt, mu=0.3)
for kp, kv, ki in [(2e4, 300, 1e3), (2e5, 950, 1e4), (2e6, 3000, 1e5)]:
    text = base.replace('method = "penalty"\n', f'method = "penalty"\n\n[penalty]\nkp_per_mass = {kp}\nkv_per_mass = {kv}\nki_per_mass = {ki}\n', 1)
    open('/tmp/rough_top_38_rough_k.toml', 'w').write(text)
    rows = o.run(BIN, '/tmp/rough_top_38_rough_k.toml', 'penalty', int(round(secs / dt)))
    if rows is None: continue
    E = [float(r['kinetic']) + float(r['potential']) for r in rows]
    z = min(float(r['top.z']) for r in rows)
    n = len(rows); marks = [int(k * (n - 1) / 3) for k in range(1, 4)]
    tilts = [math.degrees(math.acos(max(-1, min(1, o.axis(r)[2])))) for r in rows]
    print(kp, 'E rel:', ' '.join('%+.2e' % (E[k] / E[0] - 1) for k in marks), '| tilt:', ' '.join('%.2f' % tilts[k] for k in marks), flush=True)
