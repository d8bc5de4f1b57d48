#!/usr/bin/env python3
"""peg29: issue 12 item 6's sweep with PEG's defaults since peg29 (`peg_vv_feasible`,
`peg_retry_corrector`), read from the survey tool's output (`tests/peg_lcp_survey.rs::
pour_2d_counters` / `pour_3d_counters`, 2 s, depth 2 + tau = 1e-11), written by
`peg26_survey.py run TOOL OUT 2d|3d off --seeds .. PEG_STD_CHECK=1` (PEG) and
`... PEG_MODEL=standard` (the standard rows, the same scenes).

  peg29_sweep.py table 2d|3d PEG_DIR[,PEG_DIR..] STD_DIR[,STD_DIR..]
      per step size: PEG's cells <= 1e-9 (overlap relative to the body size), median and
      largest of the cells' max overlap, steps keeping a failed solve, of them PEG-only
      (the standard model's step from the same state solved); the standard model's
      median / largest max overlap and its steps keeping a failed solve; then every PEG
      cell that misses 1e-9 or keeps a PEG-only failed step.
"""
import os, re, sys, statistics

MAX = re.compile(r"^seed (\d+) h ([0-9.e-]+): PEG max ([0-9.e+-]+|NaN|inf) .*?steps keeping a failed solve (\d+) of (\d+)")
STD = re.compile(r"^seed (\d+) h ([0-9.e-]+): failed PEG steps (\d+): PEG only (\d+), the standard model fails too (\d+)")


def read(dirs, dim):
    cells = {}
    for d in dirs.split(","):
        d = os.path.join(d, "%s_off" % dim)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(".txt"):
                continue
            for line in open(os.path.join(d, f)):
                m = MAX.match(line)
                if m:
                    k = (float("%.3g" % float(m.group(2))), int(m.group(1)))
                    c = cells.setdefault(k, {})
                    c.update(max=float(m.group(3)), failed=int(m.group(4)), steps=int(m.group(5)))
                m = STD.match(line)
                if m:
                    k = (float("%.3g" % float(m.group(2))), int(m.group(1)))
                    cells.setdefault(k, {}).update(peg_only=int(m.group(4)))
    return cells


def table(dim, peg_dirs, std_dirs):
    p, s = read(peg_dirs, dim), read(std_dirs, dim)
    unit = "L²" if dim == "2d" else "L³"
    hs = sorted({k[0] for k in p} | {k[0] for k in s})
    print("| h, s | PEG seeds | PEG ≤ 1e-9 | PEG median / max of the cells' max (%s) | PEG steps keeping a failed solve (PEG-only) | standard seeds | standard median / max (%s) | standard steps keeping a failed solve |" % (unit, unit))
    print("|---|---|---|---|---|---|---|---|")
    tot = [0, 0, 0, 0, 0, 0]
    for h in hs:
        pc = [v for k, v in p.items() if k[0] == h and "max" in v]
        sc = [v for k, v in s.items() if k[0] == h and "max" in v]
        ok = sum(v["max"] <= 1e-9 for v in pc)
        fs = sum(v["failed"] for v in pc)
        po = sum(v.get("peg_only", 0) for v in pc)
        sf = sum(v["failed"] for v in sc)
        tot = [tot[0] + len(pc), tot[1] + ok, tot[2] + fs, tot[3] + po, tot[4] + len(sc), tot[5] + sf]
        med = lambda c: "%.2g / %.2g" % (statistics.median([v["max"] for v in c]), max(v["max"] for v in c)) if c else "-"
        print("| %.3g | %d | %d | %s | %d (%d) | %d | %s | %d |" % (h, len(pc), ok, med(pc), fs, po, len(sc), med(sc), sf))
    print("| all | %d | %d | | %d (%d) | %d | | %d |" % tuple(tot))
    print()
    print("PEG cells missing 1e-9 or keeping a PEG-only failed step (h, seed: max, failed steps, PEG-only):")
    for k in sorted(p):
        v = p[k]
        if "max" in v and (v["max"] > 1e-9 or v.get("peg_only", 0) > 0):
            print("  %.3g s%d: %.3g %s, %d, %d" % (k[0], k[1], v["max"], unit, v["failed"], v.get("peg_only", 0)))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(__doc__)
        sys.exit(2)
