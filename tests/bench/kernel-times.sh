#!/bin/sh
# Kernel time of cudacacheconvert's conversions, for iterating on the
# kernels: Nsight Compute's gpu__time_duration of every launch of the
# project's kernels over a few frames, median per conversion, in
# microseconds. On the GPU machine, after sourcing a GStreamer bundle and
# pointing GST_PLUGIN_PATH_1_0 and LD_LIBRARY_PATH at the build:
#
#   tests/bench/kernel-times.sh [FRAMES] [batch]
#
# Each line: the median, the launches seen, the kernel, the conversion.
# Then cudacachebatch against one frame at a time (docs/performance.md,
# "Batches"): 8 sources, each a videotestsrc through cudaupload, into
# batches of 8 1080p NV12 frames to 8x640x640 float32 NCHW letterboxed,
# and one such frame alone through cudacacheconvert, FRAMES batches and
# FRAMES frames: every launch of each run summed over its batches or
# frames, the time of a slot, and the batch against the frame alone. With
# "batch", only that; METHOD (a cudacacheconvert and cudacachebatch
# method, default linear) converts both sides with it, METHOD=bilinear
# the resampling presets' batch kernels against their kernel for a frame.
set -eu

frames=${1:-10}
only=${2:-}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
here=$(dirname "$0")

time_one ()
{
  label=$1
  shift
  "$ncu" --metrics gpu__time_duration.sum --csv -k regex:gst_cuda_cache \
      gst-launch-1.0 -q "$@" 2>/dev/null |
      python3 "$here/ncu_times.py" median "$label"
}

# profile_to CSV PIPELINE...: every launch of the project's kernels
profile_to ()
{
  csv=$1
  shift
  "$ncu" --metrics gpu__time_duration.sum --csv -k regex:gst_cuda_cache \
      gst-launch-1.0 -q "$@" > "$csv" 2>/dev/null ||
      echo "kernel-times: $csv: the pipeline failed under $ncu" >&2
}

src="videotestsrc num-buffers=$frames pattern=smpte"
up="cudaupload ! video/x-raw(memory:CUDAMemory)"
tensor="other/tensors(memory:CUDAMemory),format=static,num_tensors=1"
f32="letterbox=true fill-value=114 scale=0.00392156862745098 method=${METHOD:-linear}"

if [ "$only" != batch ]; then
time_one "1080p NV12 -> 640x640 RGBA" \
  $src ! video/x-raw,format=NV12,width=1920,height=1080 ! $up ! \
  cudacacheconvert ! "video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=640" ! fakesink
time_one "1080p NV12 -> 640x640 RGBA letterbox" \
  $src ! video/x-raw,format=NV12,width=1920,height=1080 ! $up ! \
  cudacacheconvert letterbox=true ! "video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=640,pixel-aspect-ratio=1/1" ! fakesink
time_one "1080p NV12 -> 640x640 float32 NCHW letterbox" \
  $src ! video/x-raw,format=NV12,width=1920,height=1080 ! $up ! \
  cudacacheconvert letterbox=true fill-value=114 scale=0.00392156862745098 ! \
  "$tensor,types=float32,dimensions=640:640:3:1" ! fakesink
time_one "1080p NV12 -> 1080p RGBA" \
  $src ! video/x-raw,format=NV12,width=1920,height=1080 ! $up ! \
  cudacacheconvert ! "video/x-raw(memory:CUDAMemory),format=RGBA,width=1920,height=1080" ! fakesink
time_one "1080p NV12 -> 720p NV12" \
  $src ! video/x-raw,format=NV12,width=1920,height=1080 ! $up ! \
  cudacacheconvert ! "video/x-raw(memory:CUDAMemory),format=NV12,width=1280,height=720" ! fakesink
time_one "1080p RGBA -> 640x640 float32 NCHW letterbox" \
  $src ! video/x-raw,format=RGBA,width=1920,height=1080 ! $up ! \
  cudacacheconvert letterbox=true fill-value=114 scale=0.00392156862745098 ! \
  "$tensor,types=float32,dimensions=640:640:3:1" ! fakesink
time_one "1080p I420 -> 640x640 uint8 NHWC letterbox" \
  $src ! video/x-raw,format=I420,width=1920,height=1080 ! $up ! \
  cudacacheconvert letterbox=true fill-value=114 ! \
  "$tensor,types=uint8,dimensions=3:640:640:1,layout=NHWC" ! fakesink
time_one "2160p NV12 -> 640x640 float16 NCHW letterbox" \
  $src ! video/x-raw,format=NV12,width=3840,height=2160 ! $up ! \
  cudacacheconvert letterbox=true fill-value=114 scale=0.00392156862745098 ! \
  "$tensor,types=float16,dimensions=640:640:3:1" ! fakesink
time_one "2160p NV12 -> 3x3 RGBA (generic kernel)" \
  $src ! video/x-raw,format=NV12,width=3840,height=2160 ! $up ! \
  cudacacheconvert ! "video/x-raw(memory:CUDAMemory),format=RGBA,width=3,height=3" ! fakesink
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nv12="video/x-raw,format=NV12,width=1920,height=1080"
profile_to "$tmp/single.csv" $src ! $nv12 ! $up ! cudacacheconvert $f32 ! \
  "$tensor,types=float32,dimensions=640:640:3:1" ! fakesink
set -- cudacachebatch name=b batch-size=8 $f32 ! \
  "$tensor,types=float32,dimensions=640:640:3:8" ! fakesink
for i in 0 1 2 3 4 5 6 7; do
  set -- "$@" $src ! $nv12 ! $up ! b.sink_$i
done
profile_to "$tmp/batch.csv" "$@"
echo "cudacachebatch, 8 slots of 1080p NV12 -> 640x640 float32 NCHW letterbox, method=${METHOD:-linear}:"
python3 "$here/ncu_times.py" batch "$tmp/single.csv" "$tmp/batch.csv" \
  "$frames" 8
