#!/usr/bin/env python3
"""peg30: two sweeps of the survey tool compared cell by cell (each written by
`peg26_survey.py run TOOL OUT 2d|3d off --seeds 1,..,10 PEG_STD_CHECK=1 [VAR=VALUE ..]`,
read as `peg29_sweep.py` reads them: the run's largest relative overlap, steps
keeping a failed solve, of them PEG-only).

  peg30_compare.py DIM BEFORE_DIR[,DIR..] AFTER_DIR[,DIR..] [--all]
      the cells both sweeps ran: <= 1e-9 before -> after, failed steps and PEG-only
      before -> after, better / equal / worse ("equal": both <= 1e-9, or within a
      factor 2, as peg25), then every cell that is worse (or, with --all, every
      cell that differs), and the worse cells that end above 1e-9.
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peg29_sweep import read  # noqa: E402


def main(dim, before, after, show_all):
    b, a = read(before, dim), read(after, dim)
    keys = sorted(k for k in set(b) & set(a) if "max" in b[k] and "max" in a[k])
    unit = "L²" if dim == "2d" else "L³"
    ok = [sum(d[k]["max"] <= 1e-9 for k in keys) for d in (b, a)]
    fs = [sum(d[k]["failed"] for k in keys) for d in (b, a)]
    po = [sum(d[k].get("peg_only", 0) for k in keys) for d in (b, a)]
    better = worse = 0
    rows, worse_above = [], []
    for k in keys:
        x, y = b[k]["max"], a[k]["max"]
        same = (x <= 1e-9 and y <= 1e-9) or (x > 0 and y > 0 and 0.5 <= y / x <= 2.0) or x == y
        mark = "equal" if same else ("better" if y < x else "worse")
        better += mark == "better"
        worse += mark == "worse"
        if mark == "worse" and y > 1e-9:
            worse_above.append(k)
        if mark == "worse" or (show_all and (mark != "equal" or b[k] != a[k])):
            rows.append("  %.3g s%d: %.3g -> %.3g %s, failed %d -> %d, PEG-only %d -> %d (%s)" % (
                k[0], k[1], x, y, unit, b[k]["failed"], a[k]["failed"],
                b[k].get("peg_only", 0), a[k].get("peg_only", 0), mark))
    print("%s: %d cells; <= 1e-9 %d -> %d; failed steps %d -> %d, PEG-only %d -> %d; "
          "better %d / equal %d / worse %d (worse and above 1e-9: %d)" % (
              dim, len(keys), ok[0], ok[1], fs[0], fs[1], po[0], po[1], better,
              len(keys) - better - worse, worse, len(worse_above)))
    print("\n".join(rows))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2], sys.argv[3], "--all" in sys.argv[4:])
