#!/usr/bin/env python3
"""Points a build's tests at the installed Debian packages instead of the
build's own library, plugin, typelib and Python module, so that the GPU
suites run what users install:

    scripts/gpu-use-installed.py BUILD ROOT

ROOT holds the packages' files, unpacked with `dpkg-deb -x` by
scripts/gpu-bundle-packages.sh (ROOT/usr/lib/<triplet>/...). It rewrites
BUILD/meson-info/intro-tests.json, each test's environment with the
packages' folders where meson named the build's (or the checkout's
python/), and deletes the build's own libgstcudacache-1.0.so*, plugin and
typelib, so that a binary whose RUNPATH names the build finds nothing
there and a test that still looked in the build fails instead of passing
on the wrong files. Run it on the GPU machine's copy of the tree: the
build it changes is the carried one, replaced at the next call.
Prints, for a shell to eval, this environment's own search paths
(.gpu/env.sh names the build's) pointed at the packages; the folders it
uses go to stderr. scripts/gpu-tests.sh (INSTALLED=ROOT) and the 1.26
bundle's run-tests (--installed ROOT) call it."""
import glob
import json
import os
import sys


def folders(build, root):
    """{variable: {build's folder: package's folder or None}} for @build
    and the packages unpacked in @root"""
    top = os.path.dirname(build)
    libs = glob.glob(os.path.join(root, "usr/lib/*/libgstcudacache-1.0.so.0"))
    if len(libs) != 1:
        sys.exit(f"gpu-use-installed: no libgstcudacache-1.0.so.0 under {root}/usr/lib")
    libdir = os.path.dirname(libs[0])
    places = {
        "LD_LIBRARY_PATH": {os.path.join(build, "gst", "cudacache"): libdir,
                            os.path.join(build, "ext", "cudacache"): None},
        "GI_TYPELIB_PATH": {os.path.join(build, "gst", "cudacache"):
                            os.path.join(libdir, "girepository-1.0")},
        "GST_PLUGIN_PATH_1_0": {os.path.join(build, "ext", "cudacache"):
                                os.path.join(libdir, "gstreamer-1.0")},
        "PYTHONPATH": {os.path.join(top, "python"):
                       os.path.join(root, "usr/lib/python3/dist-packages")},
    }
    for f in places.values():
        for d in f.values():
            if d is not None and not os.path.isdir(d):
                sys.exit(f"gpu-use-installed: the packages have no {d}")
    return places


def remap(places, var, value):
    """@value, a search path of @var, with the build's folders replaced"""
    out = []
    for d in value.split(":"):
        d = places.get(var, {}).get(d, d)
        if d and d not in out:
            out.append(d)
    return ":".join(out)


def use_installed(build, root):
    """Rewrites @build's test list for the packages in @root, deletes the
    build's own library, plugin and typelib; returns folders()"""
    build, root = os.path.abspath(build), os.path.abspath(root)
    places = folders(build, root)
    gone = glob.glob(os.path.join(build, "gst/cudacache/libgstcudacache-1.0.so*"))
    gone += glob.glob(os.path.join(build, "gst/cudacache/*.typelib"))
    gone += glob.glob(os.path.join(build, "ext/cudacache/*.so"))
    gone = [f for f in gone if not os.path.isdir(f)]
    # a file of the build named in a command: the package's of that name
    libdir = places["LD_LIBRARY_PATH"][os.path.join(build, "gst", "cudacache")]
    instead = {}
    for f in gone:
        for d in (libdir, os.path.join(libdir, "girepository-1.0"),
                  os.path.join(libdir, "gstreamer-1.0")):
            if os.path.exists(os.path.join(d, os.path.basename(f))):
                instead[f] = os.path.join(d, os.path.basename(f))
    path = os.path.join(build, "meson-info", "intro-tests.json")
    tests = json.load(open(path))
    for t in tests:
        env = t.get("env") or {}
        for var in places:
            if var in env:
                env[var] = remap(places, var, env[var])
        cwd = t.get("workdir") or build
        t["cmd"] = [instead.get(os.path.normpath(os.path.join(cwd, a)), a)
                    for a in t["cmd"]]
    # atomic, as runs started in parallel each call this
    tmp = f"{path}.{os.getpid()}"
    json.dump(tests, open(tmp, "w"))
    os.replace(tmp, path)
    for f in gone:
        try:
            os.unlink(f)
        except FileNotFoundError:
            pass
    for var, f in places.items():
        print(f"{var}: {', '.join(d for d in f.values() if d)}", file=sys.stderr)
    print(f"removed from the build: {len(gone)} files", file=sys.stderr)
    return places


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    places = use_installed(*sys.argv[1:])
    # this shell's own search paths (.gpu/env.sh names the build's too)
    for var in places:
        value = remap(places, var, os.environ.get(var, ""))
        for d in places[var].values():
            if d and d not in value.split(":"):
                value = ":".join(v for v in (d, value) if v)
        print(f"export {var}='{value}'")
