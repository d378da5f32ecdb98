#!/bin/sh
# On the project's GPU machine (no GStreamer there; see docs/gpu.md): runs
# the test binaries built here against the bundled GStreamer in .gpu. The
# paths meson records for our own library, typelib and Python module would
# hide the bundle's (its libraries, and the PyGObject, typelibs and
# libgirepository of scripts/gpu-bundle-python.sh), so the bundle's go
# after them. Arguments go to run-tests (e.g. --suite gpu).
#
# INSTALLED=ROOT runs them on the Debian packages unpacked in ROOT
# (scripts/gpu-bundle-packages.sh) instead of the build's own library,
# plugin, typelib and Python module (scripts/gpu-use-installed.py).
set -eu
cd "$(dirname "$0")/.."
. .gpu/env.sh
if [ -n "${INSTALLED:-}" ]; then
  eval "$(python3 scripts/gpu-use-installed.py "${BUILD_DIR:-build}" "$INSTALLED")"
fi
python3 - "$PWD/.gpu" "${BUILD_DIR:-build}" <<'PY'
import json, os, sys
bundle, build = sys.argv[1], sys.argv[2]
path = build + "/meson-info/intro-tests.json"
tests = json.load(open(path))
for t in tests:
    env = t.get("env") or {}
    for key in ("LD_LIBRARY_PATH", "GI_TYPELIB_PATH", "PYTHONPATH"):
        if key not in env:
            continue
        have = env[key].split(":")
        for d in os.environ.get(key, "").split(":"):
            if d.startswith(bundle + "/") and d not in have:
                have.append(d)
        env[key] = ":".join(have)
json.dump(tests, open(path, "w"))
PY
exec run-tests "${BUILD_DIR:-build}" "$@"
