#!/usr/bin/env python3
"""Checks that every object of a built meson tree that includes a generated
header waits for it: the header among its build edge's inputs or order-only
inputs. Without that, a fresh tree compiles or not depending on the order
ninja picks (a warm tree hides it).

    scripts/check-build-order.py BUILD_DIR

Prints each object that lacks its header and exits 1, or says how many
objects it checked."""
import re
import subprocess
import sys

build = sys.argv[1] if len(sys.argv) > 1 else "build"
text = open(f"{build}/build.ninja").read().replace("$\n", "")
edges = {}
for m in re.finditer(r"^build (.+?): (\S+)(.*)$", text, re.M):
    for out in m.group(1).split():
        edges[out] = (m.group(2), m.group(3))
generated = {out for out, (rule, _) in edges.items()
             if out.endswith(".h") and rule.startswith("CUSTOM_COMMAND")}
deps = subprocess.run(["ninja", "-C", build, "-t", "deps"], check=True,
                      capture_output=True, text=True).stdout
missing, checked, obj = [], 0, None
for line in deps.splitlines():
    if line and not line.startswith(" "):
        obj = line.split(":")[0]
        checked += 1
        continue
    header = line.strip()
    if obj and header in generated and obj in edges and \
            header not in edges[obj][1].split():
        missing.append(f"{obj} includes {header} without waiting for it")
for m in missing:
    print(m)
print(f"build order: {checked} objects, {len(generated)} generated headers, "
      f"{len(missing)} unordered")
sys.exit(1 if missing else 0)
