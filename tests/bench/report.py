#!/usr/bin/env python3
"""Turn a benchmark run into a Markdown report (method: docs/performance.md).

Usage: tests/bench/report.py RESULTS_DIR [--doc docs/performance.md]

Reads RESULTS_DIR/results.csv (``scenario,variant,param,rep,metric,value,unit``
from cudacache-bench), RESULTS_DIR/machine.txt and, where scripts/gpu-bench.sh
made them, RESULTS_DIR/ncu/*.csv (Nsight Compute, one run per conversion,
variant and repetition). Writes RESULTS_DIR/report.md: per figure the median
of the repetitions with their min and max, ours against stock, and the
targets of the converter and pipeline issues, met or missed. With --doc, the
same text also replaces what lies between the ``<!-- results:begin -->`` and
``<!-- results:end -->`` lines of that file. Standard library only.
"""

import csv
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys

HEADER = ["scenario", "variant", "param", "rep", "metric", "value", "unit"]
DRAM_GBS = 3350.0  # H100 SXM HBM3 peak, GB/s
NV12_1080P = 1920 * 1080 * 3 // 2
# Nsight Compute cases: (name, what, output bytes)
KERNEL_CASES = [
    ("rgba", "640x640 RGBA, letterboxed", 640 * 640 * 4),
    ("f32nchw", "640x640 float32 NCHW tensor, letterboxed", 640 * 640 * 3 * 4),
    ("u8nhwc", "640x640 uint8 NHWC tensor, letterboxed", 640 * 640 * 3),
]
BATCH_SLOTS = 8  # cudacachebatch's scenario and Nsight Compute's batch8 case
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def die(msg):
    sys.stderr.write("report.py: error: %s\n" % msg)
    sys.exit(1)


def load(path):
    data = {}  # (scenario, variant, param, metric) -> {rep: value}
    order = []
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        die("cannot read %s: %s" % (path, e))
    if not rows or rows[0] != HEADER:
        die("%s: header is not %s" % (path, ",".join(HEADER)))
    for n, row in enumerate(rows[1:], 2):
        if len(row) != len(HEADER):
            die("%s:%d: %d fields" % (path, n, len(row)))
        scenario, variant, param, rep, metric, value, _unit = row
        try:
            v = float(value)
        except ValueError:
            die("%s:%d: not a number: %s" % (path, n, value))
        key = (scenario, variant, param, metric)
        if key not in data:
            data[key] = {}
            order.append(key)
        data[key][rep] = v
    return data, order


class Stat:
    """Median with min and max over repetitions (or one distribution row)."""

    def __init__(self, values):
        self.values = sorted(values)
        self.n = len(values)
        self.median = statistics.median(values) if values else None
        self.min = self.values[0] if values else None
        self.max = self.values[-1] if values else None


def num(x):
    if x is None:
        return "-"
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    if abs(x) >= 1:
        return "%.2f" % x
    return "%.3g" % x


def spread(s):
    if s is None or s.median is None:
        return "-"
    if s.n == 1:
        return num(s.median)
    return "%s [%s, %s]" % (num(s.median), num(s.min), num(s.max))


def ratio(a, b):
    if not a or not b or a.median is None or b.median is None or not b.median:
        return None
    return a.median / b.median


def fmt_ratio(r):
    return "-" if r is None else "%.2fx" % r


class Results:
    def __init__(self, data):
        self.data = data

    def stat(self, scenario, variant, param, metric):
        reps = self.data.get((scenario, variant, param, metric))
        if not reps:
            return None
        return Stat([v for r, v in reps.items()])

    def one(self, scenario, variant, param, metric):
        reps = self.data.get((scenario, variant, param, metric))
        return None if not reps else list(reps.values())[0]

    def params(self, scenario):
        seen = []
        for (s, _v, p, _m) in self.data:
            if s == scenario and p not in seen:
                seen.append(p)
        return seen

    def has(self, scenario):
        return any(k[0] == scenario for k in self.data)


