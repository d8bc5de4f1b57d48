#!/usr/bin/env python3
"""peg20: the pours' counter lines as table rows.

Reads the output of the counter tools of tests/peg_lcp_survey.rs
(`pour_3d_counters`, `pour_2d_counters`, run with `PEG_RETRY=N`) from the files
given (or standard input) and prints, per "seed … h …" line: seed, h, max
overlap, counted failures, unconverged solves, row-cap steps, steps keeping a
failed solve, retried steps (and their fraction), sub-steps, uncovered
sub-steps, wall ms per step.

    PEG_RETRY=2 PEG_H=5e-2 PEG_SEEDS=1,2 target/release/deps/peg_lcp_survey-… \\
        --ignored --nocapture --exact pour_3d_counters > d2.log
    python3 benches/scripts/peg20_table.py d2.log
"""
import re
import sys

LINE = re.compile(
    r"seed (?P<seed>\d+) h (?P<h>[0-9.e-]+): PEG max (?P<max>[0-9.e+-]+) (?P<unit>L.), "
    r"failures (?P<f>\d+), fallbacks \d+, unconverged (?P<u>\d+), row-cap steps (?P<rc>\d+), "
    r".*?(?P<ms>[0-9.]+) ms per step \(wall\); steps keeping a failed solve (?P<kept>\d+) of (?P<n>\d+), "
    r"retried steps (?P<r>\d+) \((?P<pct>[0-9.]+) %\), sub-steps (?P<sub>\d+), "
    r"uncovered sub-steps (?P<unc>\d+)"
)


def rows(text):
    for m in LINE.finditer(text):
        yield m.groupdict()


def main():
    texts = [open(p).read() for p in sys.argv[1:]] or [sys.stdin.read()]
    print("| seed | h | max | failures | unconv. | row-cap | kept of steps | retried (%) | sub | uncovered | ms/step |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for text in texts:
        for r in rows(text):
            print(
                f"| {r['seed']} | {r['h']} | {float(r['max']):.3e} {r['unit']} | {r['f']} | {r['u']} | "
                f"{r['rc']} | {r['kept']} of {r['n']} | {r['r']} ({r['pct']} %) | {r['sub']} | "
                f"{r['unc']} | {r['ms']} |"
            )


if __name__ == "__main__":
    main()
