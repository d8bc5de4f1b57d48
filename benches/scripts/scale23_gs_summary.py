#!/usr/bin/env python3
"""scale23: summarise the anchors' probe lines ("GS call ... sweeps S omega W err E ...",
from benches/scripts/scale23_gs_probe.diff) of each file given: solves, blocks, sweeps
(range, mean), the ω the solves ended with, err = largest |x - x_ref| / largest x, and how
many solves stopped at the 30-sweep cap."""
import sys

for path in sys.argv[1:]:
    rows = [l.split() for l in open(path) if l.startswith("GS")]
    if not rows:
        print(f"{path}: no probe lines")
        continue
    bl = [int(r[4]) for r in rows]
    sw = [int(r[8]) for r in rows]
    om = [float(r[10]) for r in rows]
    err = [float(r[12]) for r in rows]
    print(f"{path}: solves {len(rows)} blocks {min(bl)}-{max(bl)} sweeps {min(sw)}-{max(sw)} "
          f"mean {sum(sw)/len(sw):.1f} at-cap {sum(s >= 30 for s in sw)} omega {min(om):.3f}-{max(om):.3f} "
          f"err {min(err):.2e}-{max(err):.2e}")
