#!/usr/bin/env python3
"""peg27: peg26's cells with `[lcp] peg_retry_corrector` off / on, both rules, through the survey
tool (`tests/peg_lcp_survey.rs::pour_2d_counters` / `pour_3d_counters`, 2 s, depth 2 + tau = 1e-11;
TOOL = the survey test binary, `cargo test --release --no-run --test peg_lcp_survey`, copied out).

  peg27_cells.py run TOOL OUT      one run per (cell, rule, corrector) into OUT/<dim>_<rule>_s<seed>_<h>_c<0|1>.txt
  peg27_cells.py table OUT         per cell and rule: PEG's max overlap off -> on, the steps keeping a failed
                                   solve, the corrections (kept); "equal": both <= 1e-9 or within a factor 2
"""
import glob, os, re, subprocess, sys

CELLS_2D = [(3, 0.0105), (2, 0.0176), (2, 0.0229), (2, 0.00478), (2, 0.0105), (4, 0.0385), (3, 0.0136),
            (1, 0.0105), (3, 0.0176), (5, 0.0229), (5, 0.0297), (1, 0.00368), (1, 0.00478), (2, 0.0385),
            (2, 0.05), (4, 0.05)]
CELLS_3D = [(1, 0.0297), (1, 0.05), (2, 0.0297), (2, 0.0229), (4, 0.0385)]


def run(tool, out):
    os.makedirs(out, exist_ok=True)
    for dim, cells in (("2d", CELLS_2D), ("3d", CELLS_3D)):
        for seed, h in cells:
            for rule in ("off", "one_sided"):
                for c in (0, 1):
                    p = os.path.join(out, "%s_%s_s%d_%s_c%d.txt" % (dim, rule, seed, h, c))
                    if os.path.exists(p):
                        continue
                    env = dict(os.environ, PEG_CORRECTOR=str(c), PEG_RETRY="2", PEG_RETRY_OVERLAP="1e-11",
                               PEG_VV_ONE_SIDED="1" if rule == "one_sided" else "0",
                               PEG_SEEDS=str(seed), PEG_H=repr(h))
                    name = "pour_%s_counters" % dim
                    r = subprocess.run(["nice", "-n", "19", tool, "--ignored", "--nocapture", "--exact", name],
                                       env=env, capture_output=True, text=True)
                    open(p + ".tmp", "w").write(r.stdout + r.stderr)
                    os.rename(p + ".tmp", p)
                    print(p, flush=True)


def table(out):
    rows = {}
    for f in glob.glob(os.path.join(out, "*.txt")):
        b = os.path.basename(f)[:-4]
        dim, rest = b.split("_", 1)
        rule = "one_sided" if rest.startswith("one_sided") else "off"
        rest = rest[len(rule) + 1:]
        s, h, c = rest.split("_")
        t = open(f).read()
        m = re.search(r"PEG max ([0-9.e+-]+|NaN|inf)", t)
        k = re.search(r"steps keeping a failed solve (\d+)", t)
        cc = re.search(r"corrected sub-steps (\d+) \(kept (\d+)\)", t)
        if m and k and cc:
            rows.setdefault((dim, float(h), int(s[1:]), rule), {})[c] = (float(m.group(1)), k.group(1), cc.groups())
    print("| cell | key peg_vv_one_sided | corrector off → on (L² / L³) | steps keeping a failed solve | "
          "corrected sub-steps (kept) |")
    print("|---|---|---|---|---|")
    nb = na = better = worse = n = 0
    for key in sorted(rows):
        r = rows[key]
        if "c0" not in r or "c1" not in r:
            continue
        (x, k0, _), (y, k1, cc) = r["c0"], r["c1"]
        same = (x <= 1e-9 and y <= 1e-9) or (x > 0 and y > 0 and 0.5 <= y / x <= 2) or x == y
        mark = "" if same else (" **better**" if y < x else " **worse**")
        better += (not same) and y < x
        worse += (not same) and y > x
        nb += x <= 1e-9
        na += y <= 1e-9
        n += 1
        print("| %s %.3g s%d | %s | %.2g → %.2g%s | %s → %s | %s (%s) |" % (
            key[0].upper(), key[1], key[2], "one-sided" if key[3] == "one_sided" else "off", x, y, mark,
            k0, k1, cc[0], cc[1]))
    print("cells %d: <= 1e-9 %d -> %d; better %d / equal %d / worse %d" % (n, nb, na, better, n - better - worse,
                                                                          worse))


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        table(sys.argv[2])
