#!/bin/sh
# Builds the Debian packages (debian/) for Debian 12 (GStreamer 1.22, on
# this machine) and Debian 13 (GStreamer 1.26, in the Debian 13 root of
# scripts/debian-root.sh trixie), each from a copy of the checkout's
# tracked and new files, with `dpkg-buildpackage -us -uc -b`, and runs
# lintian on each:
#
#   scripts/debian-packages.sh OUT [12] [13]      (as root: chroot, mounts)
#
# writes OUT/12 and OUT/13 (both without a version named): the .deb files,
# the .changes and .buildinfo, build.log and lintian.txt. A step fails on a
# build error, a lintian error, or a package that depends on the CUDA
# driver library (libcuda1, libnvidia-*). The CUDA Toolkit is NVIDIA's in
# /usr/local/cuda (CUDA_ROOT to use another), bound read-only into the
# Debian 13 root as scripts/gpu-bundle-debian13.sh does; the root's
# packages for building them (debian/control's Build-Depends, lintian) are
# installed into it once with apt-get, which leaves the root's own package
# list, and so the root, as they are.
#
# Prints one line per Debian, "debian-packages 12: ok" or "... : fail",
# and exits non-zero when one failed.
set -u

cd "$(dirname "$0")/.."
top=$PWD
out=${1:-}
[ -n "$out" ] || { echo "usage: $0 OUT [12] [13]" >&2; exit 2; }
shift
versions=${*:-12 13}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cuda=${CUDA_ROOT:-/usr/local/cuda}
[ -x "$cuda/bin/nvcc" ] || { echo "debian-packages: no nvcc in $cuda" >&2; exit 1; }
cuda=$(readlink -f "$cuda")

if [ "$(id -u)" != 0 ]; then
  echo "debian-packages: needs root (chroot, mounts)" >&2
  exit 1
fi

# the checkout's files into $1/gst-cuda-cache
copy_source() {
  rm -rf "$1"
  mkdir -p "$1/gst-cuda-cache"
  git ls-files --cached --others --exclude-standard | tar -cf - -T - |
    tar -xf - -C "$1/gst-cuda-cache"
}

# check_debs DIR: no package needs the driver to install; lintian's errors
check_debs() {
  ok=0
  for f in "$1"/*.deb; do
    deps=$(dpkg-deb -f "$f" Depends Pre-Depends Recommends)
    if echo "$deps" | grep -Eq 'libcuda|libnvidia|nvidia-'; then
      echo "$(basename "$f") needs the CUDA driver: $deps"
      ok=1
    fi
  done
  if grep -q '^E:' "$1/lintian.txt"; then
    grep '^E:' "$1/lintian.txt"
    ok=1
  fi
  return $ok
}

status=0

build12() {
  dir=$out/12
  rm -rf "$dir" && mkdir -p "$dir"
  work=$(mktemp -d /tmp/gst-cuda-cache-deb.XXXXXX)
  copy_source "$work"
  (cd "$work/gst-cuda-cache" &&
    CUDA_ROOT=$cuda dpkg-buildpackage -us -uc -b) > "$dir/build.log" 2>&1 ||
    { tail -30 "$dir/build.log"; rm -rf "$work"; return 1; }
  mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$dir/"
  rm -rf "$work"
  lintian --suppress-tags initial-upload-closes-no-bugs "$dir"/*.changes \
    > "$dir/lintian.txt" 2>&1
  check_debs "$dir"
}

build13() {
  dir=$out/13
  rm -rf "$dir" && mkdir -p "$dir"
  root=${GST_CUDA_CACHE_DEBIAN13_ROOT:-/var/cache/gst-cuda-cache/debian13}
  ./scripts/debian-root.sh --root-only trixie || return 1
  work=$root/pkgbuild
  copy_source "$work"
  # the build's packages, from debian/control, and lintian: installed once
  # (apt's lists refreshed where the root's have aged out of the mirror)
  chroot "$root" sh -c 'export DEBIAN_FRONTEND=noninteractive
    cd /pkgbuild/gst-cuda-cache
    dpkg-checkbuilddeps > /dev/null 2>&1 && command -v lintian > /dev/null &&
      exit 0
    apt-get build-dep -y -q ./ > /dev/null 2>&1 &&
      apt-get install -y -q --no-install-recommends lintian > /dev/null 2>&1 &&
      exit 0
    apt-get update -q > /dev/null &&
      apt-get build-dep -y -q ./ > /dev/null &&
      apt-get install -y -q --no-install-recommends lintian > /dev/null' \
    > "$dir/build.log" 2>&1 || { tail -20 "$dir/build.log"; return 1; }
  mkdir -p "$root/usr/local/cuda"
  mount --bind "$cuda" "$root/usr/local/cuda" &&
    mount -o remount,bind,ro "$root/usr/local/cuda" || return 1
  chroot "$root" sh -c 'cd /pkgbuild/gst-cuda-cache &&
    dpkg-buildpackage -us -uc -b' >> "$dir/build.log" 2>&1
  rc=$?
  umount "$root/usr/local/cuda"
  if [ $rc != 0 ]; then
    tail -30 "$dir/build.log"
    rm -rf "$work"
    return 1
  fi
  mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$dir/"
  rm -rf "$work"
  mkdir -p "$root/pkgcheck"
  cp "$dir"/* "$root/pkgcheck/"
  chroot "$root" sh -c 'cd /pkgcheck && lintian \
      --suppress-tags initial-upload-closes-no-bugs ./*.changes' \
    > "$dir/lintian.txt" 2>&1
  rm -rf "$root/pkgcheck"
  check_debs "$dir"
}

trap 'umount "${GST_CUDA_CACHE_DEBIAN13_ROOT:-/var/cache/gst-cuda-cache/debian13}/usr/local/cuda" 2>/dev/null || true' EXIT INT TERM

for v in $versions; do
  start=$(date +%s)
  case "$v" in
    12) build12 ;;
    13) build13 ;;
    *) echo "debian-packages: no Debian $v" >&2; false ;;
  esac
  if [ $? = 0 ]; then
    result=ok
  else
    result=fail
    status=1
  fi
  echo "debian-packages $v: $result ($(($(date +%s) - start)) s," \
    "$(ls "$out/$v"/*.deb 2>/dev/null | wc -l) packages)"
done
exit $status
