#!/bin/sh
# Installs what building and testing gst-cuda-cache needs on Debian 12 (and
# clang with libFuzzer, from libclang-rt-14-dev, for scripts/test.sh's
# fuzzing step, x264enc, from gstreamer1.0-plugins-ugly, for the GPU machine's bundle: the
# GPU suite's nvh264dec case and the benchmark's stream, and debhelper,
# dh-python, lintian and debootstrap for the Debian packages and their
# install check, scripts/debian-packages.sh and scripts/debian-install-check.sh), then
# configures and builds into ./build. Safe to run again: it installs only
# what is missing and rebuilds only what changed.
set -eu

cd "$(dirname "$0")/.."

SUDO=
if [ "$(id -u)" != 0 ]; then
  SUDO=sudo
fi

PACKAGES="build-essential pkg-config meson ninja-build python3
libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
gstreamer1.0-plugins-good gstreamer1.0-plugins-bad check valgrind indent
gnuplot-nox gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0
gir1.2-gst-plugins-base-1.0 gir1.2-gst-plugins-bad-1.0 python3-gi
python3-gst-1.0 python3-numpy libdlpack-dev gstreamer1.0-plugins-ugly
python3-opencv python3-pil clang libclang-rt-14-dev gi-docgen debhelper
dh-python lintian debootstrap"

missing=
for p in $PACKAGES; do
  if ! dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed'
  then
    missing="$missing $p"
  fi
done

# A CUDA Toolkit for <cuda.h> and nvcc: the one in /usr/local/cuda or on PATH,
# otherwise Debian's, from the non-free component.
cuda_root=
if [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda_root=/usr/local/cuda
elif command -v nvcc >/dev/null 2>&1; then
  cuda_root=$(dirname "$(dirname "$(command -v nvcc)")")
else
  if ! grep -rqs 'non-free' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "setup: enabling Debian's non-free component for nvidia-cuda-toolkit"
    $SUDO tee /etc/apt/sources.list.d/gst-cuda-cache-non-free.sources \
      >/dev/null <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  fi
  missing="$missing nvidia-cuda-toolkit"
  cuda_root=/usr
fi

if [ -n "$missing" ]; then
  echo "setup: installing$missing"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi

if [ ! -f build/build.ninja ]; then
  meson setup build -Dcuda-root="$cuda_root"
fi
meson compile -C build
