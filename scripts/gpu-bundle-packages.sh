#!/bin/sh
# Unpacks the Debian packages of scripts/debian-packages.sh into a GPU
# machine bundle, for the GPU suites to run on what users install (the
# GPU machine has no dpkg root of Debian's to install them into):
#
#   scripts/gpu-bundle-packages.sh DEBS BUNDLE
#
# DEBS is OUT/12 (for .gpu, GStreamer 1.22) or OUT/13 (for .gpu126, 1.26).
# The files land in BUNDLE/installed/usr/..., as `dpkg -i` would put them
# in /usr. There, `INSTALLED=BUNDLE/installed scripts/gpu-tests.sh` (1.22)
# or `BUNDLE/run-tests --installed BUNDLE/installed` (1.26) runs the
# suites on them (docs/gpu.md).
set -eu
debs=${1:-}
bundle=${2:-}
if [ -z "$debs" ] || [ -z "$bundle" ]; then
  echo "usage: $0 DEBS BUNDLE" >&2
  exit 2
fi
ls "$debs"/*.deb > /dev/null 2>&1 || {
  echo "gpu-bundle-packages: no .deb in $debs" >&2
  exit 1
}
rm -rf "$bundle/installed"
mkdir -p "$bundle/installed"
for f in "$debs"/*.deb; do
  case "$f" in *-dbgsym_*) continue ;; esac
  dpkg-deb -x "$f" "$bundle/installed"
  basename "$f"
done > "$bundle/installed/PACKAGES"
# the API reference and headers are not run; the carried size is limited
rm -rf "$bundle/installed/usr/share/doc" "$bundle/installed/usr/include"
echo "gpu-bundle-packages: $(wc -l < "$bundle/installed/PACKAGES") packages," \
  "$(du -sh "$bundle/installed" | cut -f1) in $bundle/installed"
