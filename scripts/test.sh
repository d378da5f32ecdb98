#!/bin/sh
# Builds everything, checks the formatting, that every object waits for
# the generated headers it includes, that docs/design.md's map names
# every source file and that the plugin builds against a staged install of
# the library (scripts/check-plugin-on-install.sh), runs every test suite
# (suite `docs` runs the docs' recipes, scripts/run-doc-recipes.py) and
# runs them again under valgrind, runs the CPU suites under AddressSanitizer and
# UBSan (ASAN=0 leaves that out), runs each fuzz target (tests/fuzz) for a
# minute under libFuzzer, ASan and UBSan (FUZZ=0 leaves that out), then builds against
# Debian 13's GStreamer (1.26) in a Debian 13 root and runs the CPU suites there
# (scripts/debian13.sh; DEBIAN13=0 leaves that out), then the same against
# Debian unstable's GStreamer (1.28) in a Debian unstable root
# (scripts/debian-root.sh sid; DEBIAN_SID=0 leaves that out), then builds
# the Debian packages for Debian 12 and 13 (scripts/debian-packages.sh, into
# build/debs, its log in build/debian-packages.log) and installs and uses
# them in a clean root of each (scripts/debian-install-check.sh, its log in
# build/debian-install-check.log; DEBIAN_PACKAGES=0 leaves both out), then
# prints "N passed, N failed" counting the test cases of all of them. GPU suites skip with
# a message where there is no CUDA device, and are listed as skipped, never
# as passed.
set -u

cd "$(dirname "$0")/.."
./scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

status=0
formatting=ok
./scripts/gst-indent-check || { formatting=fail; status=1; }

# every object that includes a generated header waits for it: a fresh
# tree's build must not depend on the order ninja picks
build_order=ok
python3 scripts/check-build-order.py build || { build_order=fail; status=1; }

# docs/design.md's map names every source file, and only files that exist
design_map=ok
python3 scripts/check-design-map.py || { design_map=fail; status=1; }

# the plugin builds on the library's installed headers and library alone:
# a staged `meson install --destdir`, and ext/cudacache/*.c compiled and
# linked against it through pkg-config
plugin_on_install=ok
./scripts/check-plugin-on-install.sh build > build/plugin-on-install.log 2>&1 ||
  { plugin_on_install=fail; status=1; tail -20 build/plugin-on-install.log; }

meson test -C build --print-errorlogs --num-processes 2 || status=1
cp build/meson-logs/testlog.json build/meson-logs/testlog-plain.json

if [ "${VALGRIND:-1}" != 0 ]; then
  meson test -C build --setup valgrind --print-errorlogs --no-suite gpu \
    --num-processes 2 || status=1
fi

# AddressSanitizer and UBSan on every CPU suite the asan setup takes (the
# crop matrix among them; docs/design.md, "Sanitizers"); a build of their
# own, without kernels, which the CPU suites do not run
asan_logs=
if [ "${ASAN:-1}" != 0 ]; then
  if [ ! -f build-asan/build.ninja ]; then
    meson setup build-asan -Db_sanitize=address,undefined \
      -Dcuda-kernels=disabled -Dintrospection=disabled -Dbenchmarks=disabled \
      > build/asan-setup.log 2>&1 || tail -20 build/asan-setup.log
  fi
  rm -f build-asan/meson-logs/testlog-asan.json
  meson compile -C build-asan > build/asan-build.log 2>&1 &&
    { python3 scripts/check-build-order.py build-asan ||
      { build_order=fail; false; }; } &&
    meson test -C build-asan --setup asan --print-errorlogs --num-processes 2 \
      || status=1
  asan_logs=build-asan/meson-logs/testlog-asan.json
fi

# the benchmark's smoke mode: each scenario briefly, on system memory; it
# checks that the program and the report run, not the numbers
bench=ok
rm -rf build/bench-smoke
GST_PLUGIN_PATH_1_0="$PWD/build/ext/cudacache" \
  ./build/tests/bench/cudacache-bench --smoke --out build/bench-smoke \
  > build/bench-smoke.log 2>&1 &&
  python3 tests/bench/report.py build/bench-smoke >> build/bench-smoke.log 2>&1 &&
  [ -s build/bench-smoke/results.csv ] && [ -s build/bench-smoke/report.md ] ||
  { bench=fail; status=1; tail -20 build/bench-smoke.log; }

logs=build/meson-logs/testlog-plain.json
[ "${VALGRIND:-1}" != 0 ] && logs="$logs build/meson-logs/testlog-valgrind.json"
logs="$logs $asan_logs"

