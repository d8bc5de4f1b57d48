#!/usr/bin/env python3
"""peg26: peg25's attributed cells (docs/EXPERIMENTS.md, peg25 §2), re-run on one build.

  peg26_cells.py run BIN OUT [rule]   rule: off | one_sided (both when omitted)
  peg26_cells.py table OUT_BEFORE OUT_AFTER
      per cell and rule: PEG's max overlap (L² / L³) before -> after.

Each step size runs `BIN experiment peg-pour[-2d] --seeds N --steps h --duration 2` (seeds 1..N,
N the largest seed of a cell at that h) with depth 2 + tau = 1e-11, as peg22-peg25; the one-sided
rule adds `--peg-vv-one-sided`.
"""
import csv, os, subprocess, sys

# (dim, h, seed) of peg25's table; h as the sweep writes it (peg22_sweep.STEPS).
CELLS = [("2d", 0.0105, 3), ("2d", 0.0176, 2), ("2d", 0.0229, 2), ("2d", 0.00478, 2),
         ("2d", 0.0105, 2), ("2d", 0.0385, 4), ("2d", 0.0136, 3), ("2d", 0.0105, 1),
         ("2d", 0.0176, 3), ("2d", 0.0229, 5), ("2d", 0.0297, 5), ("2d", 0.00368, 1),
         ("2d", 0.00478, 1), ("2d", 0.0385, 2), ("2d", 0.05, 2), ("2d", 0.05, 4),
         ("3d", 0.0297, 1), ("3d", 0.05, 1), ("3d", 0.0297, 2), ("3d", 0.0229, 2),
         ("3d", 0.0385, 4)]
RULES = {"off": [], "one_sided": ["--peg-vv-one-sided"]}


def run(bin_, out, rules):
    by_h = {}
    for dim, h, s in CELLS:
        by_h[(dim, h)] = max(by_h.get((dim, h), 0), s)
    for rule in rules:
        for (dim, h), n in sorted(by_h.items()):
            d = os.path.join(out, rule, dim, "h_%.4g" % h)
            if os.path.exists(os.path.join(d, "done")):
                continue
            os.makedirs(d, exist_ok=True)
            exp = "peg-pour" if dim == "3d" else "peg-pour-2d"
            cmd = [bin_, "experiment", exp, "--seeds", str(n), "--steps", repr(h), "--duration", "2",
                   "--out", d, "--img", d, "--peg-retry-depth", "2", "--peg-retry-overlap", "1e-11"]
            cmd += RULES[rule]
            print(" ".join(cmd), flush=True)
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            open(os.path.join(d, "done"), "w").close()


def cell(out, rule, dim, h, seed):
    name = "peg_pour_runs.csv" if dim == "3d" else "peg_pour_2d_runs.csv"
    p = os.path.join(out, rule, dim, "h_%.4g" % h, name)
    if not os.path.exists(p):
        return None
    for r in csv.DictReader(open(p)):
        if r["method"] == "peg" and int(r["seed"]) == seed:
            return float(r["overlap_max"]), int(r.get("failed_steps", 0) or 0)
    return None


def table(before, after):
    fmt = lambda c: "—" if c is None else ("%.2g" % c[0]) + (" (%d kept)" % c[1] if c[1] else "")
    print("| cell (h s, seed) | key off: before → after | one-sided key: before → after |")
    print("|---|---|---|")
    n = {r: [0, 0] for r in RULES}
    for dim, h, s in CELLS:
        row = []
        for rule in RULES:
            b, a = cell(before, rule, dim, h, s), cell(after, rule, dim, h, s)
            row.append("%s → %s" % (fmt(b), fmt(a)))
            n[rule][0] += b is not None and b[0] <= 1e-9
            n[rule][1] += a is not None and a[0] <= 1e-9
        print("| %s %.3g s%d | %s | %s |" % (dim.upper(), h, s, row[0], row[1]))
    for rule, (b, a) in n.items():
        print("%s: cells <= 1e-9 %d -> %d of %d" % (rule, b, a, len(CELLS)))


if __name__ == "__main__":
    if sys.argv[1] == "run":
        rules = [sys.argv[4]] if len(sys.argv) > 4 else list(RULES)
        run(sys.argv[2], sys.argv[3], rules)
    else:
        table(sys.argv[2], sys.argv[3])
