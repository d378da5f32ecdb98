#!/bin/sh
# The whole benchmark on the project's GPU machine (method: docs/performance.md).
#
#   scripts/gpu-bench.sh OUT
#
# Writes OUT/results.csv, OUT/machine.txt, OUT/bench.log and OUT/ncu/*.csv
# (Nsight Compute's kernel times); tests/bench/report.py OUT turns them into
# the report. Built here, run there: a build (BUILD_DIR, default build; only
# the library, the plugin and the benchmark are needed), a GStreamer
# bundle (GPU_BUNDLE, default .gpu, see ../shared/gpu/README.md; sourced from
# the folder that holds it), the NVRTC
# 11.8 wheel that lets 1.22's cudaconvertscale run (WHL_DIR, default .whl)
# and the decode scenario's segments (BENCH_MEDIA, default BUILD_DIR/bench-media,
# made by tests/bench/make-stream.sh; made there if x264enc is bundled).
# REPS (default 5) alternating repetitions; NCU_FRAMES (default 8) frames per
# Nsight Compute run; BENCH_COMMIT, the commit measured, for machine.txt.
# ONLY: a spot check of some scenarios (cudacache-bench --only, e.g.
# ONLY=convert,renegotiation), without Nsight Compute unless it lists
# kernels; not a run the report's method accepts.
# BENCH_ARGS: more cudacache-bench options (e.g. ONLY=host
# BENCH_ARGS="--host-case tiny --pipelines 1,8").
set -eu
cd "$(dirname "$0")/.."
out=${1:?usage: gpu-bench.sh OUT}
reps=${REPS:-5}
ncu_frames=${NCU_FRAMES:-8}
bundle=$(cd "${GPU_BUNDLE:-.gpu}" && pwd)
whl_dir=${WHL_DIR:-.whl}
build=${BUILD_DIR:-build}
media=${BENCH_MEDIA:-$build/bench-media}
mkdir -p "$out/ncu"
out=$(cd "$out" && pwd)
start=$(date +%s)

# a bundle's env.sh may name its paths from the folder holding it
here=$PWD
cd "$bundle/.."
. "$bundle/env.sh"
cd "$here"
# stock cudaconvertscale compiles for compute_52 at run time: NVRTC 11.8
whl=$(ls "$whl_dir"/nvidia_cuda_nvrtc_cu11-*.whl 2>/dev/null | head -n 1 || true)
if [ -n "$whl" ]; then
  mkdir -p /tmp/nvrtc11
  python3 -m zipfile -e "$whl" /tmp/nvrtc11
  export GST_CUDA_NVRTC_LIBNAME=/tmp/nvrtc11/nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2
  export LD_LIBRARY_PATH="/tmp/nvrtc11/nvidia/cuda_nvrtc/lib:$LD_LIBRARY_PATH"
fi
export GST_PLUGIN_PATH_1_0="$PWD/$build/ext/cudacache"
export LD_LIBRARY_PATH="$PWD/$build/gst/cudacache:$LD_LIBRARY_PATH"
rm -f "$GST_REGISTRY"
gst-inspect-1.0 cudacache > /dev/null
stock=yes
gst-inspect-1.0 cudaconvertscale > /dev/null 2>&1 || stock=no

# the decode scenario's stream, unless ONLY leaves that scenario out
if [ -n "${ONLY:-}" ] && ! echo "$ONLY" | grep -q decode; then
  :
elif [ ! -s "$media/seg-1920x1080.h264" ] && gst-inspect-1.0 x264enc \
    > /dev/null 2>&1; then
  tests/bench/make-stream.sh "$media"
fi
stream_args=
if [ -s "$media/seg-1920x1080.h264" ]; then
  # 4 cycles of the 4 sizes: 15 resolution changes, the first cycle the
  # warm-up
  stream=/tmp/cudacache-bench-stream.h264
  : > "$stream"
  for i in 1 2 3 4; do
    for size in 1920x1080 1280x720 960x540 1600x900; do
      cat "$media/seg-$size.h264" >> "$stream"
    done
  done
  stream_args="--stream $stream --segment-frames $(cat "$media/segment-frames")"
