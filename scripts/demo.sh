#!/bin/sh
# Builds everything, then runs the main job: a stream switching among four
# resolutions every 10 frames, through cudacacheconvert and
# cudacacheidentity, on the GPU when there is one and in system memory
# otherwise, and prints what the cache did.
set -eu

cd "$(dirname "$0")/.."
./scripts/setup.sh

export GST_PLUGIN_PATH_1_0="$PWD/build/ext/cudacache"
exec ./build/tests/examples/renegotiate --convert --frames 200 --every 10 "$@"
