#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the gst-cuda-cache authors
"""The batch targets' figures (docs/performance.md, "Batches"), from
synthetic runs: report.py's section 7 (the batch scenario's frames per
second, batched over separate within each repetition; Nsight Compute's
batch of 8 against one frame alone), judged at each target's edge, and
absent from a run without them; ncu_times.py's batch lines, as
kernel-times.sh prints them, and its profile lines (method-kernel-times.sh
PROFILE=1)."""

import csv
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ncu_times  # noqa: E402
import report  # noqa: E402

NCU_HEADER = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
SECTION = "### 7. Batches of 8 sources (cudacachebatch)"


def write_ncu(path, launches):
    """launches: [(kernel, nanoseconds)]"""
    with open(path, "w") as f:
        f.write(NCU_HEADER)
        for i, (name, ns) in enumerate(launches):
            f.write('"%d","%s(Params)","gpu__time_duration.sum","nsecond",'
                    '"%s"\n' % (i, name, "{:,}".format(ns)))


def batch_rows(batched, separate, equal=1):
    rows = []
    for rep, (a, b) in enumerate(zip(batched, separate), 1):
        for variant, fps in (("batched", a), ("separate", b)):
            rows += [("batch", variant, "8 sources", rep, "fps", fps, "fps"),
                     ("batch", variant, "8 sources", rep, "frames", 16000,
                      "count"),
                     ("batch", variant, "8 sources", rep, "batches", 2000,
                      "count")]
    rows.append(("batch", "check", "8 sources", "-", "batches_equal", equal,
                 "flag"))
    return rows


def make_report(rows, frames=0, single_ns=None, batch_ns=None,
                machine="- GPU: test\n"):
    """report.py's text of a run of @rows and, per repetition, one
    frame's launches (single_ns) and one batch's (batch_ns) times @frames"""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "results.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(report.HEADER)
            w.writerows(rows)
        with open(os.path.join(tmp, "machine.txt"), "w") as f:
            f.write(machine)
        if frames:
            ncu = os.path.join(tmp, "ncu")
            os.makedirs(ncu)
            with open(os.path.join(ncu, "frames"), "w") as f:
                f.write("%d\n" % frames)
            for rep, (s, b) in enumerate(zip(single_ns, batch_ns), 1):
                write_ncu(os.path.join(ncu, "f32nchw-ours-%d.csv" % rep),
                          [("gst_cuda_cache_tensor", ns) for ns in s] * frames)
                write_ncu(os.path.join(ncu, "batch8-ours-%d.csv" % rep),
                          [("gst_cuda_cache_tensor_batch", ns) for ns in b] *
                          frames)
        return report.report(tmp)


def target_line(text, start):
    lines = [l for l in text.splitlines() if l.startswith("| " + start)]
    return lines[0] if lines else None


class BatchReport(unittest.TestCase):
    def test_absent_without_batch_figures(self):
        rows = [("convert", "ours", "K=never", 1, "fps", 100, "fps")]
        self.assertNotIn("Batches", make_report(rows))

    def test_fps_ratio_is_the_median_of_the_repetitions(self):
        # per repetition 1.5x, 2.0x, 1.2x: median 1.5x, met at the edge,
        # although the medians' ratio is 160/100
        text = make_report(batch_rows([150, 160, 120], [100, 80, 100]))
        self.assertIn(SECTION, text)
        self.assertIn("| batched | 150 [120, 160] | 16000 [16000, 16000] |",
                      text)
        self.assertIn("batched/separate, per repetition: 1: 1.50x, 2: 2.00x, "
                      "3: 1.20x.", text)
        self.assertIn("equal byte for byte", text)
        line = target_line(text, "8 sources: batched fps")
        self.assertIn("1.50x", line)
        self.assertTrue(line.endswith("| met |"), line)
        text = make_report(batch_rows([149, 160, 120], [100, 80, 100], 0))
        self.assertTrue(target_line(text, "8 sources: batched fps")
                        .endswith("| **missed** |"))
        self.assertIn("**different**", text)

    def test_smoke_runs_are_not_judged(self):
        text = make_report(batch_rows([300, 300], [100, 100]),
                           machine="- memory: system (smoke run: no timing "
                           "claims)\n")
        self.assertTrue(target_line(text, "8 sources: batched fps")
                        .endswith("| not judged: smoke run |"))

    def test_kernel_time_of_a_batch_against_one_frame(self):
        # a frame: 2 launches, 10 us; a batch: 2 launches, 80 us: 8.00x,
        # met at the edge; 10 us a slot
        text = make_report(batch_rows([1], [1]), frames=4,
                           single_ns=[[4000, 6000]] * 3,
                           batch_ns=[[30000, 50000], [30000, 50000],
                                     [30000, 50100]])
        self.assertIn("| a batch of 8 slots | 80.0 [80.0, 80.1] | 2.00 a batch "
                      "| gst_cuda_cache_tensor_batch |", text)
        self.assertIn("| one frame alone (cudacacheconvert) | 10.0 [10.0, 10.0] "
                      "| 2.00 a frame |", text)
        self.assertIn("| a slot of the batch | 10.0 |", text)
        line = target_line(text, "GPU time of a batch of 8")
        self.assertIn("80.0 vs 10.0 us (8.00x)", line)
        self.assertTrue(line.endswith("| met |"), line)
        text = make_report(batch_rows([1], [1]), frames=4,
                           single_ns=[[4000, 6000]],
                           batch_ns=[[30000, 50100]])
        self.assertTrue(target_line(text, "GPU time of a batch of 8")
                        .endswith("| **missed** |"))


