#!/bin/sh
# Installs the Debian packages of scripts/debian-packages.sh into a clean
# Debian of their own version and uses them as a user would, with no
# environment variable set but PATH:
#
#   scripts/debian-install-check.sh DEBS [12] [13]     (as root: chroot, mounts)
#
# DEBS is the folder given to scripts/debian-packages.sh (DEBS/12, DEBS/13).
# For each Debian, a minbase root made with debootstrap is kept in
# /var/cache/gst-cuda-cache/install-debian12 (bookworm) and install-debian13
# (trixie) and made again when it is missing; nothing is ever installed into
# it: each run installs into a new overlay on it, which the run removes, so
# that nothing of a previous run remains. (Only apt's downloaded archives
# are kept between runs, in /var/cache/gst-cuda-cache/apt-archives-SUITE.)
# In the overlay:
#
#   install         apt-get install of the packages (not -dbgsym) with
#                   gstreamer1.0-tools and gstreamer1.0-plugins-base (for
#                   gst-inspect-1.0 and videotestsrc) and gcc, libc6-dev and
#                   pkg-config (for the C program), their dependencies
#                   from the archive, recommends included
#   no-driver       the CUDA driver library was not installed
#   gst-inspect     gst-inspect-1.0 cudacacheconvert
#   pipeline        videotestsrc through cudacacheidentity, cudacacheconvert
#                   and cudacachebatch into fakesink, on the CPU
#   python-import   python3 -c 'import gstcudacache'
#   python-convert  a GstCudaCacheConverter from Python (PyGObject and the
#                   typelib) converting a frame to a tensor, exported
#                   through gstcudacache.Tensor to NumPy
#   c-program       a C program built with
#                   `pkg-config --cflags --libs gstreamer-cudacache-1.0`
#                   that makes a cache and reads its stats; <cuda.h> and
#                   <cudaGL.h>, which GStreamer's CUDA headers include,
#                   copied from the CUDA Toolkit (CUDA_ROOT) into
#                   /usr/include, where Debian's nvidia-cuda-dev puts them
#                   (the -dev package suggests it)
#
# Each check prints "PASS 12 name" or "FAIL 12 name" (its output in
# DEBS/12/install-check.log); the last line is "N passed, N failed".
set -u

cd "$(dirname "$0")/.."
debs=${1:-}
[ -n "$debs" ] || { echo "usage: $0 DEBS [12] [13]" >&2; exit 2; }
shift
versions=${*:-12 13}
debs=$(cd "$debs" && pwd) || exit 2
cache=/var/cache/gst-cuda-cache
mirror=http://deb.debian.org/debian
cuda=${CUDA_ROOT:-/usr/local/cuda}
cuda=$(readlink -f "$cuda")

if [ "$(id -u)" != 0 ]; then
  echo "debian-install-check: needs root (chroot, mounts)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

passed=0
failed=0
# the overlay of the Debian being checked, unmounted however the script ends
m=
cleanup() {
  [ -n "$m" ] || return 0
  umount "$m/var/cache/apt/archives" "$m/proc" "$m" 2>/dev/null
}
trap 'cleanup' EXIT
trap 'cleanup; exit 1' INT TERM
result() {
  if [ "$3" = 0 ]; then
    passed=$((passed + 1))
    echo "PASS $1 $2"
  else
    failed=$((failed + 1))
    echo "FAIL $1 $2"
  fi
}

# make_base SUITE ROOT: a minbase root, made once
make_base() {
  [ -f "$2/.gst-cuda-cache-install-base" ] && return 0
  command -v debootstrap >/dev/null 2>&1 || {
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
  }
  if grep -q " $2[/. ]" /proc/mounts; then
    echo "debian-install-check: $2 has mounts, not remaking it" >&2
    return 1
  fi
  rm -rf "$2.new"
  mkdir -p "$(dirname "$2")"
  debootstrap --variant=minbase "$1" "$2.new" "$mirror" \
    > "$2.debootstrap.log" 2>&1 || { tail -20 "$2.debootstrap.log"; return 1; }
  echo "$1" > "$2.new/.gst-cuda-cache-install-base"
  rm -rf "$2"
  mv "$2.new" "$2"
  rm -f "$2.debootstrap.log"
}

# the checks, run in the overlay with PATH only
CHECKS='
set -u
log() { echo "== $1" >> /check/log; }
run() {
  name=$1
  shift
  log "$name"
  if "$@" >> /check/log 2>&1; then
    echo "$name 0"
  else
    echo "$name 1"
  fi
}

