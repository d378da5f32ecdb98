#!/bin/sh
# Builds the project against the GStreamer of a newer Debian inside a root
# made from that Debian's packages, and runs its CPU suites there (every
# suite but `gpu`, `python`, `stress` and `docs`, which Debian 12's run
# covers). SUITE is one of:
#
#   trixie  Debian 13, GStreamer 1.26: root /var/cache/gst-cuda-cache/debian13
#           ($GST_CUDA_CACHE_DEBIAN13_ROOT), tests named debian13/...,
#           their log in build-debian13/meson-logs/testlog.json
#   sid     Debian unstable, GStreamer 1.28 when written: root
#           /var/cache/gst-cuda-cache/debian-sid
#           ($GST_CUDA_CACHE_DEBIAN_SID_ROOT), tests named debian-sid/...,
#           their log in build-debian-sid/meson-logs/testlog.json
#
#   scripts/debian-root.sh [--root-only] SUITE
#
# scripts/test.sh runs both after the Debian 12 suites; scripts/debian13.sh
# is `scripts/debian-root.sh trixie`. The root is kept between runs and made
# again when it is missing or its package list changed: a few minutes with
# debootstrap, seconds after that (sid's root is not updated between
# package list changes: remove it to take unstable's newer packages). A root
# with something mounted in it is never removed. The CUDA Toolkit's headers
# (gst-cuda's headers include <cuda.h>) are copied into it from the toolkit
# scripts/setup.sh found; kernels are not built there (no nvcc in the root).
# Needs root (chroot).
#
# Exits non-zero when a step fails. --root-only only makes (or checks) the
# root, as scripts/gpu-bundle-debian13.sh does first.
set -eu

root_only=0
if [ "${1:-}" = --root-only ]; then
  root_only=1
  shift
fi
suite=${1:-}
case "$suite" in
  trixie)
    name=debian13
    root=${GST_CUDA_CACHE_DEBIAN13_ROOT:-/var/cache/gst-cuda-cache/debian13}
    ;;
  sid)
    name=debian-sid
    root=${GST_CUDA_CACHE_DEBIAN_SID_ROOT:-/var/cache/gst-cuda-cache/debian-sid}
    ;;
  *)
    echo "usage: $0 [--root-only] trixie|sid" >&2
    exit 2
    ;;
esac
build=build-$name

cd "$(dirname "$0")/.."
top=$PWD
mirror=http://deb.debian.org/debian

PACKAGES="build-essential pkg-config meson ninja-build python3
libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly
check libdlpack-dev"
packages=$(echo $PACKAGES)

if [ "$(id -u)" != 0 ]; then
  echo "$name: needs root to chroot" >&2
  exit 1
fi

if [ "$(cat "$root/.gst-cuda-cache-packages" 2>/dev/null)" != "$packages" ]; then
  echo "$name: making the $suite root in $root"
  command -v debootstrap >/dev/null 2>&1 || {
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
  }
  # never remove a root something is still mounted in
  if grep -q " $root[/. ]" /proc/mounts; then
    echo "$name: $root has mounts, not remaking it" >&2
    exit 1
  fi
  rm -rf "$root.new"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase "$suite" "$root.new" "$mirror" \
    > "$top/$name-debootstrap.log" 2>&1 ||
    { tail -20 "$top/$name-debootstrap.log"; exit 1; }
  # unstable's Release file is valid for a week only: a mirror or cache
  # that lags behind must still do
  chroot "$root.new" sh -c "export DEBIAN_FRONTEND=noninteractive;
    apt-get update -q -o Acquire::Check-Valid-Until=false &&
    apt-get install -y -q --no-install-recommends $packages" \
    > "$top/$name-apt.log" 2>&1 ||
    { tail -20 "$top/$name-apt.log"; exit 1; }
  echo "$packages" > "$root.new/.gst-cuda-cache-packages"
  rm -rf "$root"
  mv "$root.new" "$root"
  rm -f "$top/$name-debootstrap.log" "$top/$name-apt.log"
fi
[ "$root_only" = 1 ] && exit 0

# the toolkit's headers, from the toolkit this checkout is configured with
cuda_root=$(python3 -c 'import json, sys
for o in json.load (open ("build/meson-info/intro-buildoptions.json")):
    if o["name"] == "cuda-root":
        print (o["value"])' 2>/dev/null || true)
cuda_inc=
for d in "$cuda_root/include" /usr/local/cuda/include /usr/include; do
  if [ -f "$d/cuda.h" ]; then
    cuda_inc=$d
    break
  fi
done
[ -n "$cuda_inc" ] || { echo "$name: no cuda.h found" >&2; exit 1; }
rm -rf "$root/opt/cuda"
mkdir -p "$root/opt/cuda"
cp -a "$cuda_inc" "$root/opt/cuda/include"

# the checkout's tracked and new files, built afresh
rm -rf "$root/src"
mkdir -p "$root/src"
git ls-files --cached --others --exclude-standard | tar -cf - -T - |
  tar -xf - -C "$root/src"

status=0
chroot "$root" sh -c 'cd /src &&
  echo "$(pkg-config --modversion gstreamer-1.0): GStreamer in the root" &&
  meson setup build -Dcuda-root=/opt/cuda -Dcuda-kernels=disabled \
    -Dintrospection=disabled -Dbenchmarks=disabled > setup.log 2>&1 ||
    { tail -30 setup.log; exit 1; }
  meson compile -C build > compile.log 2>&1 ||
    { grep -E "error|warning" compile.log | head -40; exit 1; }
  if grep -q "warning:" compile.log; then
    grep "warning:" compile.log; exit 1
  fi
  python3 scripts/check-build-order.py build || exit 1
  meson test -C build --print-errorlogs --num-processes 2 --no-suite gpu \
    --no-suite python --no-suite stress --no-suite docs' || status=1

# named $name/..., so that the summary tells them from Debian 12's
rm -rf "$build/meson-logs"
mkdir -p "$build/meson-logs"
python3 -c 'import json, sys
with open (sys.argv[1]) as src, open (sys.argv[2], "w") as dst:
    for line in src:
        if line.strip ():
            t = json.loads (line)
            t["name"] = sys.argv[3] + "/" + t["name"]
            dst.write (json.dumps (t) + "\n")' \
  "$root/src/build/meson-logs/testlog.json" \
  "$build/meson-logs/testlog.json" "$name" 2>/dev/null || {
    rm -f "$build/meson-logs/testlog.json"
    status=1
  }
exit $status
