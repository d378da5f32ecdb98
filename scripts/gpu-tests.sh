#!/bin/sh
# On the project's GPU machine (no GStreamer there; see docs/gpu.md): runs
# the test binaries built here against the bundled GStreamer in .gpu. The
# library path meson records for our own library would hide the bundle's,
# so the bundle's goes after it. Arguments go to run-tests (e.g. --suite gpu).
set -eu
cd "$(dirname "$0")/.."
. .gpu/env.sh
python3 - "$PWD/.gpu/lib" "${BUILD_DIR:-build}" <<'PY'
import json, sys
path = sys.argv[2] + "/meson-info/intro-tests.json"
tests = json.load(open(path))
for t in tests:
    env = t.get("env") or {}
    if "LD_LIBRARY_PATH" in env and sys.argv[1] not in env["LD_LIBRARY_PATH"]:
        env["LD_LIBRARY_PATH"] += ":" + sys.argv[1]
json.dump(tests, open(path, "w"))
PY
exec run-tests "${BUILD_DIR:-build}" "$@"
