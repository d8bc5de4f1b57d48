#!/usr/bin/env python3
"""scale23: summarise the probe's same-input comparison lines ("CMP NAME call C blocks B sweeps S
omega W err E ..."; benches/scripts/scale23_gs_probe.diff): per NAME (ω rule), over the solves of
each file: sweeps (range, mean), solves at the 30-sweep cap, the ω used, err = largest
|x - x_ref| / largest x against the same solve's sweeps run to 1e-13."""
import sys
from collections import defaultdict

for path in sys.argv[1:]:
    by = defaultdict(list)
    for l in open(path):
        if l.startswith("CMP"):
            r = l.split()
            by[r[1]].append((int(r[5]), int(r[7]), float(r[9]), float(r[11])))
    print(f"== {path}")
    for name, rows in by.items():
        bl = [r[0] for r in rows]; sw = [r[1] for r in rows]; om = [r[2] for r in rows]; err = [r[3] for r in rows]
        print(f"  {name:5s} solves {len(rows)} blocks {min(bl)}-{max(bl)} sweeps {min(sw)}-{max(sw)} "
              f"mean {sum(sw)/len(sw):.1f} at-cap {sum(s >= 30 for s in sw)} omega {min(om):.3f}-{max(om):.3f} "
              f"err {min(err):.2e}-{max(err):.2e}")
