#!/usr/bin/env python3
"""Turn cudacache-bench results into a Markdown report with gnuplot plots.

Usage: tests/bench/report.py RESULTS_DIR

Reads RESULTS_DIR/results.csv (header ``scenario,variant,param,metric,value,unit``)
and, if present, RESULTS_DIR/machine.txt (free text, copied verbatim).  Writes
RESULTS_DIR/report.md with one section per scenario (hit_path, renegotiation,
churn, eviction, memory, then any unknown scenario as a plain table): a table
of every metric per (variant, param), ratio lines of our pool against its
reference, and clustered bar charts rendered to RESULTS_DIR/*.png by the
``gnuplot`` binary (the plotted numbers are kept next to them as *.dat).
Without gnuplot the plots are skipped with a warning and the report says so.
Standard library only; exits non-zero if results.csv is missing or malformed.
"""

import csv
import math
import os
import re
import shutil
import subprocess
import sys

HEADER = ["scenario", "variant", "param", "metric", "value", "unit"]
ORDER = ["hit_path", "renegotiation", "churn", "eviction", "memory"]
RATIO_METRICS = ["median_us", "p99_us", "max_us", "mean_us", "fps", "peak_device_mib"]
US = [m for m in RATIO_METRICS if m.endswith("_us")]

# scenario -> [(numerator, denominator, metrics, phrase)]; the ratio is num/den.
RATIOS = {
    "hit_path": [
        ("cudacachepool", "videobufferpool", RATIO_METRICS, "{r} the system-memory floor"),
        ("cudacachepool", "cudabufferpool", RATIO_METRICS, "{r} stock cudabufferpool"),
    ],
    "renegotiation": [("stock", "ours", US, "ours is {r} faster"),
                      ("ours", "stock", ["fps"], "ours is {r} faster")],
    "churn": [("ours", "stock", ["fps"], "{r} the stock fps")],
    "eviction": [("inline_free", "cache_async_free", US,
                  "inline free is {r} the cache's async free")],
    "memory": [("ours", "stock", ["peak_device_mib"], "ours peaks at {r} of stock")],
}
# Smoke mode (no CUDA): only systempool and videobufferpool are measured.
SMOKE_RATIOS = [("systempool", "videobufferpool", RATIO_METRICS, "{r} videobufferpool")]

# (scenario, png basename, metrics, log y wanted)
PLOTS = [
    ("hit_path", "hit_path", ["median_us", "p99_us"], False),
    ("renegotiation", "renegotiation", ["median_us"], True),
    ("churn", "churn_fps", ["fps"], False),
    ("churn", "churn_allocs", ["allocs_per_1000"], False),
    ("eviction", "eviction", ["max_us"], True),
    ("memory", "memory", ["peak_device_mib"], False),
]


def die(msg):
    sys.stderr.write("report.py: error: %s\n" % msg)
    sys.exit(1)


def warn(msg):
    sys.stderr.write("report.py: warning: %s\n" % msg)


class Scenario:
    """All rows of one scenario, with first-seen order preserved."""

    def __init__(self, name):
        self.name = name
        self.values = {}  # (variant, param, metric) -> value
        self.rows = []  # (variant, param)
        self.metrics = []
        self.units = {}  # metric -> unit (first seen)

    def add(self, variant, param, metric, value, unit):
        if (variant, param) not in self.rows:
            self.rows.append((variant, param))
        if metric not in self.metrics:
            self.metrics.append(metric)
            self.units[metric] = unit
        self.values[(variant, param, metric)] = value

    def get(self, variant, param, metric):
        return self.values.get((variant, param, metric))

    def variants(self, metrics=None):
        return uniq(v for v, p in self.rows
                    if metrics is None or any(self.get(v, p, m) is not None for m in metrics))

    def params(self, metrics=None):
        return uniq(p for v, p in self.rows
                    if metrics is None or any(self.get(v, p, m) is not None for m in metrics))


def uniq(items):
    out = []
    for i in items:
        if i not in out:
            out.append(i)
    return out


