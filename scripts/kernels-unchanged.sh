#!/bin/sh
# Whether a benchmark run's kernels still stand for this tree: builds the
# kernels of REV and of the working tree for one architecture (sm_90, the
# H100's, unless SM says otherwise) with the build's own nvcc flags, and
# compares each kernel's machine code (its .text section) and constant bank
# layout (.nv.constant0) byte for byte. Needs nvcc only, no GPU.
#
#   scripts/kernels-unchanged.sh 8e1eb92
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
for f in convert.cu convert-params.h; do
  git -C "$top" show "$rev:$kernels/$f" > "$dir/rev/$f"
  cp "$top/$kernels/$f" "$dir/tree/$f"
done
for side in rev tree; do
  "$nvcc" -O3 --cubin -gencode "arch=compute_$sm,code=sm_$sm" \
      -o "$dir/$side.cubin" "$dir/$side/convert.cu" &
done
wait

python3 - "$dir/rev.cubin" "$dir/tree.cubin" "$rev" <<'PY'
import hashlib, struct, sys

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

before, after = sections(sys.argv[1]), sections(sys.argv[2])
code = (".text.", ".nv.constant0.")
kept = [n for n in before if n.startswith(code)]
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
