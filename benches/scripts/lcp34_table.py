#!/usr/bin/env python3
"""lcp34 (issue 14): the "Done when" table from benches/scripts/lcp34_table.sh's OUTDIR.

    python3 benches/scripts/lcp34_table.py OUTDIR

µs/step are on-CPU medians (rtphys: `us_per_step.median`; MuJoCo 4.0: Newton, C loop,
`us_per_step_median`); ratios per round (rtphys and MuJoCo of the same round, same minutes).
Counts per timed step: Newton steps (the primal solver's `iterations_mean`), passes and
factorizations (counter deltas over the timed steps), islands handed to the Newton path.
"""
import glob
import json
import os
import re
import sys

O = sys.argv[1]


def load(path):
    with open(path) as f:
        return json.load(f)


def rounds():
    rs = sorted({int(m.group(1)) for p in glob.glob(os.path.join(O, "primal_q_*.json"))
                 if (m := re.search(r"primal_q_(\d+)\.json$", p))})
    return rs


def physics(path, name):
    d = load(path)
    for s in d["scenes"]:
        if s["name"] == name:
            return s
    return None


def robot(path, name):
    d = load(path)
    for c in d["cases"]:
        if c["name"] == name:
            return c
    return None


def mj(r, scene):
    p = os.path.join(O, f"mj_{r}", "mujoco_quick.json")
    if not os.path.exists(p):
        return None
    for row in load(p)["rows"]:
        if row["scene"] == scene and row["loop"] == "c" and row["solver"] == "Newton":
            return row["us_per_step_median"]
    return None


def counts(s, steps):
    lcp = s.get("lcp") or {}
    if steps <= 0:
        return "–"
    it = lcp.get("iterations_mean", float("nan"))
    pa = lcp.get("primal_passes", 0) / steps
    fa = lcp.get("newton_factorizations", 0) / steps
    fb = lcp.get("primal_fallback_islands", 0)
    return f"{it:.2f} / {pa:.2f} / {fa:.2f} / {fb}"


def timed_steps(s):
    return s["steps_per_rep"] * s["reps"]


def fmt(x):
    return "–" if x is None else (f"{x:,.1f}" if x >= 100 else f"{x:.2f}")


ROWS = [
    # (label, source kind, rtphys name, file stem, MuJoCo scene)
    ("box", "physics", "box", "primal_q", "a_box"),
    ("5-stack", "physics", "stack5", "primal_q", "b_stack5"),
    ("20-pile `--quick` (after 0.75 s)", "physics", "pile20", "primal_q", "c_pile20_drop"),
    ("20-pile settled (after 3 s)", "physics", "pile20", "primal_s", "c_pile20"),
    ("7-DoF arm free", "robot", "arm_free", "primal_robots", "d_arm_free"),
    ("7-DoF arm on the table", "robot", "arm_table", "primal_robots", "d_arm_table"),
    ("humanoid", "robot", "humanoid", "primal_robots", "e_humanoid_dmc"),
]


def main():
    rs = rounds()
    print(f"rounds {rs}; load (1 min) per file in log.txt\n")
    print("| scene | rtphys LCP primal, µs/step (rounds) | MuJoCo 4.0 Newton, C loop (rounds) | "
          "LCP / MuJoCo | Newton steps / passes / factorizations per step; islands to Newton | "
          "scene's own solver (Lemke), µs/step | bar met |")
    print("|---|---|---|---|---|---|---|")
    for label, kind, name, stem, mjs in ROWS:
        ours, peer, ratios, cnt = [], [], [], []
        for r in rs:
            f = os.path.join(O, f"{stem}_{r}.json")
            s = (physics if kind == "physics" else robot)(f, name) if os.path.exists(f) else None
            m = mj(r, mjs)
            if s is None:
                continue
            u = s["us_per_step"]["median"]
            ours.append(u)
            peer.append(m)
            if m:
                ratios.append(u / m)
            cnt.append(counts(s, timed_steps(s)))
        lem = None
        if kind == "physics" and stem == "primal_q" and os.path.exists(os.path.join(O, "lemke_q.json")):
            s = physics(os.path.join(O, "lemke_q.json"), name)
            lem = s and s["us_per_step"]["median"]
        if kind == "robot" and os.path.exists(os.path.join(O, "lemke_robots.json")):
            s = robot(os.path.join(O, "lemke_robots.json"), name)
            lem = s and s["us_per_step"]["median"]
        rr = f"{min(ratios):.2f}–{max(ratios):.2f}×" if ratios else "–"
        met = "–" if not ratios else ("yes" if max(ratios) <= 1.0 else ("in some rounds" if min(ratios) <= 1.0 else "no"))
        print(f"| {label} | {', '.join(fmt(x) for x in ours)} | {', '.join(fmt(x) for x in peer)} | {rr} | "
              f"{'; '.join(cnt)} | {fmt(lem)} | {met} |")
    # The rover against its penalty time (bar ≤ 2×).
    ours, pen, ratios, cnt = [], [], [], []
    for r in rs:
        a = os.path.join(O, f"primal_robots_{r}.json")
        b = os.path.join(O, f"penalty_robots_{r}.json")
        if not (os.path.exists(a) and os.path.exists(b)):
            continue
        s, t = robot(a, "diffdrive"), robot(b, "diffdrive")
        ours.append(s["us_per_step"]["median"])
        pen.append(t["us_per_step"]["median"])
        ratios.append(ours[-1] / pen[-1])
        cnt.append(counts(s, timed_steps(s)))
    lem = None
    if os.path.exists(os.path.join(O, "lemke_robots.json")):
        lem = robot(os.path.join(O, "lemke_robots.json"), "diffdrive")["us_per_step"]["median"]
    rr = f"{min(ratios):.2f}–{max(ratios):.2f}×" if ratios else "–"
    met = "–" if not ratios else ("yes" if max(ratios) <= 2.0 else ("in some rounds" if min(ratios) <= 2.0 else "no"))
    print(f"| two-wheel rover (bar: ≤ 2× its penalty time) | {', '.join(fmt(x) for x in ours)} | "
          f"penalty: {', '.join(fmt(x) for x in pen)} | {rr} (of penalty) | {'; '.join(cnt)} | {fmt(lem)} | {met} |")
    # The other robots' penalty times, for reference.
    print("\npenalty µs/step per round (bench robots --method penalty): ", end="")
    out = []
    for name in ("arm_free", "arm_table", "diffdrive", "humanoid"):
        v = []
        for r in rs:
            b = os.path.join(O, f"penalty_robots_{r}.json")
            if os.path.exists(b):
                v.append(fmt(robot(b, name)["us_per_step"]["median"]))
        out.append(f"{name} {', '.join(v)}")
    print("; ".join(out))
    log = os.path.join(O, "log.txt")
    if os.path.exists(log):
        with open(log) as f:
            lines = [l.strip() for l in f if l.startswith("==")]
        print(f"\nwindow {lines[0].split()[-5]}–{lines[-1].split()[-5]} UTC; "
              f"load (1 min) {min(float(l.split()[-3]) for l in lines):.2f}–{max(float(l.split()[-3]) for l in lines):.2f}")


if __name__ == "__main__":
    main()