def load(path):
    if not os.path.isfile(path):
        die("%s not found" % path)
    scenarios = {}
    seen = set()
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or [h.strip() for h in header] != HEADER:
            die("%s: first line must be the header '%s', got %r"
                % (path, ",".join(HEADER), ",".join(header or [])))
        for row in reader:
            lineno = reader.line_num
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            if len(row) != len(HEADER):
                die("%s:%d: expected %d fields, got %d: %r"
                    % (path, lineno, len(HEADER), len(row), ",".join(row)))
            scen, variant, param, metric, value, unit = (x.strip() for x in row)
            if not (scen and variant and param and metric):
                die("%s:%d: empty scenario, variant, param or metric" % (path, lineno))
            try:
                val = float(value)
            except ValueError:
                val = float("nan")
            if not math.isfinite(val):
                die("%s:%d: value %r is not a finite number" % (path, lineno, value))
            key = (scen, variant, param, metric)
            if key in seen:
                warn("%s:%d: duplicate %s; the last value wins" % (path, lineno, "/".join(key)))
            seen.add(key)
            scenarios.setdefault(scen, Scenario(scen)).add(variant, param, metric, val, unit)
    if not scenarios:
        die("%s has no data rows" % path)
    known = [scenarios[s] for s in ORDER if s in scenarios]
    return known + [sc for name, sc in scenarios.items() if name not in ORDER]


def fmt(v):
    """3 significant digits below 100, integers otherwise."""
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.0f" % v
    return "%.3g" % v


def fmt_ratio(r):
    return ("%.2fx" if r < 10 else "%.1fx") % r


def table(sc):
    cols = ["%s (%s)" % (m, sc.units[m]) if sc.units[m] else m for m in sc.metrics]
    lines = ["| variant | param | " + " | ".join(cols) + " |",
             "|---|---|" + "---:|" * len(cols)]
    for v, p in sc.rows:
        cells = [fmt(sc.get(v, p, m)) for m in sc.metrics]
        lines.append("| %s | %s | %s |" % (v, p, " | ".join(cells)))
    return lines


def ratio_lines(sc):
    specs = RATIOS.get(sc.name, [])
    variants = sc.variants()
    if sc.name == "hit_path" and "cudacachepool" not in variants:
        specs = SMOKE_RATIOS
    lines = []
    for param in sc.params():
        where = "" if param == "-" else param + ", "
        for num, den, metrics, phrase in specs:
            for m in [m for m in sc.metrics if m in metrics]:
                a, b = sc.get(num, param, m), sc.get(den, param, m)
                if a is None or b is None or b == 0:
                    continue
                text = phrase.format(r=fmt_ratio(a / b))
                lines.append("- %s%s: %s / %s = %s" % (where, m, num, den, text))
        if sc.name == "churn":
            allocs = ["%s %s" % (v, fmt(sc.get(v, param, "allocs_per_1000")))
                      for v in ("ours", "stock")
                      if sc.get(v, param, "allocs_per_1000") is not None]
            if allocs:
                lines.append("- %sallocs_per_1000: %s" % (where, ", ".join(allocs)))
    return lines


