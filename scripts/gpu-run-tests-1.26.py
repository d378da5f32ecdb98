#!/usr/bin/env python3
"""Runs the test binaries of build-1.26 (made in the Debian 13 root by
scripts/gpu-bundle-debian13.sh) on a machine whose glibc is older than
Debian 13's: each binary is started through the bundle's own loader, with
the bundle's libraries first, the build's next and the machine's driver
(libcuda, found with ldconfig) last. GStreamer 1.26 comes from the bundle,
and GST_REGISTRY_FORK=no keeps it from starting a plugin scanner, which
would run on the machine's loader.

    .gpu126/run-tests [--build DIR] [--suite NAME] [--allow-skip]
                      [--wrap 'TOOL ARGS'] [--installed ROOT] [NAME ...]
    .gpu126/run-tests [--build DIR] --exec PROGRAM [ARGS ...]

Prints a line per test binary and, last, 'N passed, N failed'. A binary
that skips (exit status 77: no CUDA device) fails unless --allow-skip is
given: on the GPU machine nothing may pass by skipping. The Python GPU
tests run with the python3 on PATH (on the GPU machine a virtualenv with
PyTorch) started through the same loader, with the bundle's PyGObject and
typelibs (made by scripts/gpu-bundle-debian13.sh where it could build the
wheel); other tests that are not binaries of the build are listed and left
out.
--wrap starts each binary's loader under TOOL (split on spaces), for
instance --wrap 'compute-sanitizer --tool memcheck --leak-check full
--error-exitcode 1'. --exec runs one program of the build (the
benchmark, say) the same way, with the arguments after it, and exits with
its status.
--installed ROOT runs them on the Debian 13 packages unpacked in ROOT
(scripts/gpu-bundle-packages.sh) instead of the build's own library,
plugin, typelib and Python module (scripts/gpu-use-installed.py, which
changes the build's test list and deletes those files from it)."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

bundle = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(bundle)
build = os.path.join(top, "build-1.26")
suites, names, allow_skip, wrap, program = [], [], False, [], None
installed = None
args = sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "--exec":
        program = args
        break
    if a == "--build":
        build = os.path.abspath(args.pop(0))
    elif a == "--suite":
        suites.append(args.pop(0))
    elif a == "--allow-skip":
        allow_skip = True
    elif a == "--wrap":
        wrap = args.pop(0).split()
    elif a == "--installed":
        installed = os.path.abspath(args.pop(0))
    elif a in ("-h", "--help"):
        sys.exit(__doc__)
    else:
        names.append(a)


def driver_dirs():
    """Where the machine's libcuda.so.1 is: never bundled, always its own."""
    dirs = []
    try:
        out = subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL).stdout.decode()
    except OSError:
        out = ""
    for line in out.splitlines():
        m = re.search(r"libcuda\.so\.1 \(.*x86-64.*\) => (\S+)", line)
        if m:
            d = os.path.dirname(m.group(1))
            if d not in dirs:
                dirs.append(d)
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64"):
        if os.path.exists(os.path.join(d, "libcuda.so.1")) and d not in dirs:
            dirs.append(d)
    return dirs


