#!/bin/sh
# Prepares the GPU suites against GStreamer 1.26 for the GPU machine (see
# docs/gpu.md): builds the project, kernels included, inside the Debian 13
# root of scripts/debian13.sh into build-1.26 in this checkout, and gathers
# in .gpu126 what its binaries need from that root: GStreamer 1.26 (core,
# base, video, check, gst-cuda, nvcodec and a few plugins), Debian 13's
# own loader, C library and C++ runtime, and for the Python GPU tests the
# PyGObject wheel of scripts/gpu-pygobject-wheel.sh, libgirepository-1.0
# and the root's typelibs (the build's own is built with introspection).
# The GPU machine's glibc is older than Debian 13's, so .gpu126/run-tests
# starts every test binary (and python3) through the bundled loader
# (ld-linux-x86-64.so.2 --library-path ...) and with
# GST_REGISTRY_FORK=no, so that no plugin scanner is started; the driver's
# libcuda is the machine's own, found at run time, never bundled.
#
#   scripts/gpu-bundle-debian13.sh        (as root: chroot and bind mounts)
#
# then, on the GPU machine, carrying build-1.26 and .gpu126:
#
#   .gpu126/run-tests --suite gpu
#   scripts/gpu-bench-1.26.sh OUT          (the benchmark's 1.26 part)
#
# The build's paths are this checkout's: run it in the checkout the GPU
# machine gets a copy of (at the same absolute path).
set -eu

cd "$(dirname "$0")/.."
top=$PWD
root=${GST_CUDA_CACHE_DEBIAN13_ROOT:-/var/cache/gst-cuda-cache/debian13}
build=build-1.26
bundle=.gpu126

if [ "$(id -u)" != 0 ]; then
  echo "gpu-bundle-debian13: needs root to chroot" >&2
  exit 1
fi

# the root, as scripts/debian13.sh makes it: remade where it is missing or
# its packages changed
./scripts/debian-root.sh --root-only trixie

# nvcc and the whole toolkit, where the root's meson looks for them; the
# root's gcc is one the toolkit accepts (checked by meson's nvcc run)
cuda=${CUDA_ROOT:-/usr/local/cuda}
[ -x "$cuda/bin/nvcc" ] || { echo "gpu-bundle-debian13: no nvcc in $cuda" >&2; exit 1; }
cuda=$(readlink -f "$cuda")

# the toolkit, bound read-only: nothing done to the root reaches it
mkdir -p "$root/usr/local/cuda"
trap 'umount "$root/usr/local/cuda" 2>/dev/null || true' EXIT INT TERM
mount --bind "$cuda" "$root/usr/local/cuda"
mount -o remount,bind,ro "$root/usr/local/cuda"

# a copy of the checkout at its own path inside the root, so that the
# paths meson writes into the build are valid here and on the GPU machine;
# the build stays there between runs and is copied out
mkdir -p "$root$top"
find "$root$top" -mindepth 1 -maxdepth 1 ! -name "$build" \
  -exec rm -rf {} +
git ls-files --cached --others --exclude-standard | tar -cf - -T - |
  tar -xf - -C "$root$top"

# the typelib for the Python GPU tests: g-ir-scanner, which the root of
# the CPU suites does without
chroot "$root" sh -c "dpkg -s gobject-introspection libgirepository1.0-dev \
    > /dev/null 2>&1 || { export DEBIAN_FRONTEND=noninteractive;
  apt-get install -y -q --no-install-recommends gobject-introspection \
    libgirepository1.0-dev > /dev/null; }"

chroot "$root" sh -c "cd '$top' &&
  if [ ! -f $build/build.ninja ]; then
    meson setup $build -Dcuda-root=/usr/local/cuda -Dcuda-kernels=enabled \
      -Dintrospection=enabled -Dbenchmarks=enabled \
      > $build.setup.log 2>&1 || { tail -30 $build.setup.log; exit 1; }
  fi
  meson configure $build -Dbenchmarks=enabled -Dintrospection=enabled \
    > /dev/null
  meson compile -C $build > $build.compile.log 2>&1 ||
    { grep -E 'error|warning' $build.compile.log | head -40; exit 1; }
  if grep -q 'warning:' $build.compile.log; then
    grep 'warning:' $build.compile.log; exit 1
  fi
  rm -f $build.setup.log $build.compile.log"
