#!/bin/sh
# Builds the project against Debian 13's GStreamer (1.26) inside a Debian 13
# (trixie) root made from Debian's packages, and runs its CPU suites there
# (every suite but `gpu`, `python`, `stress` and `docs`, which Debian 12's run
# covers). scripts/test.sh runs it after the Debian 12 suites; run it alone
# to try Debian 13 only.
#
# The root is kept between runs in $GST_CUDA_CACHE_DEBIAN13_ROOT (default
# /var/cache/gst-cuda-cache/debian13) and made again when it is missing or
# its package list changed: about two minutes with debootstrap, seconds
# after that. The CUDA Toolkit's headers (gst-cuda's headers include
# <cuda.h>) are copied into it from the toolkit scripts/setup.sh found;
# kernels are not built there (no nvcc in the root). Needs root (chroot).
#
# Writes build-debian13/meson-logs/testlog.json in the checkout, for
# scripts/summarize-tests.py, and exits non-zero when a step fails. With
# DEBIAN13_ROOT_ONLY=1 it only makes (or checks) the root, as
# scripts/gpu-bundle-debian13.sh does first.
set -eu

cd "$(dirname "$0")/.."
top=$PWD
root=${GST_CUDA_CACHE_DEBIAN13_ROOT:-/var/cache/gst-cuda-cache/debian13}
suite=trixie
mirror=http://deb.debian.org/debian

PACKAGES="build-essential pkg-config meson ninja-build python3
libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly
check libdlpack-dev"
packages=$(echo $PACKAGES)

if [ "$(id -u)" != 0 ]; then
  echo "debian13: needs root to chroot" >&2
  exit 1
fi

if [ "$(cat "$root/.gst-cuda-cache-packages" 2>/dev/null)" != "$packages" ]; then
  echo "debian13: making the Debian 13 root in $root"
  command -v debootstrap >/dev/null 2>&1 || {
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
  }
  # never remove a root something is still mounted in
  if grep -q " $root[/. ]" /proc/mounts; then
    echo "debian13: $root has mounts, not remaking it" >&2
    exit 1
  fi
  rm -rf "$root.new"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase "$suite" "$root.new" "$mirror" \
    > "$top/debian13-debootstrap.log" 2>&1 ||
    { tail -20 "$top/debian13-debootstrap.log"; exit 1; }
  chroot "$root.new" sh -c "export DEBIAN_FRONTEND=noninteractive;
    apt-get update -q && apt-get install -y -q --no-install-recommends $packages" \
    > "$top/debian13-apt.log" 2>&1 ||
    { tail -20 "$top/debian13-apt.log"; exit 1; }
  echo "$packages" > "$root.new/.gst-cuda-cache-packages"
  rm -rf "$root"
  mv "$root.new" "$root"
  rm -f "$top/debian13-debootstrap.log" "$top/debian13-apt.log"
fi
# DEBIAN13_ROOT_ONLY=1: the root made or checked, nothing run
[ "${DEBIAN13_ROOT_ONLY:-0}" = 1 ] && exit 0

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
[ -n "$cuda_inc" ] || { echo "debian13: no cuda.h found" >&2; exit 1; }
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

# named debian13/..., so that the summary tells them from Debian 12's
rm -rf build-debian13/meson-logs
mkdir -p build-debian13/meson-logs
python3 -c 'import json, sys
with open (sys.argv[1]) as src, open (sys.argv[2], "w") as dst:
    for line in src:
        if line.strip ():
            t = json.loads (line)
            t["name"] = "debian13/" + t["name"]
            dst.write (json.dumps (t) + "\n")' \
  "$root/src/build/meson-logs/testlog.json" \
  build-debian13/meson-logs/testlog.json 2>/dev/null || {
    rm -f build-debian13/meson-logs/testlog.json
    status=1
  }
exit $status
