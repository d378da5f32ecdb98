#!/usr/bin/env python3
"""Runs the recipes of README.md and docs/*.md as they are written.

Every code block of a doc (fenced, or indented by four spaces) carries a
marker, an HTML comment as the last non-blank line before it, which the
rendered page does not show:

  <!-- recipe: run -->       shell commands, run with bash (set -e) in the
                             checkout's top folder; `exit=N` expects exit
                             status N instead of 0
  <!-- recipe: python -->    a Python program, run with /usr/bin/python3
                             (Debian's, which has PyGObject)
  <!-- recipe: c -->         a C program: compiled against the build tree
                             (pkg-config's uninstalled gstreamer-cudacache-1.0)
                             and run
  <!-- recipe: c compile -->  C compiled, not run: file-level code after
                             #include <gst/cudacache/cudacache.h>, or with
                             `body="PARAMS"` the body of a function
                             `void recipe (PARAMS)` (its #include lines
                             before it), so a fragment compiles with the
                             variables it names declared
  <!-- recipe: file name=NAME -->  written as NAME into the folder the
                             recipes run in, for the recipes after it
  <!-- recipe: output -->    what the recipe before it prints: each
                             non-blank line must match a line of its output
                             (stdout and stderr), in this order, other lines
                             between them allowed; `...` in a line matches
                             any text (the parts that vary)
  <!-- recipe: gpu -->       needs an NVIDIA GPU: skipped here, with a
                             message, never counted as passed
  <!-- recipe: skip reason="..." -->  not run by CI, for the reason given
                             (it is CI itself, needs a camera or the
                             network, takes hours): skipped, with the reason
  <!-- recipe: text -->      not a recipe: a diagram, a sketch of a
                             pipeline with elided parts, sample output not
                             compared

`continues` after run, python or c (e.g. `<!-- recipe: python continues -->`)
appends the block to the recipe before it, run as one: what the reader sees
in both blocks is what runs. A block without a marker, or with one this
does not know, is a failure, so that a new recipe cannot go unchecked.

Recipes run with the variables README.md gives for the build tree
(GST_PLUGIN_PATH_1_0, LD_LIBRARY_PATH, GI_TYPELIB_PATH, PYTHONPATH), a
registry of their own, in a temporary folder of links to the checkout's
top-level entries (`build` linked to the build folder), where what they
write is thrown away after the doc.

    scripts/run-doc-recipes.py [--build DIR] [--markers-only] DOC...

Prints a line per recipe (PASS, FAIL or SKIP with why), then
"Checks: N, Failures: F, Errors: 0", the count scripts/summarize-tests.py
reads (skipped recipes are not in N). Exits 0 when every recipe that ran
passed, 77 when none ran, 1 otherwise.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^<!--\s*recipe:\s*(.*?)\s*-->$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)(.*)$")
LIST_ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")
KINDS = {"run", "python", "c", "file", "output", "gpu", "skip", "text"}
TIMEOUT = 120
PYTHON = "/usr/bin/python3"


class Block:
    def __init__(self, line, text, marker, marker_line):
        self.line = line            # first line of the block's text, 1-based
        self.text = text
        self.marker = marker        # the comment's content, or None
        self.marker_line = marker_line


def dedent(lines):
    ind = min((len(x) - len(x.lstrip(" ")) for x in lines if x.strip()),
              default=0)
    return "\n".join(x[ind:] for x in lines).strip("\n") + "\n"


def blocks(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    last = None        # (index, text) of the last non-blank line
    list_indent = None  # content indent of the list item we are in
    prev_blank = True
    i = 0

    def marker():
        if last is None:
            return None, None
        m = MARKER.match(last[1].strip())
        return (m.group(1), last[0] + 1) if m else (None, None)

    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(m.group(2)):
                j += 1
            mk, ml = marker()
            found.append(Block(i + 2, dedent(lines[i + 1:j]), mk, ml))
            last = (j, lines[j] if j < len(lines) else "")
            prev_blank = False
            i = j + 1
            continue
        if not line.strip():
            prev_blank = True
            i += 1
            continue
        indent = len(line) - len(line.lstrip(" "))
        li = LIST_ITEM.match(line)
        code_indent = (list_indent or 0) + 4
        if prev_blank and indent >= code_indent and not (
                li and indent < code_indent + 4 and list_indent is None):
            j = i
            while j < len(lines) and (not lines[j].strip() or
                                      len(lines[j]) - len(lines[j].lstrip(" "))
                                      >= code_indent):
                j += 1
            while j > i and not lines[j - 1].strip():
                j -= 1
            mk, ml = marker()
            found.append(Block(i + 1, dedent(lines[i:j]), mk, ml))
            last = (j - 1, lines[j - 1])
            prev_blank = False
            i = j
            continue
        # track list items, so a list item's indented code is found
        if li and indent < 4 + (list_indent or 0):
            list_indent = len(li.group(0))
        elif indent == 0 and prev_blank:
            list_indent = None
        last = (i, line)
        prev_blank = False
        i += 1
    return found


def parse_marker(text):
    words = shlex.split(text)
    kind = words[0] if words else ""
    opts = {}
    flags = set()
    for w in words[1:]:
        if "=" in w:
            k, v = w.split("=", 1)
            opts[k] = v
        else:
            flags.add(w)
    return kind, opts, flags


def matches_output(expected, actual):
    """Each non-blank expected line matches an actual line, in order."""
    want = [x.strip() for x in expected.split("\n") if x.strip()]
    have = [x.strip() for x in actual.split("\n")]
    pos = 0
    for w in want:
        pat = re.compile(".*?".join(re.escape(p) for p in w.split("...")) + "$")
        while pos < len(have) and not pat.match(have[pos]):
            pos += 1
        if pos == len(have):
            return f"no line of the output matches {w!r}"
        pos += 1
    return None


class Runner:
    def __init__(self, build, workdir):
        self.build = os.path.realpath(build)
        self.tmp = workdir
        # recipes run in a folder of links to the checkout's top-level
        # entries, `build` pointing at the build folder, so that `build` is
        # right wherever the build is and what a recipe writes stays out of
        # the checkout
        self.cwd = os.path.join(workdir, "tree")
        os.mkdir(self.cwd)
        for n in os.listdir(ROOT):
            if n != "build" and not n.startswith("."):
                os.symlink(os.path.join(ROOT, n), os.path.join(self.cwd, n))
        os.symlink(self.build, os.path.join(self.cwd, "build"))
        env = dict(os.environ)
        lib = os.path.join(self.build, "gst", "cudacache")
        env["GST_PLUGIN_PATH_1_0"] = os.path.join(self.build, "ext", "cudacache")
        for var, val in (("LD_LIBRARY_PATH", lib), ("GI_TYPELIB_PATH", lib),
                         ("PYTHONPATH", os.path.join(ROOT, "python"))):
            env[var] = val + (":" + env[var] if env.get(var) else "")
        env["GST_REGISTRY"] = os.path.join(workdir, "registry.bin")
        env["PKG_CONFIG_PATH"] = os.path.join(self.build, "meson-uninstalled") + (
            ":" + env["PKG_CONFIG_PATH"] if env.get("PKG_CONFIG_PATH") else "")
        env.pop("GST_DEBUG", None)
        self.env = env
        self.n = 0

    def run(self, argv, timeout, input_text=None):
        try:
            p = subprocess.run(argv, cwd=self.cwd, env=self.env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace", timeout=timeout,
                               input=input_text)
            return p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            out = e.stdout or ""
            if isinstance(out, bytes):
                out = out.decode(errors="replace")
            return None, out + f"\n(timed out after {timeout} s)"

    def file(self, suffix, text):
        self.n += 1
        path = os.path.join(self.tmp, f"recipe{self.n}{suffix}")
        with open(path, "w") as f:
            f.write(text)
        return path

    def c_flags(self):
        p = subprocess.run(["pkg-config", "--cflags", "--libs",
                            "gstreamer-cudacache-1.0", "gstreamer-video-1.0"],
                           env=self.env, capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError("pkg-config: " + p.stderr.strip())
        return shlex.split(p.stdout)

    def recipe(self, kind, opts, flags, text):
        """(exit status or None, output, expected status)"""
        timeout = int(opts.get("timeout", TIMEOUT))
        want = int(opts.get("exit", 0))
        if kind == "run":
            path = self.file(".sh", "set -e\n" + text)
            st, out = self.run(["bash", path], timeout)
            return st, out, want
        if kind == "python":
            path = self.file(".py", text)
            st, out = self.run([PYTHON, path], timeout)
            return st, out, want
        # C
        cc = os.environ.get("CC", "cc")
        if "compile" in flags:
            if "body" in opts:
                # the block's #include lines go before the function
                lines = text.split("\n")
                inc = [x for x in lines if x.startswith("#include")]
                body = "\n".join(x for x in lines if not x.startswith("#include"))
                params = opts["body"] or "void"
                text = ("#include <gst/cudacache/cudacache.h>\n" +
                        "\n".join(inc) + "\n"
                        f"void recipe ({params});\n"
                        f"void\nrecipe ({params})\n{{\n{body}}}\n")
            elif "#include <gst/cudacache/cudacache.h>" not in text:
                text = "#include <gst/cudacache/cudacache.h>\n" + text
            src = self.file(".c", text)
            st, out = self.run([cc, "-c", "-Wall", "-Wno-unused-function",
                                "-Werror=implicit-function-declaration",
                                src, "-o", src + ".o"] + self.c_flags(), timeout)
            return st, out, 0
        src = self.file(".c", text)
        st, out = self.run([cc, "-Wall", "-Werror=implicit-function-declaration",
                            src, "-o", src + ".bin"] + self.c_flags(), timeout)
        if st != 0:
            return st, out, 0
        st, out = self.run([src + ".bin"], timeout)
        return st, out, want


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--markers-only", action="store_true",
                    help="check that every block carries a known marker")
    ap.add_argument("docs", nargs="+")
    a = ap.parse_args(argv)

    passed = failed = skipped = 0
    fail_lines = []

    def report(doc, line, kind, ok, why=""):
        nonlocal passed, failed
        rel = os.path.relpath(doc, ROOT)
        if ok:
            passed += 1
            print(f"PASS {rel}:{line} {kind}")
        else:
            failed += 1
            print(f"FAIL {rel}:{line} {kind}: {why}")
            fail_lines.append(f"{rel}:{line}:F:recipes:{kind}:0: {why}")

    def skip(doc, line, why):
        nonlocal skipped
        skipped += 1
        print(f"SKIP {os.path.relpath(doc, ROOT)}:{line}: {why}")

    workdir = tempfile.mkdtemp(prefix="doc-recipes-")
    try:
        runner = None if a.markers_only else Runner(a.build, workdir)
        for doc in a.docs:
            doc = os.path.abspath(doc)
            recipes = []   # [kind, opts, flags, text, line, expected outputs]
            for b in blocks(doc):
                if b.marker is None:
                    report(doc, b.line, "block", False,
                           "code block without a <!-- recipe: ... --> marker "
                           "(scripts/run-doc-recipes.py says which)")
                    continue
                try:
                    kind, opts, flags = parse_marker(b.marker)
                except ValueError as e:
                    kind, opts, flags = "", {}, set()
                if kind not in KINDS:
                    report(doc, b.marker_line, "marker", False,
                           f"unknown recipe marker {b.marker!r}")
                    continue
                if a.markers_only:
                    continue
                if kind == "text":
                    continue
                if kind in ("gpu", "skip"):
                    skip(doc, b.line, "needs an NVIDIA GPU" if kind == "gpu"
                         else opts.get("reason", "not run by CI"))
                    recipes.append(None)
                    continue
                if kind == "file":
                    with open(os.path.join(runner.cwd, opts["name"]), "w") as f:
                        f.write(b.text)
                    recipes.append(None)
                    continue
                if kind == "output":
                    if not recipes:
                        report(doc, b.marker_line, "output", False,
                               "output marker without a recipe before it")
                    elif recipes[-1] is not None:
                        recipes[-1][5].append((b.line, b.text))
                    continue
                if "continues" in flags:
                    if not recipes or recipes[-1] is None or recipes[-1][0] != kind:
                        report(doc, b.marker_line, kind, False,
                               "continues, but the recipe before it is not "
                               f"a {kind} recipe")
                    else:
                        recipes[-1][3] += b.text
                    continue
                recipes.append([kind, opts, flags, b.text, b.line, []])

            for r in recipes:
                if r is None:
                    continue
                kind, opts, flags, text, line, outputs = r
                try:
                    st, out, want = runner.recipe(kind, opts, flags, text)
                except RuntimeError as e:
                    report(doc, line, kind, False, str(e))
                    continue
                if st != want:
                    tail = "\n".join(out.strip().split("\n")[-15:])
                    print(tail)
                    report(doc, line, kind, False,
                           f"exit status {st}, expected {want}")
                    continue
                report(doc, line, kind, True)
                for oline, expected in outputs:
                    why = matches_output(expected, out)
                    if why:
                        print(out.strip())
                    report(doc, oline, "output", why is None, why or "")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    for line in fail_lines:
        print(line)
    if skipped:
        print(f"{skipped} skipped")
    if a.markers_only:
        # one case: every block marked, or not
        print(f"{failed} code block(s) without a known marker")
        return 1 if failed else 0
    print(f"Checks: {passed + failed}, Failures: {failed}, Errors: 0")
    if failed:
        return 1
    if not passed:
        print(f"no recipe of {' '.join(a.docs)} runs here: {skipped} skipped "
              "(a GPU, or not run by CI), the rest no recipes")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
