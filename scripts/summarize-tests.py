#!/usr/bin/env python3
"""Counts test cases from meson's JSON test logs and prints, last,
"N passed, N failed".

gst-check binaries report "Checks: N, Failures: F, Errors: E": each case
counts. A binary that skipped (exit 77: no CUDA device) is listed with its
reason and counts as skipped, never as passed. A valgrind log counts one case
per binary: clean or not; so does an AddressSanitizer log (testlog-asan). --check NAME=ok|fail adds one more case.
A line "SKIP FILE:LINE: why" in a counted test's output (a docs recipe
that needs a GPU) is listed and counted as skipped.
"""
import json
import re
import sys

CHECKS = re.compile(r"Checks: (\d+), Failures: (\d+), Errors: (\d+)")
FAILED_CASE = re.compile(r"^(\S+:\d+:[FE]:\S+:\S+:\d+: .*)$", re.M)
# a case a test skipped inside (the docs' recipes that need a GPU)
SKIPPED_CASE = re.compile(r"^SKIP (\S+:\d+: .*)$", re.M)


def load(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return None


def main(args):
    passed = failed = skipped = 0
    extra = [a[len("--check="):].split("=", 1)
             for a in args if a.startswith("--check=")]
    logs = [a for a in args if not a.startswith("--check=")]

    for n, log in enumerate(logs):
        entries = load(log)
        if entries is None:
            print(f"missing test log {log}")
            failed += 1
            continue
        tool = ("valgrind" if "valgrind" in log else
                "asan" if "asan" in log else None)
        for t in entries:
            name, result = t["name"], t["result"]
            out = t.get("stdout") or ""
            if result == "SKIP":
                reason = out.strip().splitlines()[-1] if out.strip() else ""
                print(f"SKIP {name}: {reason}")
                skipped += 1
                continue
            if tool:
                ok = result == "OK"
                print(f"{'PASS' if ok else 'FAIL'} {tool} {name}")
                passed += ok
                failed += not ok
                continue
            m = CHECKS.findall(out)
            if m:
                checks = sum(int(c) for c, _, _ in m)
                bad = sum(int(f) + int(e) for _, f, e in m)
                for line in FAILED_CASE.findall(out):
                    print(f"FAIL {line}")
                for line in SKIPPED_CASE.findall(out):
                    print(f"SKIP {line}")
                    skipped += 1
                if result != "OK" and bad == 0:
                    bad = 1
                    print(f"FAIL {name}: {result}")
                print(f"{'PASS' if bad == 0 else 'FAIL'} {name}: "
                      f"{checks - min(bad, checks)} of {checks} cases")
                passed += checks - min(bad, checks)
                failed += bad
            else:
                ok = result == "OK"
                print(f"{'PASS' if ok else 'FAIL'} {name}")
                passed += ok
                failed += not ok

    for name, value in extra:
        ok = value == "ok"
        print(f"{'PASS' if ok else 'FAIL'} {name}")
        passed += ok
        failed += not ok

    if skipped:
        print(f"{skipped} skipped (see SKIP lines)")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