# the CPU suites against a newer Debian's GStreamer: debian_root SUITE NAME
# runs scripts/debian-root.sh SUITE, its log in build/NAME.log and its test
# log in build-NAME; a failure before its tests ran leaves no test log,
# which counts as a failure too
checks=
debian_root() {
  rm -rf "build-$2/meson-logs"
  if ./scripts/debian-root.sh "$1" > "build/$2.log" 2>&1; then
    checks="$checks --check=$2=ok"
  else
    checks="$checks --check=$2=fail"
    status=1
    tail -40 "build/$2.log"
  fi
  logs="$logs build-$2/meson-logs/testlog.json"
}
# libFuzzer (docs/fuzzing.md): each fuzz target built with clang, ASan and
# UBSan, run 60 s from its seed corpus with its dictionary (the inputs it
# finds go to build-fuzz/corpus, the tree's corpus is left as it is); a
# crash, a sanitizer report, a GLib critical or warning, or an input
# running past 30 s fails, and build/fuzz-NAME.log names the reproducer
# libFuzzer wrote (build-fuzz/fuzz-NAME-crash-*, -leak-*, -timeout-*)
if [ "${FUZZ:-1}" != 0 ]; then
  fuzz=ok
  if [ ! -f build-fuzz/build.ninja ]; then
    CC=clang meson setup build-fuzz -Db_sanitize=address,undefined \
      -Db_lundef=false -Dcuda-kernels=disabled -Dintrospection=disabled \
      -Dbenchmarks=disabled -Dfuzzing=enabled \
      > build/fuzz-setup.log 2>&1 || tail -20 build/fuzz-setup.log
  fi
  # the targets and the plugin they load, not the suites (build-asan runs
  # those)
  fuzz_targets=$(for d in tests/fuzz/*.dict; do
    echo "tests/fuzz/fuzz-$(basename "$d" .dict)"; done)
  # shellcheck disable=SC2086
  if ninja -C build-fuzz $fuzz_targets ext/cudacache/libgstcudacache.so \
    > build/fuzz-build.log 2>&1; then
    cat tests/check/lsan.supp tests/fuzz/lsan.supp > build-fuzz/lsan.supp
    for dict in tests/fuzz/*.dict; do
      t=$(basename "$dict" .dict)
      rm -rf "build-fuzz/corpus/$t" build-fuzz/fuzz-"$t"-*
      mkdir -p "build-fuzz/corpus/$t"
      GST_PLUGIN_PATH_1_0="$PWD/build-fuzz/ext/cudacache" GST_REGISTRY_FORK=no \
        GST_REGISTRY="$PWD/build-fuzz/fuzz.registry" GST_DEBUG=0 \
        G_SLICE=always-malloc \
        ASAN_OPTIONS=detect_leaks=1 \
        LSAN_OPTIONS="fast_unwind_on_malloc=0:print_suppressions=0:suppressions=$PWD/build-fuzz/lsan.supp" \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "./build-fuzz/tests/fuzz/fuzz-$t" -max_total_time=60 -timeout=30 \
        -dict="$dict" -artifact_prefix="build-fuzz/fuzz-$t-" \
        "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" \
        > "build/fuzz-$t.log" 2>&1 ||
        { fuzz=fail; status=1; tail -60 "build/fuzz-$t.log"; }
      grep '^Done [0-9]* runs' "build/fuzz-$t.log" | sed "s/^/fuzz $t: /"
    done
  else
    fuzz=fail
    status=1
    tail -20 build/fuzz-build.log
  fi
  checks="$checks --check=fuzz=$fuzz"
fi

# GStreamer 1.26, then 1.28
[ "${DEBIAN13:-1}" != 0 ] && debian_root trixie debian13
[ "${DEBIAN_SID:-1}" != 0 ] && debian_root sid debian-sid

# the Debian packages: built for each Debian (a case each), then each
# check of their install into a clean root of that Debian (a case each; a
# Debian whose packages did not build counts its install as failed)
if [ "${DEBIAN_PACKAGES:-1}" != 0 ]; then
  ./scripts/debian-packages.sh build/debs 12 13 \
    > build/debian-packages.log 2>&1
  for v in 12 13; do
    if grep -q "^debian-packages $v: ok" build/debian-packages.log; then
      checks="$checks --check=debian-packages-$v=ok"
    else
      checks="$checks --check=debian-packages-$v=fail"
      status=1
    fi
  done
  grep -q ": fail" build/debian-packages.log && tail -40 build/debian-packages.log
  ./scripts/debian-install-check.sh build/debs 12 13 \
    > build/debian-install-check.log 2>&1 || status=1
  grep -E '^(PASS|FAIL) ' build/debian-install-check.log
  checks="$checks $(awk '$1 == "PASS" {print "--check=debian-install-" $2 "-" $3 "=ok"}
    $1 == "FAIL" {print "--check=debian-install-" $2 "-" $3 "=fail"}' \
    build/debian-install-check.log)"
  grep -q '^PASS \|^FAIL ' build/debian-install-check.log ||
    { checks="$checks --check=debian-install=fail"; status=1;
      tail -20 build/debian-install-check.log; }
fi

python3 scripts/summarize-tests.py --check=formatting=$formatting \
  --check=build-order=$build_order --check=design-map=$design_map \
  --check=plugin-on-install=$plugin_on_install \
  --check=benchmark-smoke=$bench $checks $logs \
  || status=1
exit $status
