#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""Pools the parts of one benchmark run into one run folder (method:
docs/performance.md): a run is made of parts, each scripts/gpu-bench.sh on
its own start of the GPU machine, so that the spread a run states covers
what changes from one machine start to the next.

    merge-parts.py OUT PART_DIR [PART_DIR ...]

OUT/results.csv holds every part's repetitions, renumbered so that they
follow each other (part A's 1..3, part B's 4..6, ...): report.py and
compare-runs.py then take the median and [min, max] over all of them.
Per-switch distributions (rep "all") stay the first part's; the others
are kept as rep "B-all", ... Nsight Compute's files are renumbered the
same way; machine.txt and bench.log are the parts' one after the other.
Standard library only."""

import csv
import os
import re
import shutil
import string
import sys


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    out, parts = sys.argv[1], sys.argv[2:]
    os.makedirs(os.path.join(out, "ncu"), exist_ok=True)
    rows, header, offset, frames = [], None, 0, None
    machine, log = [], []

    for i, part in enumerate(parts):
        letter = string.ascii_uppercase[i]
        with open(os.path.join(part, "results.csv"), newline="") as f:
            reader = csv.reader(f)
            part_header = next(reader)
            if header is None:
                header = part_header
            elif part_header != header:
                sys.stderr.write("merge-parts.py: %s: another header\n" % part)
                return 1
            reps = 0
            for row in reader:
                rep = row[3]
                if rep.isdigit():
                    reps = max(reps, int(rep))
                    row[3] = str(offset + int(rep))
                elif i > 0:
                    row[3] = "%s-%s" % (letter, rep)
                rows.append(row)

        ncu = os.path.join(part, "ncu")
        if os.path.isdir(ncu):
            part_frames = open(os.path.join(ncu, "frames")).read().strip()
            if frames is not None and part_frames != frames:
                sys.stderr.write("merge-parts.py: %s: other frames\n" % part)
                return 1
            frames = part_frames
            for name in sorted(os.listdir(ncu)):
                m = re.match(r"(\w+-(?:ours|stock))-(\d+)(\.\w+)$", name)
                if m:
                    shutil.copy(os.path.join(ncu, name), os.path.join(
                        out, "ncu", "%s-%d%s" % (m.group(1),
                            offset + int(m.group(2)), m.group(3))))
        offset += reps

        text = open(os.path.join(part, "machine.txt")).read().strip()
        machine.append("- part %s:\n%s" % (letter, "\n".join(
            "  " + line for line in text.splitlines())))
        if os.path.exists(os.path.join(part, "bench.log")):
            log.append("==== part %s\n%s" % (letter,
                       open(os.path.join(part, "bench.log")).read()))

    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    if frames is not None:
        with open(os.path.join(out, "ncu", "frames"), "w") as f:
            f.write(frames + "\n")
    with open(os.path.join(out, "machine.txt"), "w") as f:
        f.write("- parts: %d, each on its own start of the GPU machine; "
                "%d repetitions in all\n" % (len(parts), offset))
        f.write("\n".join(machine) + "\n")
    with open(os.path.join(out, "bench.log"), "w") as f:
        f.write("".join(log))
    print("merged %d parts, %d repetitions, into %s" % (len(parts), offset,
                                                      out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
