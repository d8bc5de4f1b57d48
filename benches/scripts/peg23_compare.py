#!/usr/bin/env python3
"""peg23: two pour sweeps per (h, seed) cell, PEG's max overlap before / after.

  peg23_compare.py 3d|2d BEFORE AFTER
      BEFORE, AFTER: directories of `peg22_sweep.py run` (OUT/h_*/peg_pour[_2d]_runs.csv).
      One row per (h, seed): PEG's max overlap (L³ / L²), steps keeping a failure and the
      retried fraction in each; the CCD splits and deepest-level CCD impacts of AFTER when
      its CSV has them; then the counts of cells <= 1e-9 and of cells better / equal / worse
      (equal: both <= 1e-9, or within 10 % of each other).
"""
import csv, glob, os, sys


def load(dim, out):
    name = "peg_pour_runs.csv" if dim == "3d" else "peg_pour_2d_runs.csv"
    cells = {}
    for p in glob.glob(os.path.join(out, "h_*", name)):
        for r in csv.DictReader(open(p)):
            if r["method"] == "peg":
                cells[(float(r["h"]), int(r["seed"]))] = r
    return cells


def main(dim, before, after):
    b, a = load(dim, before), load(dim, after)
    print("| h, s | seed | before: max; kept; retried | after: max; kept; retried; CCD splits; deepest-level impacts | |")
    print("|---|---|---|---|---|")
    n = {"better": 0, "equal": 0, "worse": 0}
    ok_b = ok_a = 0
    for k in sorted(set(b) & set(a)):
        rb, ra = b[k], a[k]
        mb, ma = float(rb["overlap_max"]), float(ra["overlap_max"])
        ok_b += mb <= 1e-9
        ok_a += ma <= 1e-9
        if (mb <= 1e-9 and ma <= 1e-9) or abs(ma - mb) <= 0.1 * max(ma, mb):
            v = "equal"
        elif ma < mb:
            v = "better"
        else:
            v = "worse"
        n[v] += 1
        fb = 100.0 * int(rb["retried_steps"]) / int(rb["steps"])
        fa = 100.0 * int(ra["retried_steps"]) / int(ra["steps"])
        print("| %.3g | %d | %.2e; %s; %.0f %% | %.2e; %s; %.0f %%; %s; %s | %s |" % (
            k[0], k[1], mb, rb["failed_steps"], fb, ma, ra["failed_steps"], fa,
            ra.get("ccd_retries", "-"), ra.get("ccd_impacts", "-"), v if v != "equal" else ""))
    print()
    print("cells: %d; <= 1e-9 before %d, after %d; better %d, equal %d, worse %d" % (
        len(set(b) & set(a)), ok_b, ok_a, n["better"], n["equal"], n["worse"]))


if __name__ == "__main__":
    main(*sys.argv[1:4])
