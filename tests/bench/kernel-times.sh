#!/bin/sh
# Kernel time of cudacacheconvert's conversions, for iterating on the
# kernels: Nsight Compute's gpu__time_duration of every launch of the
# project's kernels over a few frames, median per conversion, in
# microseconds. On the GPU machine, after sourcing a GStreamer bundle and
# pointing GST_PLUGIN_PATH_1_0 and LD_LIBRARY_PATH at the build:
#
#   tests/bench/kernel-times.sh [FRAMES]
#
# Each line: the median, the launches seen, the kernel, the conversion.
set -eu

frames=${1:-10}
ncu=${NCU:-ncu}

time_one ()
{
  label=$1
  shift
  "$ncu" --metrics gpu__time_duration.sum --csv -k regex:gst_cuda_cache \
      gst-launch-1.0 -q "$@" 2>/dev/null |
      python3 "$(dirname "$0")/ncu_times.py" median "$label"
}

src="videotestsrc num-buffers=$frames pattern=smpte"
up="cudaupload ! video/x-raw(memory:CUDAMemory)"
tensor="other/tensors(memory:CUDAMemory),format=static,num_tensors=1"

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