no_driver() {
  ! dpkg -S libcuda.so.1 && ! ls /usr/lib/*/libcuda.so* 2>/dev/null
}
gst_inspect() {
  gst-inspect-1.0 cudacacheconvert | grep -q "cudacacheconvert"
}
pipeline() {
  timeout 120 gst-launch-1.0 -q cudacachebatch name=b ! \
    "other/tensors,types=float32,dimensions=(string)64:64:3:2" ! \
    fakesink \
    videotestsrc num-buffers=5 ! video/x-raw,format=NV12,width=320,height=240 ! \
      cudacacheidentity ! cudacacheconvert ! \
      video/x-raw,format=RGBA,width=160,height=120 ! b. \
    videotestsrc num-buffers=5 pattern=ball ! video/x-raw,format=I420,width=176,height=144 ! \
      cudacacheconvert ! b.
}
python_import() {
  python3 -c "import gstcudacache; print(gstcudacache.__file__)"
}
python_convert() {
  python3 /check/convert.py
}
c_program() {
  cc /check/app.c -o /check/app $(pkg-config --cflags --libs \
    gstreamer-cudacache-1.0) && /check/app
}

run gst-inspect gst_inspect
run no-driver no_driver
run pipeline pipeline
run python-import python_import
run python-convert python_convert
run c-program c_program
'

CONVERT_PY='import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstCudaCache", "1.0")
from gi.repository import Gst, GstCudaCache
import numpy, gstcudacache

Gst.init(None)
in_caps = Gst.Caps.from_string("video/x-raw,format=RGBA,width=4,height=2")
out_caps = Gst.Caps.from_string(
    "other/tensors,format=static,num_tensors=1,types=float32,"
    "dimensions=(string)4:2:3:1")
conv = GstCudaCache.CudaCacheConverter.new(in_caps, out_caps, None, None)
inbuf = Gst.Buffer.new_wrapped(bytes([255, 0, 0, 255] * 8))
outbuf = Gst.Buffer.new_allocate(None, 4 * 2 * 3 * 4, None)
conv.convert_buffer(inbuf, outbuf, None)
array = numpy.from_dlpack(gstcudacache.Tensor(outbuf, out_caps))
print(array.shape, array.dtype, array[0, :, 0, 0])
assert array.shape == (1, 3, 2, 4), array.shape
assert (array[0, 0] == 255).all() and (array[0, 1:] == 0).all(), array
'

APP_C='#include <gst/cudacache/cudacache.h>

int
main (int argc, char **argv)
{
  GstCudaCache *cache;
  GstCudaCacheStats stats;

  gst_init (&argc, &argv);
  cache = gst_cuda_cache_new (64 << 20, GST_CUDA_CACHE_FLAG_NONE);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  g_print ("cache: limit %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
      " bytes, %" G_GUINT64_FORMAT " hits\n", stats.cache_limit,
      stats.current_size, stats.hits);
  gst_object_unref (cache);
  return stats.current_size == 0 && stats.hits == 0 ? 0 : 1;
}
'

for v in $versions; do
  case "$v" in
    12) suite=bookworm ;;
    13) suite=trixie ;;
    *) echo "debian-install-check: no Debian $v" >&2; result "$v" setup 1; continue ;;
  esac
  start=$(date +%s)
  dir=$debs/$v
  log=$dir/install-check.log
  base=$cache/install-debian$v
  run=$cache/install-run-debian$v
  archives=$cache/apt-archives-$suite
  if ! ls "$dir"/*.deb > /dev/null 2>&1; then
    echo "debian-install-check: no packages in $dir" >&2
    result "$v" install 1
    continue
  fi
  mkdir -p "$dir"
  : > "$log"
  make_base "$suite" "$base" >> "$log" 2>&1 || { result "$v" install 1; continue; }

  # a new overlay on the clean root
  umount "$run/merged/var/cache/apt/archives" "$run/merged/proc" \
    "$run/merged" 2>/dev/null
  rm -rf "$run"
  mkdir -p "$run/upper" "$run/work" "$run/merged" "$archives/partial"
  mount -t overlay overlay \
    -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$run/merged" ||
    { result "$v" install 1; continue; }
  m=$run/merged
  mount -t proc proc "$m/proc"
  mount --bind "$archives" "$m/var/cache/apt/archives"

  mkdir -p "$m/check/debs"
  for f in "$dir"/*.deb; do
    case "$f" in *-dbgsym_*) ;; *) cp "$f" "$m/check/debs/" ;; esac
  done
  cp "$cuda/include/cuda.h" "$cuda/include/cudaGL.h" "$m/usr/include/"
  printf '%s' "$CONVERT_PY" > "$m/check/convert.py"
  printf '%s' "$APP_C" > "$m/check/app.c"
  printf '%s' "$CHECKS" > "$m/check/checks.sh"

  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$m" sh -c '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q && apt-get install -y -q -o Dpkg::Options::=--force-unsafe-io \
      ./check/debs/*.deb \
      gstreamer1.0-tools gstreamer1.0-plugins-base gcc libc6-dev pkg-config' \
    >> "$log" 2>&1
  rc=$?
  result "$v" install $rc
  if [ $rc = 0 ]; then
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$m" \
      sh -c ': > /check/log; sh /check/checks.sh' > "$run/results" 2>&1
    cat "$m/check/log" >> "$log"
    for name in gst-inspect no-driver pipeline python-import python-convert \
        c-program; do
      rc=$(awk -v n="$name" '$1 == n {print $2}' "$run/results")
      result "$v" "$name" "${rc:-1}"
    done
  fi
  echo "debian $v: $(($(date +%s) - start)) s" >> "$log"

  cleanup
  m=
  rm -rf "$run"
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
