#!/usr/bin/env python3
"""Runs a gst-check binary's cases as parallel processes, one case each
(GST_CHECKS), so that a GPU suite whose cases take minutes one after the
other fits the GPU machine's time per call:

    scripts/gpu-check-cases.py [--jobs N] [--prefix 'CMD ARGS']
                               [--cases NAME,...] BINARY SOURCE

SOURCE is the binary's C file; its `tcase_add_test (tc, NAME)` lines name
the cases (--cases: only those named, each of which must be one).
test_presets_match_cpu_path runs as one process per preset
(CUDACACHE_TEST_METHODS). --prefix starts each process under a command,
split as a shell would: on GStreamer 1.26, `.gpu126/run-tests [--installed
ROOT] --exec`; under memcheck, `compute-sanitizer --tool memcheck
--leak-check full --error-exitcode 1` or, on 1.26, `.gpu126/run-tests
--wrap 'compute-sanitizer ...' --exec`. The environment is this one's
with the test's own from meson (the build's meson-info/intro-tests.json,
the build found above BINARY), and a registry per process.
Prints a line per process as it ends, its last lines when it failed, and
'N passed, N failed'; exits non-zero when one failed."""
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

PRESETS = ("nearest", "bilinear", "area", "antialias")

args = sys.argv[1:]
jobs, prefix, only = 8, [], []
while args and args[0].startswith("--"):
    a = args.pop(0)
    if a == "--jobs":
        jobs = int(args.pop(0))
    elif a == "--prefix":
        prefix = shlex.split(args.pop(0))
    elif a == "--cases":
        only = args.pop(0).split(",")
    else:
        sys.exit(__doc__)
if len(args) != 2:
    sys.exit(__doc__)
binary, source = os.path.abspath(args[0]), args[1]
cases = re.findall(r"tcase_add_test\s*\(\s*\w+\s*,\s*(\w+)\s*\)",
                   open(source).read())
if not cases:
    sys.exit(f"gpu-check-cases: no tcase_add_test in {source}")
unknown = [c for c in only if c not in cases]
if unknown:
    sys.exit(f"gpu-check-cases: no case {', '.join(unknown)} in {source}")
if only:
    cases = [c for c in cases if c in only]
runs = []
for c in cases:
    if c == "test_presets_match_cpu_path":
        runs += [(c, {"CUDACACHE_TEST_METHODS": m}) for m in PRESETS]
    else:
        runs.append((c, {}))
scratch = tempfile.mkdtemp(prefix="gpu-check-cases.")
test_env = {}
build = os.path.dirname(binary)
while build != "/" and not os.path.isdir(os.path.join(build, "meson-info")):
    build = os.path.dirname(build)
if build != "/":
    for t in json.load(open(os.path.join(build, "meson-info", "intro-tests.json"))):
        if t["cmd"] and os.path.abspath(t["cmd"][0]) == binary:
            test_env = t.get("env") or {}


def run(i, case, extra):
    env = dict(os.environ)
    env.update(test_env)
    env.update(extra, GST_CHECKS=case)
    env["GST_REGISTRY"] = os.path.join(scratch, f"{i}.registry")
    start = time.time()
    p = subprocess.run(prefix + [binary], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode(errors="replace"), time.time() - start


failed = 0
with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    futures = {pool.submit(run, i, c, e): (c, e) for i, (c, e) in enumerate(runs)}
    # each line as its process ends: under a time limit, what ended shows
    for f in concurrent.futures.as_completed(futures):
        case, extra = futures[f]
        rc, out, dt = f.result()
        # a case that ran: check's own count, so a name that matched
        # nothing cannot pass
        m = re.search(r"(\d+)%: Checks: (\d+), Failures: (\d+), Errors: (\d+)", out)
        ok = rc == 0 and m is not None and m.group(2) == "1"
        name = case + "".join(f" {v}" for v in extra.values())
        print(f"{'ok  ' if ok else 'FAIL'} {name:<60} {dt:7.1f}s", flush=True)
        for line in out.splitlines():
            if "conversions against" in line or "SUMMARY" in line:
                print("    " + line.strip())
        if not ok:
            print("\n".join("    " + line for line in out.splitlines()[-30:]))
            failed += 1
print(f"{len(runs) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
