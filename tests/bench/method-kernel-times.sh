#!/bin/sh
# Kernel time per conversion of each resampling method against stock, for
# issue targets stated as kernel time: 1080p NV12 (smpte) to 640x640 RGBA
# letterboxed, cudacacheconvert with each method (bilinear, nearest, area,
# antialias, linear), to a 640x640 float32 NCHW tensor letterboxed
# (linear and bilinear: f32-linear, f32-bilinear), and stock
# cudaconvertscale add-borders=true to the RGBA, alternating, REPS
# repetitions of FRAMES frames. A conversion's time is the sum of Nsight
# Compute's gpu__time_duration over every kernel its pipeline launches,
# divided by the frames;
# each line gives a repetition, the last ones each configuration's median.
# PROFILE=1: afterwards each configuration once more under Nsight
# Compute's counters (ncu_times.py's PROFILE_METRICS: instructions,
# occupancy achieved and theoretical, DRAM throughput, registers), a line
# per kernel with each counter's median over the frames.
# On the GPU machine, after sourcing a GStreamer bundle and pointing
# GST_PLUGIN_PATH_1_0 and LD_LIBRARY_PATH at the build, with NVRTC 11.8
# for stock's cudaconvertscale as scripts/gpu-bench.sh sets it up
# (GST_CUDA_NVRTC_LIBNAME; without it stock converts nothing and the
# script says so):
#
#   REPS=3 FRAMES=10 tests/bench/method-kernel-times.sh
set -eu

frames=${FRAMES:-10}
reps=${REPS:-3}
ncu=${NCU:-ncu}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

per_frame ()
{
  label=$1
  shift
  "$ncu" --metrics gpu__time_duration.sum --csv --print-units base \
      gst-launch-1.0 -q "$@" 2>/dev/null |
      python3 "$(dirname "$0")/ncu_times.py" per-frame "$label" "$frames" | tee -a "$log"
}

src="videotestsrc num-buffers=$frames pattern=smpte ! video/x-raw,format=NV12,width=1920,height=1080,pixel-aspect-ratio=1/1 ! cudaupload"
out="video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=640,pixel-aspect-ratio=1/1"
tensor="other/tensors(memory:CUDAMemory),format=static,num_tensors=1,types=float32,dimensions=(string)640:640:3:1"

profile ()
{
  label=$1
  shift
  "$ncu" --metrics "$metrics" --csv --print-units base \
      gst-launch-1.0 -q "$@" 2>/dev/null |
      python3 "$(dirname "$0")/ncu_times.py" profile "$label"
}

# every configuration through @1 (per_frame or profile), in turn
configurations ()
{
  run=$1
  for m in bilinear nearest area antialias; do
    # shellcheck disable=SC2086
    $run "$m" $src ! cudacacheconvert letterbox=true method=$m ! "$out" ! fakesink
  done
  # shellcheck disable=SC2086
  $run "linear" $src ! cudacacheconvert letterbox=true ! "$out" ! fakesink
  for m in linear bilinear; do
    # shellcheck disable=SC2086
    $run "f32-$m" $src ! cudacacheconvert letterbox=true method=$m ! "$tensor" ! fakesink
  done
  # shellcheck disable=SC2086
  $run "stock" $src ! cudaconvertscale add-borders=true ! "$out" ! fakesink
}

echo "configuration repetition: us per conversion, kernel launches"
r=1
while [ "$r" -le "$reps" ]; do
  configurations per_frame
  r=$((r + 1))
done
if [ "${PROFILE:-0}" = 1 ]; then
  metrics=$(python3 "$(dirname "$0")/ncu_times.py" metrics)
  echo "configuration kernel: Nsight Compute's counters, medians over the frames"
  configurations profile
fi
python3 - "$log" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    name, us, _ = line.split()
    times.setdefault(name, []).append(float(us))
stock = statistics.median(times.get("stock", [0.0]))
for name, ts in times.items():
    m = statistics.median(ts)
    ratio = "%.2fx stock" % (m / stock) if stock > 0 else "stock launched nothing"
    print("median %-9s %8.2f us [%.2f, %.2f]  %s" % (name, m, min(ts),
          max(ts), ratio))
PY
