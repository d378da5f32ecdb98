#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that a second benchmark run reproduces the first within the
spread the first one states (docs/performance.md): for every figure
measured in repetitions, Nsight Compute's kernel times included, the second
run's median must fall inside the first run's [min, max].

    compare-runs.py FIRST_RUN_DIR SECOND_RUN_DIR [--markdown FILE]

Prints one line per figure and a closing line 'N reproduced, N outside';
exit status 1 if any figure is outside. With --markdown, writes the same
as a Markdown table."""

import argparse
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import kernel_results  # noqa: E402


def repetitions(path):
    """{(scenario, variant, param, metric): [values of the repetitions]}"""
    figures = {}
    with open(os.path.join(path, "results.csv")) as f:
        for row in csv.DictReader(f):
            # per-switch distributions: "all" of the first part, "B-all",
            # "C-all", ... of the others; reported, not compared
            if row["rep"] == "all" or row["rep"].endswith("-all"):
                continue
            key = (row["scenario"], row["variant"], row["param"], row["metric"])
            figures.setdefault(key, []).append(float(row["value"]))
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--markdown")
    args = parser.parse_args()

    first, second = repetitions(args.first), repetitions(args.second)
    rows, outside = [], 0
    for key in sorted(first):
        if key not in second or len(first[key]) < 2:
            continue
        lo, hi = min(first[key]), max(first[key])
        m1, m2 = statistics.median(first[key]), statistics.median(second[key])
        ok = lo <= m2 <= hi
        outside += not ok
        rows.append((" / ".join(key), "%.4g [%.4g, %.4g]" % (m1, lo, hi),
                     "%.4g" % m2, "yes" if ok else "no"))

    k1, _ = kernel_results(args.first)
    k2, _ = kernel_results(args.second)
    for key in sorted(k1 or {}):
        if key not in (k2 or {}):
            continue
        t1, t2 = k1[key]["us"], k2[key]["us"]
        ok = t1.min <= t2.median <= t1.max
        outside += not ok
        rows.append(("kernel time %s / %s, us" % key,
                     "%.4g [%.4g, %.4g]" % (t1.median, t1.min, t1.max),
                     "%.4g" % t2.median, "yes" if ok else "no"))

    for r in rows:
        print("%-70s %-32s %-10s %s" % r)
    closing = "%d reproduced, %d outside" % (len(rows) - outside, outside)
    print(closing)

    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| figure | first run: median [min, max] | second run: "
                    "median | within |\n|---|---|---|---|\n")
            for r in rows:
                f.write("| %s | %s | %s | %s |\n" % r)
            f.write("\n%s.\n" % closing)

    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