class NcuTimesBatch(unittest.TestCase):
    def lines(self, single, batch, frames):
        with tempfile.TemporaryDirectory() as tmp:
            s, b = os.path.join(tmp, "s.csv"), os.path.join(tmp, "b.csv")
            write_ncu(s, single * frames)
            write_ncu(b, batch * frames)
            return ncu_times.batch(s, b, frames, 8)

    def test_launches_summed_per_batch(self):
        out = self.lines([("k", 10800)], [("kb", 20000), ("kb", 20000)], 5)
        self.assertEqual(len(out), 3)
        self.assertTrue(out[0].startswith("   10.80 us   1.00 launches a frame"),
                        out[0])
        self.assertTrue(out[1].startswith("   40.00 us   2.00 launches a batch"),
                        out[1])
        self.assertIn("5.00 us  a slot; the batch 3.70x one frame alone", out[2])
        self.assertTrue(out[2].endswith(": met"), out[2])

    def test_target_edge(self):
        self.assertTrue(self.lines([("k", 10000)], [("kb", 80000)], 3)[2]
                        .endswith("8.00x one frame alone (target: at most "
                                  "8x): met"))
        self.assertTrue(self.lines([("k", 10000)], [("kb", 80100)], 3)[2]
                        .endswith(": missed"))

    def test_no_kernel_seen(self):
        out = self.lines([("k", 10000)], [], 3)
        self.assertEqual(len(out), 1)
        self.assertIn("no kernel seen", out[0])


class NcuTimesProfile(unittest.TestCase):
    """`ncu_times.py profile`: method-kernel-times.sh PROFILE=1's line per
    kernel, each counter the median of its launches"""

    def rows(self, launches):
        out = [["ID", "Kernel Name", "Metric Name", "Metric Unit",
                "Metric Value"]]
        for i, (name, metrics) in enumerate(launches):
            for metric, unit, value in metrics:
                out.append([str(i), name + "(PresetConvert)", metric, unit,
                            value])
        return out

    @staticmethod
    def launch(ns, inst):
        return [("gpu__time_duration.sum", "nsecond", "{:,}".format(ns)),
                ("smsp__inst_executed.sum", "inst", "{:,}".format(inst)),
                ("launch__registers_per_thread", "register/thread", "32")]

    def test_medians_per_kernel(self):
        launch = self.launch
        lines = ncu_times.profile_lines("nearest", self.rows([
            ("gst_cuda_cache_resample_near_packed", launch(9000, 2000000)),
            ("gst_cuda_cache_resample_near_packed", launch(7000, 1800000)),
            ("gst_cuda_cache_resample_near_packed", launch(7600, 1760000)),
            ("KernelMain", launch(5500, 1090000))]))
        self.assertEqual(lines, [
            "nearest KernelMain us=5.5 inst=1.09M regs=32",
            "nearest gst_cuda_cache_resample_near_packed us=7.6 "
            "inst=1.80M regs=32"])

    def test_no_kernel_seen(self):
        self.assertEqual(ncu_times.profile_lines("stock", self.rows([])),
                         ["stock no kernel seen"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
