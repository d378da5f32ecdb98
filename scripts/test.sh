#!/bin/sh
# Builds everything, checks the formatting, runs every test suite and runs
# them again under valgrind, then prints "N passed, N failed" counting test
# cases. GPU suites skip with a message where there is no CUDA device, and
# are listed as skipped, never as passed.
set -u

cd "$(dirname "$0")/.."
./scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

status=0
formatting=ok
./scripts/gst-indent-check || { formatting=fail; status=1; }

meson test -C build --print-errorlogs --num-processes 2 || status=1
cp build/meson-logs/testlog.json build/meson-logs/testlog-plain.json

if [ "${VALGRIND:-1}" != 0 ]; then
  meson test -C build --setup valgrind --print-errorlogs --no-suite gpu \
    --num-processes 2 || status=1
fi

logs=build/meson-logs/testlog-plain.json
[ "${VALGRIND:-1}" != 0 ] && logs="$logs build/meson-logs/testlog-valgrind.json"
python3 scripts/summarize-tests.py --check=formatting=$formatting $logs \
  || status=1
exit $status
