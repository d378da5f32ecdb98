#!/usr/bin/env python3
"""Checks that the library exports exactly the functions its installed
headers declare with GST_CUDA_CACHE_API: nothing plugin-only, no stray
symbol (an ifunc's `.resolver`, a helper left without `static`), nothing
declared but missing.

    scripts/check-exports.py LIBRARY HEADER...

Prints a line per difference and, last, 'N passed, N failed' (one check
per exported or declared name). Needs nm (binutils)."""
import re
import subprocess
import sys

# what every ELF shared library defines beside its own symbols
LINKER = {"__bss_start", "_edata", "_end", "_init", "_fini"}


def declared(paths):
    names = set()
    for path in paths:
        text = open(path).read()
        # each declaration runs from its GST_CUDA_CACHE_API to the next one
        # (G_DECLARE_* macros end with no semicolon)
        for chunk in re.split(r"\bGST_CUDA_CACHE_API\b", text)[1:]:
            decl = re.split(r"[;{]", chunk, 1)[0]
            macro = re.match(r"\s*G_DECLARE_\w+\s*\(\s*\w+\s*,\s*(\w+)", decl)
            if macro:
                names.add(macro.group(1) + "_get_type")
                continue
            # the last identifier before the parameter list
            call = re.match(r"([^(]*?)(\w+)\s*\(", decl)
            if call and not call.group(1).strip().endswith("define"):
                names.add(call.group(2))
    return names


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library],
                         stdout=subprocess.PIPE, check=True).stdout.decode()
    return {line.split()[-1] for line in out.splitlines()
            if line.split() and line.split()[-1] not in LINKER}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    have = exported(sys.argv[1])
    want = declared(sys.argv[2:])
    passed = failed = 0
    for name in sorted(have | want):
        if name in have and name in want:
            passed += 1
        elif name in have:
            print(f"exported but declared in no installed header: {name}")
            failed += 1
        else:
            print(f"declared but not exported: {name}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
