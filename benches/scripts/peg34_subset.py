#!/usr/bin/env python3
"""peg34: a key that can change a pour only at a step keeping a counted failure (`[lcp]
peg_work_clamp`: a refused pass the retry keeps) swept over the cells that have one.

  peg34_subset.py failing DIM SWEEP_DIR
      the cells of a full sweep (`peg26_survey.py run ... --seeds 1,..,10`) that keep a failed
      solve, one line per step size: "h seed,seed,.."
  peg34_subset.py rerun TOOL SWEEP_DIR OUT DIM [VAR=VALUE ..]
      those cells run again by the survey tool (`peg26_survey.py run TOOL OUT DIM off --seeds ..
      --steps h PEG_STD_CHECK=1 VAR=VALUE ..`)
  peg34_subset.py merge SWEEP_DIR OUT_DIR MERGED_DIR
      the full sweep's files with the rerun's after them (`peg29_sweep.read` keeps the last
      line of a cell), for `peg29_sweep.py table` and `peg30_compare.py`

The cells not run again are the full sweep's by construction (the key acts only at a kept
refusal, which is a counted failure); docs/EXPERIMENTS.md, peg34, checks two of them.
"""
import os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peg29_sweep import read  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def failing(dim, sweep):
    by = {}
    for (h, s), v in sorted(read(sweep, dim).items()):
        if v.get("failed", 0) > 0:
            by.setdefault(h, []).append(s)
    return by


def main(argv):
    if argv[0] == "failing":
        for h, seeds in failing(argv[1], argv[2]).items():
            print(h, ",".join(map(str, seeds)))
    elif argv[0] == "rerun":
        tool, sweep, out, dim, extra = argv[1], argv[2], argv[3], argv[4], argv[5:]
        for h, seeds in failing(dim, sweep).items():
            subprocess.run([sys.executable, os.path.join(HERE, "peg26_survey.py"), "run", tool, out, dim,
                            "off", "--seeds", ",".join(map(str, seeds)), "--steps", repr(h),
                            "PEG_STD_CHECK=1"] + extra, check=True)
    elif argv[0] == "merge":
        sweep, out, merged = argv[1], argv[2], argv[3]
        for dim in ("2d_off", "3d_off"):
            os.makedirs(os.path.join(merged, dim), exist_ok=True)
            for src, suffix in ((sweep, ""), (out, "_zrerun")):
                d = os.path.join(src, dim)
                for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                    if f.endswith(".txt"):
                        shutil.copy(os.path.join(d, f), os.path.join(merged, dim, f[:-4] + suffix + ".txt"))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
