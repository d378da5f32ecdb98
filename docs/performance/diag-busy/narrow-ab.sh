#!/bin/sh
# Development measurement of the direct kernels' 6-tap windows (section 11
# of README.md here), on the GPU machine, one start: the GPU suite and
# memcheck on the new build, then Nsight Compute's kernel time and warp
# instructions of the base and the new build alternating, then the busy
# scenario (ours only: no NVRTC 11.8 carried) alternating.
#
#   OUT=DIR BASE=build-base NEW=build-gpu ROUNDS=2 \
#     docs/performance/diag-busy/narrow-ab.sh
#
# BASE and NEW hold gst/cudacache/libgstcudacache-1.0.so.0,
# ext/cudacache/*.so and tests/bench/cudacache-bench; NEW is a whole build
# (its tests run). Not a run of docs/performance.md's method.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?OUT}
base=${BASE:-build-base}
new=${NEW:-build-gpu}
rounds=${ROUNDS:-2}
mkdir -p "$out"
. .gpu/env.sh
lib0=$LD_LIBRARY_PATH

BUILD_DIR=$new scripts/gpu-tests.sh --suite gpu > "$out/suite.log" 2>&1
echo "suite: $(tail -n 1 "$out/suite.log")"

ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
src="videotestsrc num-buffers=8 pattern=smpte ! \
video/x-raw,format=NV12,width=1920,height=1080,pixel-aspect-ratio=1/1 ! cudaupload"
rgba="video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=640,pixel-aspect-ratio=1/1"
f32="other/tensors(memory:CUDAMemory),format=static,num_tensors=1,types=float32,dimensions=640:640:3:1"
ours="cudacacheconvert letterbox=true fill-value=114 scale=0.00392156862745098"
with () {
  # with BUILD COMMAND...: the build's library and plugin
  b=$1
  shift
  GST_REGISTRY=/tmp/reg-$b.bin GST_PLUGIN_PATH_1_0=$PWD/$b/ext/cudacache \
    LD_LIBRARY_PATH=$PWD/$b/gst/cudacache:$lib0 "$@"
}
r=1
while [ "$r" -le "$rounds" ]; do
  for b in "$base" "$new"; do
    # shellcheck disable=SC2086
    with "$b" "$ncu" --metrics gpu__time_duration.sum,smsp__inst_executed.sum \
      --csv --print-units base gst-launch-1.0 -q $src ! \
      cudacacheconvert letterbox=true ! $rgba ! fakesink \
      > "$out/ncu-rgba-$b-$r.csv" 2> "$out/ncu-rgba-$b-$r.log"
    # shellcheck disable=SC2086
    with "$b" "$ncu" --metrics gpu__time_duration.sum,smsp__inst_executed.sum \
      --csv --print-units base gst-launch-1.0 -q $src ! $ours ! $f32 ! \
      fakesink > "$out/ncu-f32-$b-$r.csv" 2> "$out/ncu-f32-$b-$r.log"
  done
  r=$((r + 1))
done
r=1
while [ "$r" -le "$rounds" ]; do
  for b in "$base" "$new"; do
    with "$b" "./$b/tests/bench/cudacache-bench" --out "$out/busy-$b-$r" \
      --reps 1 --only busy > "$out/busy-$b-$r.log" 2>&1
  done
  r=$((r + 1))
done
# per file: the kernels' names, median time (ns) and instructions
python3 - "$out" <<'PY'
import csv, glob, os, statistics, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "ncu-*.csv"))):
    rows = [r for r in csv.reader(l for l in open(f) if l.startswith('"'))]
    if not rows:
        print(os.path.basename(f), "no rows"); continue
    h = rows[0]; ki, mi, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
    t = [float(r[vi].replace(",", "")) for r in rows[1:] if r[mi] == "gpu__time_duration.sum"]
    n = [float(r[vi].replace(",", "")) for r in rows[1:] if r[mi] == "smsp__inst_executed.sum"]
    names = sorted({r[ki][:48] for r in rows[1:]})
    print(os.path.basename(f), names, "time us %.2f" % (statistics.median(t) / 1000) if t else "-",
          "inst %.0f" % statistics.median(n) if n else "-", len(t))
PY
for f in "$out"/busy-*.log; do
  echo "== $f"
  grep -E 'ours +steady N=[148] .*aggregate_fps' "$f"
done

# memcheck over the conversions suite, every case in one process
GST_REGISTRY=/tmp/reg-memcheck.bin GST_PLUGIN_PATH_1_0=$PWD/$new/ext/cudacache \
  LD_LIBRARY_PATH=$PWD/$new/gst/cudacache:$lib0 CK_FORK=no \
  CK_DEFAULT_TIMEOUT=900 timeout "${MEMCHECK_S:-240}" compute-sanitizer --tool memcheck \
  "$new/tests/check/elements_cudaconvert_gpu" > "$out/memcheck.log" 2>&1
echo "memcheck: $(grep -E 'ERROR SUMMARY|Checks' "$out/memcheck.log" | tr '\n' ' ')"

