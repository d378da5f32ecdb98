#!/bin/sh
# The benchmark on the project's GPU machine (see docs/performance.md): runs
# build/tests/bench/cudacache-bench against the bundled GStreamer in .gpu and
# writes results.csv and machine.txt into the folder given (default
# results/). Make the report with tests/bench/report.py on a machine with
# gnuplot.
set -eu
cd "$(dirname "$0")/.."
out=${1:-results}
. .gpu/env.sh
export GST_PLUGIN_PATH_1_0="$PWD/build/ext/cudacache"
export LD_LIBRARY_PATH="$PWD/build/gst/cudacache:$LD_LIBRARY_PATH"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
  > "$out.nvidia-smi" 2>/dev/null || true
./build/tests/bench/cudacache-bench --out "$out"
if [ -s "$out.nvidia-smi" ]; then
  echo "- nvidia-smi: $(cat "$out.nvidia-smi")" >> "$out/machine.txt"
fi
rm -f "$out.nvidia-smi"
