#!/bin/sh
# Adds Python to the GPU machine's GStreamer bundle (see docs/gpu.md): the
# PyGObject wheel of scripts/gpu-pygobject-wheel.sh unpacked into
# BUNDLE/python, the libraries its extension needs that the bundle lacks
# (libgirepository-1.0; the GPU machine has no GStreamer and no
# gobject-introspection), the typelibs the Python tests load into
# BUNDLE/girepository-1.0, and their paths in BUNDLE/env.sh, with the
# build's own typelib and library and the gstcudacache module. Run it after
# ../shared/gpu/bundle, which writes env.sh anew, and again after each
# bundle; running it twice changes nothing.
#
#   scripts/gpu-bundle-python.sh [BUNDLE [BUILD]]     (default .gpu build)
#
# There, with the venv's python3 (3.12): . BUNDLE/env.sh, then
# `import gi; gi.require_version ("GstCudaCache", "1.0")` works.
set -eu

cd "$(dirname "$0")/.."
top=$PWD
bundle=${1:-.gpu}
build=${2:-build}
[ -f "$bundle/env.sh" ] || {
  echo "gpu-bundle-python: no $bundle/env.sh: run ../shared/gpu/bundle first" >&2
  exit 1
}
[ -f "$build/gst/cudacache/GstCudaCache-1.0.typelib" ] || {
  echo "gpu-bundle-python: no GstCudaCache-1.0.typelib in $build (introspection off?)" >&2
  exit 1
}
bundle=$(cd "$bundle" && pwd)
build=$(cd "$build" && pwd)

scripts/gpu-pygobject-wheel.sh "$bundle/python" > /dev/null
mkdir -p "$bundle/lib"

# what the extension links to beyond the bundle, less what every machine
# has (the same rule as the bundle's)
skip='^(libc|libm|libpthread|libdl|librt|ld-linux-x86-64|linux-vdso|libgcc_s|libstdc\+\+)\.'
ldd "$bundle"/python/gi/_gi.*.so | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' |
  while read -r name path; do
    echo "$name" | grep -Eq "$skip" && continue
    [ -e "$bundle/lib/$name" ] || cp -L "$path" "$bundle/lib/$name"
  done

# the build's library is carried with the build, first on the paths
# below; a copy the bundle took would only go stale
rm -f "$bundle"/lib/libgstcudacache-1.0.so*

# the typelibs the tests require, with every one they include (read from
# the GIRs: a typelib loads those it depends on)
girdir=/usr/share/gir-1.0
typelibdir=/usr/lib/x86_64-linux-gnu/girepository-1.0
rm -rf "$bundle/girepository-1.0"
mkdir -p "$bundle/girepository-1.0"
todo="GLib-2.0 GObject-2.0 Gio-2.0 Gst-1.0 GstApp-1.0 GstVideo-1.0"
todo="$todo $(sed -n 's/.*<include name="\([^"]*\)" version="\([^"]*\)".*/\1-\2/p' \
  "$build/gst/cudacache/GstCudaCache-1.0.gir")"
while [ -n "$todo" ]; do
  # split on purpose: a queue of names without spaces
  # shellcheck disable=SC2086
  set -- $todo
  name=$1
  shift
  todo="$*"
  [ -e "$bundle/girepository-1.0/$name.typelib" ] && continue
  cp "$typelibdir/$name.typelib" "$bundle/girepository-1.0/"
  todo="$todo $(sed -n 's/.*<include name="\([^"]*\)" version="\([^"]*\)".*/\1-\2/p' \
    "$girdir/$name.gir")"
done

# env.sh: the bundle's Python and typelibs after the build's own (the
# build's library and typelib, which the carried build keeps current)
sed -i '/^# python: gpu-bundle-python.sh$/,$d' "$bundle/env.sh"
cat >> "$bundle/env.sh" <<ENV
# python: gpu-bundle-python.sh
export PYTHONPATH="$top/python:$bundle/python\${PYTHONPATH:+:\$PYTHONPATH}"
export GI_TYPELIB_PATH="$build/gst/cudacache:$bundle/girepository-1.0\${GI_TYPELIB_PATH:+:\$GI_TYPELIB_PATH}"
export LD_LIBRARY_PATH="$build/gst/cudacache:\$LD_LIBRARY_PATH"
export GST_PLUGIN_PATH_1_0="$build/ext/cudacache"
ENV
du -sh "$bundle/python" "$bundle/girepository-1.0" | awk '{print "python bundle: " $1 " in " $2}'