def gp_str(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def terminal():
    try:
        ok = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        ok = False
    return "set terminal pngcairo size 900,500" if ok else "set terminal png size 900,500"


def plot(outdir, term, sc, name, metrics, logy):
    """Write NAME.dat and render NAME.png; return its Markdown embed or None."""
    metrics = [m for m in metrics if m in sc.metrics]
    variants = sc.variants(metrics)
    params = sc.params(metrics)
    if not metrics or not variants:
        return None
    clusters = [(p, m) for p in params for m in metrics
                if any(sc.get(v, p, m) is not None for v in variants)]
    values = [sc.get(v, p, m) for p, m in clusters for v in variants]
    logy = logy and all(x > 0 for x in values if x is not None)
    with open(os.path.join(outdir, name + ".dat"), "w", encoding="utf-8") as f:
        f.write("# param metric %s (then the same as label text)\n" % " ".join(variants))
        for p, m in clusters:
            vals = [sc.get(v, p, m) for v in variants]
            f.write(" ".join([gp_str(p), gp_str(m)] + ["?" if x is None else repr(x) for x in vals]
                             + [gp_str(fmt(x)) for x in vals]) + "\n")
    # Cluster label: the metric, the param, or both on two lines.
    if len(metrics) > 1 and len(params) == 1 or params == ["-"]:
        xtic, xlabel = "xtic(2)", "metric"
    elif len(metrics) == 1:
        xtic, xlabel = "xtic(1)", "param"
    else:
        xtic, xlabel = 'xtic(stringcolumn(1)."\\n".stringcolumn(2))', ""  # no room
    units = uniq(sc.units[m] for m in metrics)
    ylabel = "%s (%s)" % (", ".join(metrics), ", ".join(units))
    title = "%s: %s by variant" % (sc.name, ", ".join(metrics))
    if len(params) == 1 and params[0] != "-" and len(metrics) > 1:
        title += " (%s)" % params[0]
    n, gap = len(variants), 1
    dat = gp_str(name + ".dat")
    bars, labels = [], []
    for i, v in enumerate(variants):
        col = i + 3
        bars.append("%s using %d:%s title %s" % (dat if i == 0 else "''", col, xtic, gp_str(v)))
        off = (i - (n - 1) / 2.0) / (n + gap)
        labels.append("'' using ($0%+.4f):%d:%d with labels offset 0,0.7 notitle"
                      % (off, col, col + n))
    script = "\n".join([
        term, "set termoption noenhanced", "set output %s" % gp_str(name + ".png"),
        "set title %s" % gp_str(title), "set ylabel %s" % gp_str(ylabel),
        "set xlabel %s" % gp_str(xlabel), "set xtics nomirror",
        "set style data histograms", "set style histogram clustered gap %d" % gap,
        "set style fill solid 0.8 border -1", "set boxwidth 0.9",
        'set datafile missing "?"', "set grid ytics", "set key outside right top",
        "set logscale y" if logy else "set yrange [0:*]\nset offset 0,0,graph 0.08,0",
        "plot " + ", ".join(bars + labels), ""])
    res = subprocess.run(["gnuplot"], input=script, cwd=outdir, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    png = os.path.join(outdir, name + ".png")
    if res.returncode != 0 or not os.path.isfile(png) or os.path.getsize(png) == 0:
        warn("gnuplot failed for %s.png: %s" % (name, res.stderr.strip()))
        return None
    return "![%s: %s](%s.png)" % (sc.name, ", ".join(metrics), name)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: %s RESULTS_DIR\n" % argv[0])
        return 2
    outdir = argv[1]
    if not os.path.isdir(outdir):
        die("%s is not a directory" % outdir)
    scenarios = load(os.path.join(outdir, "results.csv"))

    have_gnuplot = shutil.which("gnuplot") is not None
    if not have_gnuplot:
        warn("gnuplot not found in PATH; skipping plots (apt-get install gnuplot-nox)")
    term = terminal() if have_gnuplot else None

    out = ["# gst-cuda-cache benchmark", ""]
    machine = os.path.join(outdir, "machine.txt")
    if os.path.isfile(machine):
        with open(machine, encoding="utf-8", errors="replace") as f:
            text = f.read().rstrip("\n")
        fence = "`" * max(3, 1 + max((len(r) for r in re.findall("`+", text)), default=0))
        out += ["## Machine", "", fence, text, fence, ""]
    if not have_gnuplot:
        out += ["*Plots were skipped: gnuplot was not found when this report was made.*", ""]

    for sc in scenarios:
        out += ["## %s" % sc.name, ""] + table(sc) + [""]
        ratios = ratio_lines(sc)
        if ratios:
            out += ratios + [""]
        if have_gnuplot:
            for scen, name, metrics, logy in PLOTS:
                if scen == sc.name:
                    embed = plot(outdir, term, sc, name, metrics, logy)
                    if embed:
                        out += [embed, ""]

    report = os.path.join(outdir, "report.md")
    with open(report, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    print("wrote %s" % report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