loader = os.path.join(bundle, "lib", "ld-linux-x86-64.so.2")
ours = os.path.join(build, "gst", "cudacache")
plugins = os.path.join(build, "ext", "cudacache")
places = None
if installed:
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "use_installed", os.path.join(top, "scripts", "gpu-use-installed.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    places = module.use_installed(build, installed)
    ours = places["LD_LIBRARY_PATH"][ours]
    plugins = places["GST_PLUGIN_PATH_1_0"][plugins]
library_path = ":".join([os.path.join(bundle, "lib"), ours] + driver_dirs())
empty = os.path.join(bundle, "none")
os.makedirs(empty, exist_ok=True)



def environment(test_env):
    """The environment a binary of the build runs in: @test_env over ours,
    GStreamer's plugins the bundle's, no plugin scanner"""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "GST_PLUGIN_SCANNER",
                        "GST_PLUGIN_SCANNER_1_0", "GST_PLUGIN_SYSTEM_PATH",
                        "GST_PLUGIN_SYSTEM_PATH_1_0", "GST_REGISTRY")}
    env.update(test_env or {})
    env.pop("LD_LIBRARY_PATH", None)
    if places:
        # what the caller's environment names of the build too (a test's
        # own environment, read before the build's test list was changed)
        for var in places:
            if var in env:
                env[var] = module.remap(places, var, env[var])
    env["GST_REGISTRY_FORK"] = "no"
    env["GST_PLUGIN_SYSTEM_PATH_1_0"] = os.path.join(bundle, "plugins")
    env.setdefault("GST_PLUGIN_PATH_1_0", plugins)
    env.setdefault("GST_REGISTRY", os.path.join(empty, "..", "exec.registry"))
    # the machine's GIO modules are built for its own GLib
    env["GIO_MODULE_DIR"] = empty
    env["GIO_USE_VFS"] = "local"
    # the bundle's PyGObject and typelibs after the build's own
    for var, d in (("GI_TYPELIB_PATH", "girepository-1.0"),
                   ("PYTHONPATH", "python")):
        if os.path.isdir(os.path.join(bundle, d)):
            env[var] = ":".join(p for p in (env.get(var),
                                            os.path.join(bundle, d)) if p)
    return env


def python_command(cmd):
    """A Python test's command (meson's `env python3 SCRIPT`) as the
    python3 on PATH running SCRIPT, or None where it is not one"""
    if len(cmd) < 3 or os.path.basename(cmd[0]) != "env" or \
            not cmd[1].startswith("python3"):
        return None
    python = shutil.which(cmd[1])
    if python is None or not os.path.isdir(os.path.join(bundle, "python")):
        return None
    # the path PATH gives, not the file it links to: a virtualenv's
    # python3 finds its packages from where it was started
    return [os.path.abspath(python)] + cmd[2:]


if program:
    sys.exit(subprocess.run(wrap + [loader, "--library-path", library_path,
                                    os.path.abspath(program[0])] + program[1:],
                            env=environment(None)).returncode)

tests = json.load(open(os.path.join(build, "meson-info", "intro-tests.json")))
passed = failed = 0
for t in tests:
    if suites and not any(s == su or su.endswith(":" + s) or su == "gst-cuda-cache:" + s
                          for s in suites for su in t["suite"]):
        continue
    if names and not any(n in t["name"] for n in names):
        continue
    exe = t["cmd"][0]
    command = python_command(t["cmd"])
    if command is None:
        if not exe.startswith(build + os.sep):
            print(f"left out {t['name']}: not a binary of the build ({os.path.basename(exe)})")
            continue
        command = t["cmd"]

    env = environment(t.get("env"))

    cmd = wrap + [loader, "--library-path", library_path] + command
    start = time.time()
    try:
        p = subprocess.run(cmd, cwd=t.get("workdir") or build, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=(t.get("timeout") or 300) * (10 if wrap else 1))
        rc, out = p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        rc, out = -1, (e.stdout or b"").decode(errors="replace") + "\nTIMEOUT"
    dt = time.time() - start
    ok = rc == 0 or (rc == 77 and allow_skip)
    if t.get("should_fail"):
        ok = not ok
    cases = re.findall(r"Checks: (\d+), Failures: (\d+), Errors: (\d+)", out)
    detail = ""
    if cases:
        n = sum(int(c) for c, _, _ in cases)
        bad = sum(int(f) + int(e) for _, f, e in cases)
        detail = f" {n - bad}/{n} cases"
    label = "ok  " if ok else "FAIL"
    if rc == 77:
        label = "SKIP" if allow_skip else "FAIL"
        detail = " skipped: " + (out.strip().splitlines() or [""])[-1]
    print(f"{label} {t['name']:<50} {dt:6.2f}s{detail}", flush=True)
    if not ok:
        print("\n".join("    " + line for line in out.splitlines()[-40:]))
    elif wrap:
        # the tool's own verdict, which a passing binary's output hides
        print("\n".join("    " + line for line in out.splitlines()
                         if "SUMMARY" in line))
    passed += ok
    failed += not ok
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
