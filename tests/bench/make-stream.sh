#!/bin/sh
# Makes the decode scenario's H.264 segments (see docs/performance.md): one
# byte-stream segment per size, SEGMENT_FRAMES frames of a moving SMPTE
# pattern each, I420 (NVDEC decodes 4:2:0), every segment opening with an
# IDR frame, so that segments concatenated in any order make a valid stream
# whose resolution changes at every segment. Needs x264enc
# (gstreamer1.0-plugins-ugly).
#
#   tests/bench/make-stream.sh DIR
set -eu
dir=${1:?usage: make-stream.sh DIR}
frames=${SEGMENT_FRAMES:-15}
mkdir -p "$dir"
for size in 1920x1080 1280x720 960x540 1600x900; do
  gst-launch-1.0 -q videotestsrc num-buffers="$frames" pattern=smpte \
    horizontal-speed=8 ! \
    "video/x-raw,format=I420,width=${size%x*},height=${size#*x},framerate=30/1" ! \
    x264enc bitrate=3000 speed-preset=ultrafast key-int-max="$frames" ! \
    video/x-h264,stream-format=byte-stream ! \
    filesink location="$dir/seg-$size.h264"
done
echo "$frames" > "$dir/segment-frames"
