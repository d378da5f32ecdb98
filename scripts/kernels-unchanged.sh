#!/bin/sh
# Whether a benchmark run's kernels still stand for this tree: builds the
# kernels of REV and of the working tree for one architecture (sm_90, the
# H100's, unless SM says otherwise) with the build's own nvcc flags, and
# compares each kernel's machine code (its .text section) and constant bank
# layout (.nv.constant0) byte for byte. Needs nvcc only, no GPU.
#
#   scripts/kernels-unchanged.sh 8e1eb92
#
# Either side may hold its kernels in one convert.cu (before the kernels
# were split by family) or in a .cu per family: every .cu of
# gst/cudacache/kernels is built on its own, as meson builds it, and the
# kernels are matched by name across files.
#
# Prints a line per kernel that differs or is new, then a summary; exits 0
# when every kernel of REV is byte-identical in the tree, 1 otherwise.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 REV" >&2; exit 2; }
rev=$1
sm=${SM:-90}
top=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

kernels=gst/cudacache/kernels
mkdir -p "$dir/rev" "$dir/tree"
git -C "$top" archive "$rev" "$kernels" | tar -x -C "$dir/rev"
(cd "$top" && tar -c "$kernels") | tar -x -C "$dir/tree"
for side in rev tree; do
  for cu in "$dir/$side/$kernels"/*.cu; do
    "$nvcc" -O3 --cubin -gencode "arch=compute_$sm,code=sm_$sm" \
        -o "${cu%.cu}.cubin" "$cu" &
  done
done
wait
for side in rev tree; do
  for cu in "$dir/$side/$kernels"/*.cu; do
    [ -f "${cu%.cu}.cubin" ] || { echo "$cu did not build" >&2; exit 2; }
  done
done

python3 - "$dir/rev/$kernels" "$dir/tree/$kernels" "$rev" <<'PY'
import glob, hashlib, os, struct, sys

def sections(path):
    """{name: [sha1 of each section of that name]} of a 64-bit ELF."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
    names = headers[shstrndx][4]
    out = {}
    for name_off, kind, _, _, off, size, *_ in headers:
        name = data[names + name_off:data.index(b"\0", names + name_off)]
        body = b"" if kind == 8 else data[off:off + size]  # SHT_NOBITS
        out.setdefault(name.decode(), []).append(hashlib.sha1(body).hexdigest())
    return out

code = (".text.", ".nv.constant0.")

def kernels(folder):
    """The kernel sections of every cubin in @folder, by name: a kernel
    lives in one file, so the names do not collide."""
    out = {}
    for cubin in sorted(glob.glob(os.path.join(folder, "*.cubin"))):
        for name, hashes in sections(cubin).items():
            if name.startswith(code):
                if name in out:
                    sys.exit("%s is in two files of %s" % (name, folder))
                out[name] = hashes
    return out

before, after = kernels(sys.argv[1]), kernels(sys.argv[2])
kept = list(before)
differ = [n for n in kept if after.get(n) != before[n]]
new = [n for n in after if n.startswith(".text.") and n not in before]
for n in differ:
    print("differs:", n)
for n in new:
    print("new:", n)
print("%d of %d kernel sections of %s byte-identical in the tree; %d new "
      "kernels" % (len(kept) - len(differ), len(kept), sys.argv[3], len(new)))
sys.exit(1 if differ else 0)
PY