def parse_ncu(path):
    """Kernel launches in one Nsight Compute CSV: [(name, ns)]."""
    launches = []
    with open(path, newline="", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]
    if not lines:
        return launches
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "nsecond")
        scale = {"nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3,
                 "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}.get(unit, 1)
        launches.append((row.get("Kernel Name", "?"), value * scale))
    return launches


def kernel_results(run_dir):
    """{(case, variant): {"us": Stat, "launches": float, "names": set}}"""
    ncu_dir = os.path.join(run_dir, "ncu")
    try:
        with open(os.path.join(ncu_dir, "frames")) as f:
            frames = int(f.read().strip())
    except (OSError, ValueError):
        return {}, 0
    per = {}
    for path in sorted(glob.glob(os.path.join(ncu_dir, "*.csv"))):
        m = re.match(r"(\w+)-(ours|stock)-(\d+)\.csv$", os.path.basename(path))
        if not m:
            continue
        launches = parse_ncu(path)
        if not launches:
            continue
        entry = per.setdefault((m.group(1), m.group(2)),
                               {"us": [], "launches": [], "names": set()})
        entry["us"].append(sum(ns for _n, ns in launches) / frames / 1000.0)
        entry["launches"].append(len(launches) / frames)
        entry["names"].update(n.split("(")[0] for n, _ns in launches)
    out = {}
    for key, e in per.items():
        out[key] = {"us": Stat(e["us"]), "launches": statistics.median(e["launches"]),
                    "names": sorted(e["names"])}
    return out, frames


def plot_data(run_dir, name, labels, series):
    """Writes RUN_DIR/NAME.dat, what a plot is drawn from: a line per label,
    median, min and max of each series. Returns its path.

    series: [(legend, [Stat or None per label])]."""
    dat = os.path.join(run_dir, name + ".dat")
    with open(dat, "w") as f:
        for i, label in enumerate(labels):
            cols = []
            for _legend, stats in series:
                st = stats[i]
                cols += ["%g %g %g" % (st.median, st.min, st.max) if st and st.median
                         else "NaN NaN NaN"]
            f.write('"%s" %s\n' % (label, " ".join(cols)))
    return dat


def plot(run_dir, name, title, ylabel, labels, series, logscale):
    """Clustered bars with min-max error bars, by gnuplot, into RUN_DIR/NAME.png
    (from RUN_DIR/NAME.dat, see plot_data); False without gnuplot."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return False
    dat = plot_data(run_dir, name, labels, series)
    n = len(series)
    width = 0.8 / n
    # the labels once, at the middle of each cluster
    plots = ["'%s' using 0:(NaN):xtic(1) with points notitle" % dat]
    for j, (legend, _stats) in enumerate(series):
        c = 2 + 3 * j
        plots.append("'%s' using ($0%+g):%d:%d:%d:(%g) with boxerrorbars title '%s'"
                     % (dat, (j - (n - 1) / 2.0) * width, c, c + 1, c + 2, width,
                        legend))
    script = "\n".join([
        "set terminal pngcairo size 800,420 font ',10'",
        "set output '%s'" % os.path.join(run_dir, name + ".png"),
        "set title '%s'" % title, "set ylabel '%s'" % ylabel,
        "set style fill solid 0.6 border -1", "set boxwidth %g" % width,
        "set key top right", "set grid ytics",
        "set logscale y" if logscale else "set yrange [0:*]",
        "plot " + ", ".join(plots), ""])
    try:
        subprocess.run([gnuplot], input=script.encode(), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("report.py: warning: gnuplot failed: %s\n" % e)
        return False
    return True


def table(lines, header, rows):
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for r in rows:
        lines.append("| " + " | ".join(r) + " |")
    lines.append("")


def rep_ratios(res, scenario, param, metric, num_variant, den_variant):
    """{rep: num / den} for the repetitions both variants have"""
    a = res.data.get((scenario, num_variant, param, metric), {})
    b = res.data.get((scenario, den_variant, param, metric), {})
    return {r: a[r] / b[r] for r in a if b.get(r)}


def verdict(ok, smoke):
    if smoke:
        return "not judged: smoke run"
    return "met" if ok else "**missed**"


def batch_section(L, res, kernels, ncu_frames, smoke):
    """cudacachebatch against the same conversions one frame at a time:
    its pipelines (scenario batch) and its kernel time (ncu/batch8-*)"""
    batch_k = kernels.get(("batch8", "ours"))
    single_k = kernels.get(("f32nchw", "ours"))
    if not res.has("batch") and not batch_k:
        return
    L.append("### 7. Batches of %d sources (cudacachebatch)" % BATCH_SLOTS)
    L.append("")
    rows = []  # (target, measured, verdict)
    if batch_k and single_k:
        b_us, s_us = batch_k["us"].median, single_k["us"].median
        table(L, ["kernel time, 1080p NV12 to 640x640 float32 NCHW letterboxed",
                  "us", "launches", "kernels"],
              [["a batch of %d slots" % BATCH_SLOTS, spread(batch_k["us"]),
                "%s a batch" % num(batch_k["launches"]),
                ", ".join(batch_k["names"])[:80]],
               ["one frame alone (cudacacheconvert)", spread(single_k["us"]),
                "%s a frame" % num(single_k["launches"]),
                ", ".join(single_k["names"])[:80]],
               ["a slot of the batch", num(b_us / BATCH_SLOTS), "", ""]])
        L.append("Nsight Compute, %d batches and %d frames per run; a batch's "
                 "time is every launch of the run over the batches." % (
                     ncu_frames, ncu_frames))
        L.append("")
        rows.append(("GPU time of a batch of %d at most %dx one frame's alone"
                     % (BATCH_SLOTS, BATCH_SLOTS),
                     "%s vs %s us (%s)" % (num(b_us), num(s_us),
                                           fmt_ratio(b_us / s_us)),
                     verdict(b_us <= BATCH_SLOTS * s_us, smoke)))
    p = "%d sources" % BATCH_SLOTS
    if res.has("batch"):
        per_rep = rep_ratios(res, "batch", p, "fps", "batched", "separate")
        table(L, ["%d sources into one batch" % BATCH_SLOTS, "fps",
                  "frames", "batches"],
              [[v, spread(res.stat("batch", v, p, "fps")),
                spread(res.stat("batch", v, p, "frames")),
                spread(res.stat("batch", v, p, "batches"))]
               for v in ("batched", "separate")])
        L.append("batched/separate, per repetition: %s." % (
            ", ".join("%s: %s" % (r, fmt_ratio(per_rep[r]))
                      for r in sorted(per_rep, key=int)) or "-"))
        # one check per part of the run
        checks = res.data.get(("batch", "check", p, "batches_equal"), {})
        if checks:
            L.append("The two variants' last batches of the first repetition%s: %s." %
                     (" of each part" if len(checks) > 1 else "",
                      "equal byte for byte" if min(checks.values())
                      else "**different**"))
        L.append("")
        if per_rep:
            r = statistics.median(per_rep.values())
            rows.append(("%d sources: batched fps at least 1.5x separate "
                         "pipelines' stacked by the application" % BATCH_SLOTS,
                         "%s (median of the repetitions' ratios)" % fmt_ratio(r),
                         verdict(r >= 1.5, smoke)))
    if rows:
        table(L, ["target", "measured (medians)", ""], [list(r) for r in rows])


def report(run_dir, images=""):
    data, _order = load(os.path.join(run_dir, "results.csv"))
    res = Results(data)
    machine = ""
    try:
        with open(os.path.join(run_dir, "machine.txt")) as f:
            machine = f.read().strip()
    except OSError:
        pass
    smoke = "smoke run" in machine
    kernels, ncu_frames = kernel_results(run_dir)
    L = []
    targets = []  # (issue, target, measured, verdict)

    L.append("Run: results.csv (and ncu/*.csv) of this folder. Each cell is the median of "
             "the alternating repetitions with [min, max]; per-switch figures are the "
             "distribution over every alternated switch. The spread stated for another "
             "run on other machine starts: a figure's [min, max] widened by 20% on each "
             "side where the host's clock times it (frames per second, intervals) and by "
             "1% for kernel times; counts and the ratios within a repetition, not widened "
             "(Method, Reproduction).")
    L.append("")
    if machine:
        L.append(machine)
        L.append("")
    if smoke:
        L.append("**Smoke run on system memory: it checks that the benchmark and this "
                 "report run. Its numbers are not claims.**")
        L.append("")

    # 1. conversion pipelines
    if res.has("convert"):
        L.append("### 1. Conversion pipelines (device-resident source)")
        L.append("")
        rows = []
        for p in res.params("convert"):
            of = res.stat("convert", "ours", p, "fps")
            sf = res.stat("convert", "stock", p, "fps")
            rows.append([p, spread(of), spread(sf), fmt_ratio(ratio(of, sf)),
                         spread(res.stat("convert", "ours", p, "allocs_per_1000")),
                         spread(res.stat("convert", "stock", p, "allocs_per_1000")),
                         spread(res.stat("convert", "ours", p, "cache_misses_per_1000"))])
            if p == "K=never" and of and sf:
                r = ratio(of, sf)
                targets.append(("9", "steady-caps pipeline fps at least stock's",
                                "%s vs %s fps (%s)" % (num(of.median), num(sf.median),
                                                       fmt_ratio(r)),
                                "met" if r >= 1 else "**missed**"))
        table(L, ["caps switch", "ours fps", "stock fps", "ours/stock",
                  "ours allocs/1000", "stock allocs/1000",
                  "ours cache misses/1000 (whole run, warm-up too)"],
              rows)
        ps = res.params("convert")
        if plot(run_dir, "convert_fps", "Conversion pipelines: 1080p-class NV12 to "
                "640x640 RGBA", "frames per second (log)", ps,
                [(v, [res.stat("convert", v, p, "fps") for p in ps])
                 for v in ("ours", "stock")], True):
            L += ["![conversion fps](%sconvert_fps.png)" % images, ""]

    # 2. decode
    if res.has("decode"):
        L.append("### 2. Decode with resolution changes (nvh264dec)")
        L.append("")
        if res.one("decode", "-", "-", "skipped"):
            L.append("Skipped: no CUDA device, nvh264dec, stock converter or stream.")
            L.append("")
        else:
            cmp_ = res.one("decode", "check", "4 sizes", "frames_compared")
            diff = res.one("decode", "check", "4 sizes", "frames_differing")
            L.append("Decoded frames, ours against stock, before conversion: %d compared, "
                     "%d differing." % (cmp_ or 0, diff or 0))
            L.append("")
            p = "4 sizes"
            of = res.stat("decode", "ours", p, "fps")
            sf = res.stat("decode", "stock", p, "fps")
            table(L, ["", "ours (float32 tensor)", "stock (RGBA)", "ours/stock"],
                  [["fps", spread(of), spread(sf), fmt_ratio(ratio(of, sf))],
                   ["allocs/1000", spread(res.stat("decode", "ours", p, "allocs_per_1000")),
                    spread(res.stat("decode", "stock", p, "allocs_per_1000")), ""],
                   ["frames decoded", spread(res.stat("decode", "ours", p, "frames")),
                    spread(res.stat("decode", "stock", p, "frames")), ""]])

    # 3. busy
    if res.has("busy"):
        L.append("### 3. A busy GPU: pipelines in one process on one context")
        L.append("")
        rows = []
        o1 = res.stat("busy", "ours", "steady N=1", "aggregate_fps")
        s1 = res.stat("busy", "stock", "steady N=1", "aggregate_fps")
        for p in res.params("busy"):
            oa = res.stat("busy", "ours", p, "aggregate_fps")
            sa = res.stat("busy", "stock", p, "aggregate_fps")
            rows.append([p, spread(oa), spread(sa), fmt_ratio(ratio(oa, sa)),
                         fmt_ratio(ratio(oa, o1)), fmt_ratio(ratio(sa, s1)),
                         spread(res.stat("busy", "ours", p, "steady_p99_interval_us")),
                         spread(res.stat("busy", "stock", p, "steady_p99_interval_us")),
                         spread(res.stat("busy", "ours", p, "steady_max_interval_us")),
                         spread(res.stat("busy", "stock", p, "steady_max_interval_us")),
                         spread(res.stat("busy", "ours", p, "switching_fps")),
                         spread(res.stat("busy", "stock", p, "switching_fps"))])
        table(L, ["pipelines", "ours aggregate fps", "stock aggregate fps", "ours/stock",
                  "ours vs 1 steady", "stock vs 1 steady",
                  "ours steady p99 interval us", "stock steady p99 interval us",
                  "ours steady max us", "stock steady max us",
                  "ours switching fps", "stock switching fps"], rows)
        ps = res.params("busy")
        if plot(run_dir, "busy_fps", "Pipelines in one process on one context",
                "aggregate frames per second", ps,
                [(v, [res.stat("busy", v, p, "aggregate_fps") for p in ps])
                 for v in ("ours", "stock")], False):
            L += ["![busy GPU](%sbusy_fps.png)" % images, ""]
        one = res.stat("busy", "ours", "steady N=1", "aggregate_fps")
        for n, want in (("4", 3.5), ("8", 6.0)):
            agg = res.stat("busy", "ours", "steady N=%s" % n, "aggregate_fps")
            if one and agg:
                r = ratio(agg, one)
                targets.append(("9", "%s pipelines: aggregate fps at least %.1fx one "
                                "pipeline's" % (n, want),
                                "%s vs %s fps (%s)" % (num(agg.median), num(one.median),
                                                       fmt_ratio(r)),
                                "met" if r >= want else "**missed**"))

    # 4. kernels
    if kernels:
        L.append("### 4. Kernel time per conversion (Nsight Compute, 1080p NV12 in)")
        L.append("")
        rows = []
        for case, what, out_bytes in KERNEL_CASES:
            for variant in ("ours", "stock"):
                k = kernels.get((case, variant))
                if not k:
                    continue
                us = k["us"].median
                gbs = (NV12_1080P + out_bytes) / (us * 1e3) if us else 0
                rows.append([what, variant, spread(k["us"]), num(k["launches"]),
                             "%.0f" % gbs, "%.0f%%" % (100 * gbs / DRAM_GBS),
                             "%.2f" % ((NV12_1080P + out_bytes) / (DRAM_GBS * 1e3)),
                             ", ".join(k["names"])[:80]])
        table(L, ["conversion", "", "us per frame", "launches per frame", "GB/s",
                  "of %.2f TB/s" % (DRAM_GBS / 1000), "DRAM floor us", "kernels"], rows)
        L.append("Bytes counted: the 1080p NV12 frame read once (%d B) plus the output "
                 "written once; %d frames per run." % (NV12_1080P, ncu_frames))
        L.append("")
        o = kernels.get(("rgba", "ours"))
        s = kernels.get(("rgba", "stock"))
        if o and s:
            targets.append(("9", "1080p NV12 to 640x640 RGBA kernel time at most stock's",
                            "%s vs %s us" % (num(o["us"].median), num(s["us"].median)),
                            "met" if o["us"].median <= s["us"].median else "**missed**"))
        f = kernels.get(("f32nchw", "ours"))
        if f:
            targets.append(("9", "1080p NV12 to 640x640 float32 NCHW letterbox at most 8 us",
                            "%s us" % num(f["us"].median),
                            "met" if f["us"].median <= 8 else "**missed**"))

    # 5. renegotiation
    if res.has("renegotiation"):
        L.append("### 5. Renegotiation through the elements")
        L.append("")
        rows = []
        for p in res.params("renegotiation"):
            for v in ("ours", "stock"):
                if res.one("renegotiation", v, p, "median_us") is None:
                    continue
                rows.append([p, v] + [num(res.one("renegotiation", v, p, m)) for m in
                                      ("median_us", "p99_us", "min_us", "max_us")] +
                            ["%d" % res.one("renegotiation", v, p, "samples")])
        table(L, ["push to sink", "", "median us", "p99 us", "min us", "max us", "switches"],
              rows)

    # 6. micro-benchmarks
    for scenario, title in (("micro_hit_path", "Micro-benchmark: pool acquire + release "
                             "at steady caps"),
                            ("micro_pool_switch", "Micro-benchmark: a pool configured for "
                             "the next of 4 caps")):
        if not res.has(scenario):
            continue
        L.append("### 6. %s" % title)
        L.append("")
        rows = []
        for p in res.params(scenario):
            for (s, v, pp, m) in data:
                if s == scenario and pp == p and m == "median_us":
                    rows.append([v] + [num(res.one(s, v, p, mm)) for mm in
                                       ("median_us", "p99_us", "min_us", "max_us")] +
                                ["%d" % res.one(s, v, p, "samples")])
        table(L, ["pool", "median us", "p99 us", "min us", "max us", "samples"], rows)

    # 7. batches
    batch_section(L, res, kernels, ncu_frames, smoke)

    T = ["### Targets (issue 9), as measured by this run", ""]
    if targets and not smoke:
        table(T, ["issue", "target", "measured (medians)", ""],
              [list(t) for t in targets])
    elif smoke:
        T += ["Not judged: smoke run.", ""]
    else:
        T += ["No target could be judged from this run.", ""]
    return "\n".join(T + L).rstrip() + "\n"


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--doc"):
        die("usage: report.py RESULTS_DIR [--doc FILE]")
    run_dir = argv[1]
    with open(os.path.join(run_dir, "report.md"), "w") as f:
        f.write("# Benchmark report\n\n" + report(run_dir))
    print("wrote %s" % os.path.join(run_dir, "report.md"))
    if len(argv) == 4:
        doc = argv[3]
        images = os.path.relpath(run_dir, os.path.dirname(os.path.abspath(doc)))
        text = report(run_dir, images + "/")
        body = open(doc).read()
        if BEGIN not in body or END not in body:
            die("%s has no %s ... %s markers" % (doc, BEGIN, END))
        head, rest = body.split(BEGIN, 1)
        _old, tail = rest.split(END, 1)
        with open(doc, "w") as f:
            f.write(head + BEGIN + "\n" + text + END + tail)
        print("updated %s" % doc)


if __name__ == "__main__":
    main(sys.argv)
