#!/usr/bin/env python3
"""peg22: the pours' sweep with the retry keys (issue 12, Figs. 21/24 statistics).

  peg22_sweep.py run  3d|2d OUT [--seeds N] [--duration S] [--steps h,h,..] [-- extra args]
      one `rtphys experiment peg-pour[-2d]` per step size (largest first), each into
      OUT/h_<h>, PEG with `--peg-retry-depth 2 --peg-retry-overlap 1e-11` unless extra
      args are given after `--`.
  peg22_sweep.py table 3d|2d OUT
      per step size and method: median / q1 / q3 / max of the per-step overlap (pooled
      over the seeds, from the fig CSV), runs with a failed solve, steps keeping a failed
      solve, retried steps (fraction of all steps), and the (h, seed) cells of PEG whose
      max overlap is above 1e-9.
"""
import csv, glob, os, subprocess, sys

STEPS = [float("%.3g" % (0.001 * (50.0 ** (i / 15.0)))) for i in range(16)]  # = peg_pour::step_sizes
BIN = os.environ.get("RTPHYS", "target/release/rtphys")


def run(dim, out, argv):
    seeds, duration, steps, extra = 5, 2.0, STEPS, None
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    it = iter(argv)
    for a in it:
        if a == "--seeds":
            seeds = int(next(it))
        elif a == "--duration":
            duration = float(next(it))
        elif a == "--steps":
            steps = [float(x) for x in next(it).split(",")]
    if extra is None:
        extra = ["--peg-retry-depth", "2", "--peg-retry-overlap", "1e-11"]
    exp = "peg-pour" if dim == "3d" else "peg-pour-2d"
    for h in sorted(steps, reverse=True):
        d = os.path.join(out, "h_%.4g" % h)
        if os.path.exists(os.path.join(d, "done")):
            continue
        os.makedirs(d, exist_ok=True)
        cmd = [BIN, "experiment", exp, "--seeds", str(seeds), "--steps", repr(h),
               "--duration", str(duration), "--out", d, "--img", d] + extra
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
        open(os.path.join(d, "done"), "w").close()


def table(dim, out):
    runs_name = "peg_pour_runs.csv" if dim == "3d" else "peg_pour_2d_runs.csv"
    fig_name = "peg_pour_fig24.csv" if dim == "3d" else "peg_pour_2d_fig21.csv"
    rows, figs = [], []
    for d in sorted(glob.glob(os.path.join(out, "h_*"))):
        p = os.path.join(d, runs_name)
        if os.path.exists(p):
            rows += list(csv.DictReader(open(p)))
        p = os.path.join(d, fig_name)
        if os.path.exists(p):
            figs += list(csv.DictReader(open(p)))
    hs = sorted({float(r["h"]) for r in rows})
    ccd = any("ccd_retries" in r for r in rows)
    ccd_head = "; CCD splits; deepest-level CCD impacts" if ccd else ""
    print("| h, s | seeds | standard: median / q3 / max; runs failing | PEG: median / q3 / max; runs failing; steps keeping a failure; retried steps (fraction); overlap splits" + ccd_head + " |")
    print("|---|---|---|---|")
    above = []
    for h in hs:
        cells = []
        nseeds = 0
        for m in ("lcp", "peg"):
            rr = [r for r in rows if float(r["h"]) == h and r["method"] == m]
            ff = [f for f in figs if float(f["h"]) == h and f["method"] == m]
            if not rr:
                cells.append("—")
                continue
            nseeds = len(rr)
            f = ff[0] if ff else None
            med = f["overlap_median"] if f else "?"
            q3 = f["overlap_q3"] if f else "?"
            mx = max(float(r["overlap_max"]) for r in rr)
            nf = sum(1 for r in rr if int(r["solver_failures"]) > 0)
            s = "%.2g / %.2g / %.2g; %d" % (float(med), float(q3), mx, nf)
            if m == "peg":
                steps = sum(int(r["steps"]) for r in rr)
                kept = sum(int(r.get("failed_steps", 0) or 0) for r in rr)
                ret = sum(int(r.get("retried_steps", 0) or 0) for r in rr)
                ov = sum(int(r.get("overlap_retries", 0) or 0) for r in rr)
                s += "; %d; %d (%.1f %%); %d" % (kept, ret, 100.0 * ret / max(steps, 1), ov)
                if ccd:
                    cs = sum(int(r.get("ccd_retries", 0) or 0) for r in rr)
                    ci = sum(int(r.get("ccd_impacts", 0) or 0) for r in rr)
                    s += "; %d; %d" % (cs, ci)
                for r in rr:
                    if float(r["overlap_max"]) > 1e-9:
                        above.append((h, int(r["seed"]), float(r["overlap_max"]), int(r.get("failed_steps", 0) or 0),
                                      int(r.get("retried_steps", 0) or 0), int(r["steps"])))
            cells.append(s)
        print("| %.3g | %d | %s | %s |" % (h, nseeds, cells[0], cells[1]))
    print()
    print("PEG cells above 1e-9 (h, seed, max, steps keeping a failure, retried/steps):")
    for a in above:
        print("  h=%.3g seed %d: %.3e; %d kept; %d/%d retried" % a)


if __name__ == "__main__":
    what, dim, out = sys.argv[1], sys.argv[2], sys.argv[3]
    if what == "run":
        run(dim, out, sys.argv[4:])
    else:
        table(dim, out)
