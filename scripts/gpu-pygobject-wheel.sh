#!/bin/sh
# Builds a PyGObject wheel for CPython 3.12, the GPU machine's Python (see
# docs/gpu.md), into .whl/ (git-ignored), against this machine's
# libgirepository-1.0 (gobject-introspection 1.74, installed by
# scripts/setup.sh). PyGObject 3.48 is the last release on
# libgirepository-1.0; 3.50 needs girepository-2.0 (GLib 2.80). Built
# without pycairo, which nothing here uses. Prints the wheel's path; does
# nothing but that when the wheel is already there. With DIR, also unpacks
# it into DIR (emptied first) as the GPU bundles carry it: without the
# wheel's metadata and Gtk's overrides, of no use there.
#
#   scripts/gpu-pygobject-wheel.sh [DIR]
#
# PYTHON312 names the interpreter (default: python3.12 on PATH, else
# pyenv's 3.12). Needs PyPI for PyGObject's source and its build tools
# (meson-python, meson, ninja), installed into a throw-away virtualenv.
set -eu

unpack=
if [ $# -ge 1 ]; then
  mkdir -p "$1"
  unpack=$(cd "$1" && pwd)
fi
cd "$(dirname "$0")/.."
version=3.48.2
out=.whl

# prints the wheel's path, unpacked into DIR where one was given
done_with() {
  if [ -n "$unpack" ]; then
    rm -rf "$unpack" && mkdir -p "$unpack"
    python3 -m zipfile -e "$1" "$unpack"
    rm -rf "$unpack"/*.dist-info "$unpack"/pygtkcompat \
      "$unpack"/gi/pygtkcompat.py "$unpack"/gi/overrides/Gtk.py \
      "$unpack"/gi/overrides/Gdk.py
  fi
  echo "$1"
}

wheel=$(ls "$out"/pygobject-$version-cp312-cp312-linux_x86_64.whl 2>/dev/null || true)
if [ -n "$wheel" ]; then
  done_with "$wheel"
  exit 0
fi

# pyenv's shims name python3.12 even where it is not the selected version
python=
for candidate in ${PYTHON312:-} python3.12 \
    "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/3.12*/bin/python3.12; do
  if "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' \
      >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "gpu-pygobject-wheel: no CPython 3.12 (set PYTHON312, or install 3.12 with pyenv)" >&2
  exit 1
fi

venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT INT TERM
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  meson-python==0.22.1 meson==1.12.1 ninja==1.13.2
mkdir -p "$out"
# pycairo is one of PyGObject's declared build requirements, so the build
# runs in the virtualenv above rather than pip's isolated one; its meson
# and ninja go first on PATH
PATH="$venv/bin:$PATH" "$venv/bin/python" -m pip wheel -q \
  --disable-pip-version-check --no-deps --no-build-isolation \
  --no-binary pygobject -w "$out" \
  --config-settings=setup-args=-Dpycairo=disabled \
  --config-settings=setup-args=-Dtests=false \
  "PyGObject==$version" >&2
done_with "$(ls "$out"/pygobject-$version-cp312-cp312-linux_x86_64.whl)"