umount "$root/usr/local/cuda"
rm -rf "$build"
cp -a "$root$top/$build" "$build"

# the bundle: plugins, then every library they, the tests and the plugin
# need, resolved by the root's own loader
rm -rf "$bundle"
mkdir -p "$bundle/lib" "$bundle/plugins"
plugdir=/usr/lib/x86_64-linux-gnu/gstreamer-1.0
for p in coreelements videotestsrc videoconvertscale videorate app nvcodec \
    debug videoparsersbad videofilter x264 compositor; do
  if [ -f "$root$plugdir/libgst$p.so" ]; then
    cp -L "$root$plugdir/libgst$p.so" "$bundle/plugins/"
  fi
done

binaries=$(find "$build/tests" "$build/ext" "$build/gst" -type f \
  \( -name '*.so' -o -perm -u+x \) ! -name '*.p' ! -name '*.py' 2>/dev/null |
  while read -r f; do
    head -c 4 "$f" | grep -q 'ELF' && echo "$top/$f"
  done)

# the driver and what ships with it are the GPU machine's own
skip='^(libcuda|libnvidia-[a-z-]*|libnvcuvid|libnvrtc[a-z-]*|libgstcudacache-[0-9.]*)\.'
{
  for f in "$bundle"/plugins/*.so; do
    echo "$plugdir/${f##*/}"
  done
  for f in $binaries; do
    echo "$f"
  done
} | while read -r f; do
  chroot "$root" ldd "$f" 2>/dev/null || true
done | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r name path; do
    echo "$name" | grep -Eq "$skip" && continue
    case "$path" in "$top"/*) continue ;; esac
    cp -L "$root$path" "$bundle/lib/$name"
  done

# the C library in full: the loader, and the libraries the driver links
# that the bundle's binaries may not, so that none comes from the machine
for l in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 \
    libpthread.so.0 librt.so.1 libstdc++.so.6 libgcc_s.so.1; do
  cp -L "$root/usr/lib/x86_64-linux-gnu/$l" "$bundle/lib/$l" 2>/dev/null ||
    cp -L "$root/lib64/$l" "$bundle/lib/$l"
done
strip --strip-unneeded "$bundle"/lib/*.so* "$bundle"/plugins/*.so \
  2>/dev/null || true

# Python: the PyGObject wheel the 1.22 bundle carries (CPython 3.12, the
# GPU machine's; libgirepository-1.0, which reads Debian 13's typelibs),
# Debian 13's libgirepository-1.0 and every typelib of the root
if scripts/gpu-pygobject-wheel.sh "$bundle/python" > /dev/null; then
  mkdir -p "$bundle/girepository-1.0"
  chroot "$root" ldd /usr/lib/x86_64-linux-gnu/libgirepository-1.0.so.1 |
    awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' |
    while read -r name path; do
      [ -e "$bundle/lib/$name" ] || cp -L "$root$path" "$bundle/lib/$name"
    done
  cp -L "$root/usr/lib/x86_64-linux-gnu/libgirepository-1.0.so.1" "$bundle/lib/"
  cp "$root"/usr/lib/x86_64-linux-gnu/girepository-1.0/*.typelib \
    "$bundle/girepository-1.0/"
else
  rm -rf "$bundle/python"
  echo "gpu-bundle-debian13: no PyGObject wheel: the Python tests are left out" >&2
fi

cp scripts/gpu-run-tests-1.26.py "$bundle/run-tests"
chmod +x "$bundle/run-tests"

du -sh "$bundle" "$build" | awk '{print "gpu-bundle-debian13: " $1 " in " $2}'
