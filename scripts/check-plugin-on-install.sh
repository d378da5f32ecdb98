#!/bin/sh
# Builds the plugin (ext/cudacache/*.c) against the library as installed,
# and nothing else of the tree: `meson install --destdir` of BUILD (default
# build) into BUILD/staged-install, then each source compiled with the
# flags pkg-config gives for gstreamer-cudacache-1.0 from that staged
# prefix, and the plugin linked with -Wl,--no-undefined against the staged
# library. Fails where the plugin includes a header the library does not
# install, or calls a symbol it does not export. scripts/test.sh runs it.
set -eu

cd "$(dirname "$0")/.."
build=${1:-build}
staging="$PWD/$build/staged-install"
out="$PWD/$build/plugin-on-install"

rm -rf "$staging" "$out"
mkdir -p "$out"
meson install -C "$build" --destdir "$staging" --quiet

pc=$(find "$staging" -name gstreamer-cudacache-1.0.pc | head -n 1)
if [ -z "$pc" ]; then
  echo "the install has no gstreamer-cudacache-1.0.pc" >&2
  exit 1
fi
# the .pc names the real prefix: point it at the staged one
prefix=$(sed -n 's/^prefix=//p' "$pc")
sed -i "s|^prefix=.*|prefix=$staging$prefix|" "$pc"
PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_PATH
pkgs="gstreamer-cudacache-1.0 gstreamer-base-1.0 gstreamer-video-1.0 gstreamer-cuda-1.0"
cflags=$(pkg-config --cflags $pkgs)
libs=$(pkg-config --libs $pkgs)

# what the build's config.h gives the plugin, the project's own settings
version=$(sed -n "s/^  version : '\([^']*\)',$/\1/p" meson.build | head -n 1)
defs="-DPACKAGE=\"gst-cuda-cache\" -DVERSION=\"$version\" -DGST_LICENSE=\"LGPL\"
  -DGST_PACKAGE_NAME=\"gst-cuda-cache\"
  -DGST_PACKAGE_ORIGIN=\"https://github.com/gst-cuda-cache/gst-cuda-cache\"
  -DG_LOG_DOMAIN=\"GStreamer-CudaCache\""

cc=${CC:-cc}
objs=
for src in ext/cudacache/*.c; do
  obj="$out/$(basename "$src" .c).o"
  # shellcheck disable=SC2086
  $cc -c -fPIC -std=gnu99 -O1 -Wall -Wextra -Wno-unused-parameter \
    -Wno-missing-field-initializers $defs $cflags -o "$obj" "$src"
  objs="$objs $obj"
done
# shellcheck disable=SC2086
$cc -shared -Wl,--no-undefined -o "$out/libgstcudacache.so" $objs $libs -lm
echo "plugin built on the staged install: $out/libgstcudacache.so"
