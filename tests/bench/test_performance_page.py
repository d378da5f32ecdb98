#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""docs/performance.md shows the run kept in docs/performance/: its Results
section is what tests/bench/report.py makes of that run's results.csv,
machine.txt and ncu/*.csv, the plots it embeds are committed beside them
with the data they are drawn from, and every file the page links to is in
the tree. Needs neither a GPU nor gnuplot: the report's text is compared,
the plots' data files too, the pictures only for being there."""

import os
import re
import shutil
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DOCS = os.path.join(ROOT, "docs")
PAGE = os.path.join(DOCS, "performance.md")
RUN = os.path.join(DOCS, "performance")

sys.path.insert(0, HERE)
import report  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def page_text():
    with open(PAGE) as f:
        return f.read()


def results_section(text):
    """What lies between the page's results markers, as report.py
    writes it there"""
    _head, rest = text.split(report.BEGIN + "\n", 1)
    body, _tail = rest.split(report.END, 1)
    return body


class PerformancePage(unittest.TestCase):
    def test_results_are_the_committed_run(self):
        plotted = []

        def data_only(run_dir, name, _title, _ylabel, labels, series,
                      _logscale):
            # the .dat gnuplot would draw from; the picture is the tree's
            plotted.append(name)
            report.plot_data(run_dir, name, labels, series)
            return os.path.exists(os.path.join(RUN, name + ".png"))

        with tempfile.TemporaryDirectory() as tmp:
            for name in ("results.csv", "machine.txt"):
                shutil.copy(os.path.join(RUN, name), tmp)
            shutil.copytree(os.path.join(RUN, "ncu"), os.path.join(tmp, "ncu"))
            with mock.patch.object(report, "plot", data_only):
                text = report.report(tmp, "performance/")
            self.assertEqual(sorted(plotted), ["busy_fps", "convert_fps"])
            for name in plotted:
                with open(os.path.join(tmp, name + ".dat")) as f:
                    made = f.read()
                with open(os.path.join(RUN, name + ".dat")) as f:
                    self.assertEqual(f.read(), made, name + ".dat")
        self.assertNotIn("Smoke run", text)
        self.assertIn("### 4. Kernel time per conversion", text)
        self.assertEqual(results_section(page_text()), text)

    def test_figures_are_pictures(self):
        images = re.findall(r"!\[[^]]*\]\(([^)]+)\)", page_text())
        self.assertEqual(sorted(images), ["performance/busy_fps.png",
                                          "performance/convert_fps.png"])
        for image in images:
            with open(os.path.join(DOCS, image), "rb") as f:
                self.assertEqual(f.read(len(PNG_MAGIC)), PNG_MAGIC, image)

    def test_links_resolve(self):
        for target in re.findall(r"\]\(([^)]+)\)", page_text()):
            if re.match(r"[a-z]+:", target):
                continue
            path = os.path.join(DOCS, target.split("#")[0])
            self.assertTrue(os.path.exists(path), target)


if __name__ == "__main__":
    unittest.main(verbosity=2)
