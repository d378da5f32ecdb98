#!/usr/bin/env python3
"""Checks that docs/design.md's map names every source file, and only files
that exist.

The rule:
- A table that follows a line `<!-- map: DIR -->` covers DIR: the
  backticked names in its first column are paths relative to DIR
  (`name.c/.h` names name.c and name.h). Every file git tracks under DIR,
  subdirectories included, except meson.build files, must be named in one
  such table, and every name there must be such a file.
- A table that follows `<!-- map-dirs: DIR -->` covers DIR's folders: each
  folder under DIR that holds a tracked file (other than meson.build) must
  be named (`check/libs/`), and every name must be such a folder.

Outside a git checkout the files on disk count instead, build folders
left out. Exits 1, listing what is missing and what is gone, when the map
and the tree differ.

    scripts/check-design-map.py [docs/design.md]
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^<!--\s*(map|map-dirs):\s*(\S+?)/?\s*-->\s*$")
NAME = re.compile(r"`([^`]+)`")


def tree_files(top):
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "--cached", "--others",
                              "--exclude-standard", "--", top],
                             capture_output=True, text=True, check=True)
        files = out.stdout.split()
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for d, dirs, names in os.walk(os.path.join(ROOT, top)):
        dirs[:] = [x for x in dirs if not x.startswith(("build", "."))]
        for n in names:
            found.append(os.path.relpath(os.path.join(d, n), ROOT))
    return found


def expand(name):
    # `a.c/.h` names a.c and a.h
    m = re.fullmatch(r"(.+)\.(\w+)/\.(\w+)", name)
    if m:
        return [f"{m.group(1)}.{m.group(2)}", f"{m.group(1)}.{m.group(3)}"]
    return [name]


def tables(path):
    """(kind, dir, lineno, names) for each marked table of @path."""
    lines = open(path, encoding="utf-8").read().split("\n")
    result = []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i].strip())
        if not m:
            i += 1
            continue
        kind, top, start = m.group(1), m.group(2), i + 1
        i += 1
        while i < len(lines) and not lines[i].startswith("|"):
            i += 1
        names = []
        row = 0
        while i < len(lines) and lines[i].startswith("|"):
            cells = lines[i].strip().strip("|").split("|")
            row += 1
            # the header and the separator row name no file
            if row > 2:
                for n in NAME.findall(cells[0]):
                    names.extend(expand(n.rstrip("/")))
            i += 1
        result.append((kind, top, start, names))
    return result


def main(argv):
    doc = argv[1] if len(argv) > 1 else os.path.join(ROOT, "docs", "design.md")
    found = tables(doc)
    if not found:
        print(f"{doc}: no <!-- map: DIR --> table")
        return 1
    bad = 0
    for kind, top, line, names in found:
        files = [f for f in tree_files(top)
                 if os.path.basename(f) != "meson.build"]
        rel = [os.path.relpath(f, top) for f in files]
        if kind == "map-dirs":
            want = {os.path.dirname(f) for f in rel if os.path.dirname(f)}
        else:
            want = set(rel)
        named = set(names)
        for f in sorted(want - named):
            print(f"{doc}:{line}: the map of {top}/ omits {top}/{f}")
            bad += 1
        for f in sorted(named - want):
            print(f"{doc}:{line}: the map of {top}/ names {top}/{f}, "
                  "which is not in the tree")
            bad += 1
        dups = {n for n in names if names.count(n) > 1}
        for f in sorted(dups):
            print(f"{doc}:{line}: the map of {top}/ names {top}/{f} twice")
            bad += 1
    if bad:
        print(f"design map: {bad} problem(s); the rule is in "
              "scripts/check-design-map.py")
        return 1
    print(f"design map: {sum(len(t[3]) for t in found)} names, "
          f"{len(found)} tables, all in the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
