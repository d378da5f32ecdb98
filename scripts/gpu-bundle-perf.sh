#!/bin/sh
# Debian's perf for the project's GPU machine, which has none (and no
# network): the binary, every library ldd finds for it and the dynamic
# loader, stripped, into DIR (default .perf, ignored by git), with a
# wrapper DIR/perf that runs it through the bundled loader and libraries,
# so the machine's own (a newer glibc) are never mixed in:
#
#   scripts/gpu-bundle-perf.sh [DIR]     (PERF: the binary, default Debian's)
#
# DIR is about 33 MiB of the 64 MiB a device call carries; with PERF_XZ=1
# it is packed into DIR.tar.xz instead (about 8 MiB; also ignored), which
# the command there unpacks first: `tar -xJf .perf.tar.xz`. Then there,
# carrying it with the build and the GStreamer bundle (docs/gpu.md):
#
#   .perf/perf record -e cpu-clock -g -o $OUT/perf.data -- COMMAND
#   .perf/perf report -i $OUT/perf.data --stdio --no-children --no-inline \
#       --sort symbol > $OUT/report.txt
#
# cpu-clock is a software event: it needs no hardware counters, which a
# virtual machine may not expose. Where kernel.perf_event_paranoid is above
# 1 and the command is not root's, `-e cpu-clock:u` samples user space only.
# Commands perf runs (after --) start with the machine's own loader and
# libraries: the bundle's paths are given to the loader, not exported.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-.perf}
perf=${PERF:-}
if [ -z "$perf" ]; then
  # linux-perf installs perf_<version> on older Debian, perf itself later;
  # /usr/bin/perf may be linux-base's shell wrapper that picks one
  for p in /usr/bin/perf_* /usr/bin/perf; do
    if [ -x "$p" ] && head -c 4 "$p" | grep -q ELF; then
      perf=$p
      break
    fi
  done
fi
if [ -z "$perf" ] || [ ! -x "$perf" ]; then
  echo "gpu-bundle-perf: no perf binary (apt-get install linux-perf, or PERF=)" >&2
  exit 1
fi

rm -rf "$dir" "$dir.tar.xz"
mkdir -p "$dir/lib"
cp -L "$perf" "$dir/perf.bin"
loader=
for lib in $(ldd "$perf" | awk '/=>/ { print $3 } /^[[:space:]]*\// { print $1 }'); do
  case "$lib" in
    */ld-linux*) loader=$lib ;;
    *) cp -L "$lib" "$dir/lib/" ;;
  esac
done
if [ -z "$loader" ]; then
  echo "gpu-bundle-perf: ldd named no dynamic loader for $perf" >&2
  exit 1
fi
cp -L "$loader" "$dir/ld-linux-x86-64.so.2"
chmod u+w "$dir"/* "$dir"/lib/*
strip --strip-unneeded "$dir/perf.bin" "$dir"/lib/* "$dir/ld-linux-x86-64.so.2"

cat > "$dir/perf" << 'EOF'
#!/bin/sh
# Debian's perf through its own loader and libraries (scripts/gpu-bundle-perf.sh)
here=$(dirname "$(readlink -f "$0")")
exec "$here/ld-linux-x86-64.so.2" --library-path "$here/lib" "$here/perf.bin" "$@"
EOF
chmod +x "$dir/perf"

"$dir/perf" --version > /dev/null
echo "gpu-bundle-perf: $("$dir/perf" --version) in $dir, $(du -sh "$dir" | cut -f1)"
if [ "${PERF_XZ:-0}" = 1 ]; then
  tar -C "$(dirname "$dir")" -cJf "$dir.tar.xz" "$(basename "$dir")"
  rm -rf "$dir"
  echo "gpu-bundle-perf: packed into $dir.tar.xz, $(du -sh "$dir.tar.xz" | cut -f1)"
fi
