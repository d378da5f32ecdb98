#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""Nsight Compute's gpu__time_duration.sum rows (`ncu --metrics
gpu__time_duration.sum --csv`) on standard input, one line out, for the
scripts beside this one:

    ncu_times.py median LABEL          (kernel-times.sh)
        the median launch in microseconds, the launches seen, the kernels
    ncu_times.py per-frame LABEL N     (method-kernel-times.sh)
        every launch summed and divided by N frames, the launches seen
    ncu_times.py batch SINGLE.csv BATCH.csv N SLOTS    (kernel-times.sh)
        two runs of N frames each: one frame at a time (SINGLE) and N
        batches of SLOTS frames (BATCH); each run's launches summed and
        divided by N, the batch against the frame alone and against SLOTS
        times it (three lines)
    ncu_times.py profile LABEL         (method-kernel-times.sh, PROFILE=1)
        rows of PROFILE_METRICS: per kernel, each metric's median over
        its launches, one line
    ncu_times.py metrics               (method-kernel-times.sh, PROFILE=1)
        PROFILE_METRICS' names, as ncu --metrics takes them
"""

import csv
import statistics
import sys

# microseconds per unit, as ncu prints them with or without
# --print-units base
SCALE = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0,
         "msecond": 1e3, "ms": 1e3}


def metric_rows(rows):
    """(kernel name, metric, unit, value as ncu prints it) of every row of
    ncu's CSV"""
    col = None
    for row in rows:
        if "Metric Name" in row:
            col = {name: i for i, name in enumerate(row)}
            continue
        if col is None or len(row) < len(col):
            continue
        yield (row[col["Kernel Name"]].split("(")[0], row[col["Metric Name"]],
               row[col["Metric Unit"]], row[col["Metric Value"]])


def launches(rows):
    """(kernel name, microseconds) of every launch"""
    for name, metric, unit, value in metric_rows(rows):
        if metric == "gpu__time_duration.sum":
            yield name, float(value.replace(",", "")) * SCALE.get(unit, 1.0)


# what PROFILE=1 of method-kernel-times.sh asks Nsight Compute for, with
# the names its lines give them: the duration, the warp instructions
# executed, achieved and theoretical occupancy (warps active against the
# most an SM holds), DRAM throughput against its peak, registers a thread
PROFILE_METRICS = [
    ("gpu__time_duration.sum", "us"),
    ("smsp__inst_executed.sum", "inst"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occ%"),
    ("sm__maximum_warps_per_active_cycle_pct", "theo%"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram%"),
    ("launch__registers_per_thread", "regs"),
]


def profile(rows):
    """{kernel name: {metric: [values of its launches]}} of ncu's CSV"""
    out = {}
    for name, metric, unit, text in metric_rows(rows):
        try:
            value = float(text.replace(",", ""))
        except ValueError:
            continue
        if metric == "gpu__time_duration.sum":
            value *= SCALE.get(unit, 1.0)
        out.setdefault(name, {}).setdefault(metric, []).append(value)
    return out


def profile_lines(label, rows):
    """one line per kernel of `ncu_times.py profile`"""
    lines = []
    for name, metrics in sorted(profile(rows).items()):
        cells = []
        for metric, short in PROFILE_METRICS:
            values = metrics.get(metric)
            if not values:
                continue
            m = statistics.median(values)
            cells.append("%s=%s" % (short, "%.2fM" % (m / 1e6)
                                    if short == "inst" else "%.4g" % m))
        lines.append("%s %s %s" % (label, name, " ".join(cells)))
    return lines or ["%s no kernel seen" % label]


def per_unit(path, n):
    """(microseconds, launches, kernel names) of the run in @path, per
    one of its @n frames or batches"""
    with open(path, newline="") as f:
        seen = list(launches(csv.reader(f)))
    return (sum(us for _, us in seen) / n, len(seen) / n,
            ",".join(sorted({name for name, _ in seen})))


def batch(single_path, batch_path, n, slots):
    """the lines of `ncu_times.py batch`"""
    s_us, s_launches, s_names = per_unit(single_path, n)
    b_us, b_launches, b_names = per_unit(batch_path, n)
    if not s_launches or not b_launches:
        return ["     n/a               no kernel seen in %s" %
                (single_path if not s_launches else batch_path)]
    ratio = b_us / s_us
    return [
        "%8.2f us  %5.2f launches a frame   %s  one frame alone" % (
            s_us, s_launches, s_names),
        "%8.2f us  %5.2f launches a batch   %s  a batch of %d" % (
            b_us, b_launches, b_names, slots),
        "%8.2f us  a slot; the batch %.2fx one frame alone (target: at most "
        "%dx): %s" % (b_us / slots, ratio, slots,
                      "met" if ratio <= slots else "missed")]


def main(argv):
    if argv[1] == "batch":
        print("\n".join(batch(argv[2], argv[3], int(argv[4]), int(argv[5]))))
        return
    if argv[1] == "metrics":
        print(",".join(m for m, _ in PROFILE_METRICS))
        return
    mode, label = argv[1], argv[2]
    if mode == "profile":
        print("\n".join(profile_lines(label, csv.reader(sys.stdin))))
        return
    seen = list(launches(csv.reader(sys.stdin)))
    times = [us for _, us in seen]
    if mode == "per-frame":
        print("%s %.3f %d" % (label, sum(times) / int(argv[3]), len(times)))
    elif times:
        print("%8.2f us  %3d launches  %-40s %s" % (
            statistics.median(times), len(times),
            ",".join(sorted({name for name, _ in seen})), label))
    else:
        print("     n/a               no kernel seen        %s" % label)


if __name__ == "__main__":
    main(sys.argv)
