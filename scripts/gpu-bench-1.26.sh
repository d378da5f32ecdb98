#!/bin/sh
# The benchmark's GStreamer 1.26 part (docs/performance.md), on the GPU
# machine: the busy-GPU scenario of tests/bench/cudacache-bench built
# against Debian 13's GStreamer 1.26 by scripts/gpu-bundle-debian13.sh,
# where CUDA memory carries its stream and our elements do not wait for
# each frame. Run here after that script, carrying build-1.26 and .gpu126;
# writes OUT/results.csv and OUT/machine.txt as the 1.22 run does.
#
#   scripts/gpu-bench-1.26.sh OUT          (REPS=3 by default)
#
# ONLY names other scenarios (default busy; host: docs/performance.md,
# "Host time per frame"); BENCH_ARGS are more cudacache-bench options.
set -eu
cd "$(dirname "$0")/.."
out=${1:?usage: gpu-bench-1.26.sh OUT}
mkdir -p "$out"
# shellcheck disable=SC2086
.gpu126/run-tests --exec build-1.26/tests/bench/cudacache-bench \
  --out "$out" --reps "${REPS:-3}" --only "${ONLY:-busy}" ${BENCH_ARGS:-}
