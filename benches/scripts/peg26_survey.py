#!/usr/bin/env python3
"""peg26: PEG's pours over step sizes and seeds, PEG only, through the survey tool
(`tests/peg_lcp_survey.rs::pour_2d_counters` / `pour_3d_counters`, 2 s, depth 2 + tau = 1e-11
as peg22-peg25), one tool binary per build (`cargo test --release --no-run --test
peg_lcp_survey`, the binary under target/release/deps copied out).

  peg26_survey.py run TOOL OUT 2d|3d off|one_sided [--seeds 1,2] [--steps h,h,..] [VAR=VALUE ..]
      one tool run per step size (largest first) into OUT/<dim>_<rule>/h_<h>.txt
  peg26_survey.py table BEFORE AFTER 2d|3d off|one_sided
      per (h, seed): PEG's max overlap before -> after; cells <= 1e-9 before -> after,
      better / equal / worse ("equal": both <= 1e-9 or within a factor 2, as peg25).
"""
import os, re, subprocess, sys

STEPS = [float("%.3g" % (0.001 * (50.0 ** (i / 15.0)))) for i in range(16)]  # = peg22_sweep.STEPS
LINE = re.compile(r"^seed (\d+) h ([0-9.e-]+): PEG max ([0-9.e+-]+|NaN|inf)")


def run(tool, out, dim, rule, argv):
    seeds, steps, env = "1,2", STEPS, dict(os.environ)
    it = iter(argv)
    for a in it:
        if a == "--seeds":
            seeds = next(it)
        elif a == "--steps":
            steps = [float(x) for x in next(it).split(",")]
        elif "=" in a:
            k, v = a.split("=", 1)
            env[k] = v
    env.update(PEG_RETRY="2", PEG_RETRY_OVERLAP="1e-11", PEG_SEEDS=seeds,
               PEG_VV_ONE_SIDED="1" if rule == "one_sided" else "0")
    d = os.path.join(out, "%s_%s" % (dim, rule))
    os.makedirs(d, exist_ok=True)
    for h in sorted(steps, reverse=True):
        p = os.path.join(d, "h_%.4g.txt" % h)
        if os.path.exists(p):
            continue
        env["PEG_H"] = repr(h)
        name = "pour_2d_counters" if dim == "2d" else "pour_3d_counters"
        r = subprocess.run([tool, "--ignored", "--nocapture", "--exact", name], env=env,
                           capture_output=True, text=True)
        open(p + ".tmp", "w").write(r.stdout + r.stderr)
        os.rename(p + ".tmp", p)
        print(p, flush=True)


def read(out, dim, rule):
    d = os.path.join(out, "%s_%s" % (dim, rule))
    cells = {}
    if not os.path.isdir(d):
        return cells
    for f in os.listdir(d):
        if not f.endswith(".txt"):
            continue
        for line in open(os.path.join(d, f)):
            m = LINE.match(line)
            if m:
                cells[(float("%.3g" % float(m.group(2))), int(m.group(1)))] = float(m.group(3))
    return cells


def table(before, after, dim, rule):
    b, a = read(before, dim, rule), read(after, dim, rule)
    keys = sorted(set(b) & set(a))
    nb = sum(b[k] <= 1e-9 for k in keys)
    na = sum(a[k] <= 1e-9 for k in keys)
    better = worse = 0
    print("| h, s | seed | before | after |")
    print("|---|---|---|---|")
    for k in keys:
        x, y = b[k], a[k]
        same = (x <= 1e-9 and y <= 1e-9) or (x > 0 and y > 0 and 0.5 <= y / x <= 2.0) or x == y
        mark = "" if same else (" (better)" if y < x else " (worse)")
        better += (not same) and y < x
        worse += (not same) and y > x
        print("| %.3g | %d | %.2g | %.2g%s |" % (k[0], k[1], x, y, mark))
    print("%s %s: %d cells, <= 1e-9 %d -> %d; better %d / equal %d / worse %d"
          % (dim, rule, len(keys), nb, na, better, len(keys) - better - worse, worse))


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
    else:
        table(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