fi

only_args=
[ -n "${ONLY:-}" ] && only_args="--only $(echo "$ONLY" | sed 's/,*kernels//; s/^,//')"
# shellcheck disable=SC2086
"./$build/tests/bench/cudacache-bench" --out "$out" --reps "$reps" \
  $stream_args $only_args ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.log"

# 4. kernel time per conversion: Nsight Compute around gst-launch-1.0, 1080p
# NV12 in, 640x640 out; ours and stock alternating in every repetition;
# and (7.) a cudacachebatch batch of 8 such frames from 8 sources, each
# its own videotestsrc and cudaupload, NCU_FRAMES batches
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
src="videotestsrc num-buffers=$ncu_frames pattern=smpte ! \
video/x-raw,format=NV12,width=1920,height=1080,pixel-aspect-ratio=1/1 ! cudaupload"
rgba="video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=640,pixel-aspect-ratio=1/1"
tensor="other/tensors(memory:CUDAMemory),format=static,num_tensors=1"
ours="cudacacheconvert letterbox=true fill-value=114 scale=0.00392156862745098"
batch8="cudacachebatch name=b batch-size=8 letterbox=true fill-value=114 \
scale=0.00392156862745098 ! $tensor,types=float32,dimensions=640:640:3:8 ! fakesink"
for i in 0 1 2 3 4 5 6 7; do
  batch8="$batch8 $src ! video/x-raw(memory:CUDAMemory) ! b.sink_$i"
done
profile() {
  # profile NAME PIPELINE: one Nsight Compute run into ncu/NAME.csv
  # shellcheck disable=SC2086
  "$ncu" --metrics gpu__time_duration.sum --csv --print-units base \
    gst-launch-1.0 -q $2 > "$out/ncu/$1.csv" 2> "$out/ncu/$1.log" ||
    echo "ncu: $1 failed (see ncu/$1.log)"
}
if [ -n "${ONLY:-}" ] && ! echo "$ONLY" | grep -q kernels; then
  echo "ONLY=$ONLY: kernel times not measured" | tee -a "$out/bench.log"
elif [ -x "$ncu" ]; then
  r=1
  while [ "$r" -le "$reps" ]; do
    profile "rgba-ours-$r" "$src ! cudacacheconvert letterbox=true ! $rgba ! fakesink"
    [ "$stock" = yes ] &&
      profile "rgba-stock-$r" "$src ! cudaconvertscale add-borders=true ! $rgba ! fakesink"
    profile "f32nchw-ours-$r" "$src ! $ours ! $tensor,types=float32,dimensions=640:640:3:1 ! fakesink"
    profile "u8nhwc-ours-$r" "$src ! $ours ! $tensor,types=uint8,layout=NHWC,dimensions=3:640:640:1 ! fakesink"
    profile "batch8-ours-$r" "$batch8"
    r=$((r + 1))
  done
  echo "$ncu_frames" > "$out/ncu/frames"
else
  echo "no Nsight Compute: kernel times not measured" | tee -a "$out/bench.log"
fi

{
  echo "- GPU (nvidia-smi): $(nvidia-smi --query-gpu=name,driver_version \
    --format=csv,noheader 2>/dev/null || echo unknown)"
  echo "- Nsight Compute: $("$ncu" --version 2>/dev/null | tail -n 1 || echo none)"
  echo "- CPU: $(nproc) cores; kernel $(uname -r)"
  echo "- stock converter: cudaconvertscale with NVRTC from $(basename "${whl:-none}")"
  echo "- commit: ${BENCH_COMMIT:-not given (BENCH_COMMIT)}"
  echo "- script: REPS=$reps NCU_FRAMES=$ncu_frames${ONLY:+ ONLY=$ONLY} scripts/gpu-bench.sh OUT"
  echo "- decode stream: ${stream_args:-none}"
  echo "- wall time: $(($(date +%s) - start)) s"
} >> "$out/machine.txt"
echo "gpu-bench: done in $(($(date +%s) - start)) s, results in $out"
