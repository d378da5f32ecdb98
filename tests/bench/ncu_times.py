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
"""

import csv
import statistics
import sys

# microseconds per unit, as ncu prints them with or without
# --print-units base
SCALE = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0,
         "msecond": 1e3, "ms": 1e3}


def launches(rows):
    """(kernel name, microseconds) of every launch"""
    col = None
    for row in rows:
        if "Metric Name" in row:
            col = {name: i for i, name in enumerate(row)}
            continue
        if col is None or len(row) < len(col) or \
                row[col["Metric Name"]] != "gpu__time_duration.sum":
            continue
        value = float(row[col["Metric Value"]].replace(",", ""))
        yield (row[col["Kernel Name"]].split("(")[0],
               value * SCALE.get(row[col["Metric Unit"]], 1.0))


def main(argv):
    mode, label = argv[1], argv[2]
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
