#!/usr/bin/env python3
"""Checks that every public symbol of the GIR is documented.

Runs gi-docgen's own check (`gi-docgen check`) on GstCudaCache-1.0.gir and
fails on each symbol, property, signal or return value it finds without
documentation, and on any other warning it gives. The allow-list below
names, by C identifier, exported functions on their way out of the public
API: they are left undocumented on purpose. A name of the list that is no
longer in the GIR is reported, not failed, so that the list can be
emptied as they go.

    scripts/check-api-docs.py [--gi-docgen PROGRAM] [--config TOML]
                              [--stamp FILE] GIR

Exits 0 when nothing is undocumented outside the list, 1 otherwise; with
--stamp, writes FILE on success (for the build's API reference target).
"""
import argparse
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

# Symbols of the GIR allowed to stay undocumented: none (the library
# exports what applications call, scripts/check-exports.py)
ALLOWED_UNDOCUMENTED = set()

CORE = "http://www.gtk.org/introspection/core/1.0"
C_NS = "http://www.gtk.org/introspection/c/1.0"
CALLABLES = ("function", "method", "constructor")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
SYMBOL = re.compile(r"symbol '([^']+)'", re.IGNORECASE)


def c_identifiers(gir):
    """Maps gi-docgen's dotted names (Namespace.Type.name, Namespace.name)
    to the C identifiers of the GIR's callables."""
    names = {}
    ns = ET.parse(gir).getroot().find("{%s}namespace" % CORE)
    prefix = ns.get("name")
    for child in ns:
        tag = child.tag.split("}")[1]
        if tag in CALLABLES:
            names["%s.%s" % (prefix, child.get("name"))] = \
                child.get("{%s}identifier" % C_NS)
            continue
        for member in child:
            if member.tag.split("}")[1] in CALLABLES:
                names["%s.%s.%s" % (prefix, child.get("name"),
                                    member.get("name"))] = \
                    member.get("{%s}identifier" % C_NS)
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gi-docgen", default="gi-docgen")
    parser.add_argument("--config")
    parser.add_argument("--stamp")
    parser.add_argument("gir")
    args = parser.parse_args()

    cmd = [args.gi_docgen, "check", "--quiet"]
    if args.config:
        cmd += ["--config", args.config]
    cmd += ["--add-include-path", os.path.dirname(os.path.abspath(args.gir)),
            args.gir]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    names = c_identifiers(args.gir)

    failures = []
    allowed = set()
    for line in ANSI.sub("", out.stdout).splitlines():
        if not line.startswith(("WARNING", "ERROR", "CRITICAL")):
            continue
        m = SYMBOL.search(line)
        if m and names.get(m.group(1)) in ALLOWED_UNDOCUMENTED:
            allowed.add(names[m.group(1)])
            continue
        failures.append(line)

    gone = sorted(ALLOWED_UNDOCUMENTED - set(names.values()))
    if gone:
        print("check-api-docs: no longer in the GIR, take them off the "
              "allow-list: " + ", ".join(gone))
    if out.returncode != 0 and not failures and not allowed:
        # gi-docgen failed without a warning we read: show all it said
        failures = out.stdout.splitlines() or ["gi-docgen check failed"]

    if failures:
        print("\n".join(failures))
        print("check-api-docs: %d undocumented (or other warnings); "
              "%d allowed on the list" % (len(failures), len(allowed)))
        return 1
    print("check-api-docs: every public symbol documented (%d callables; "
          "%d left undocumented by the allow-list)" %
          (len(set(names.values())), len(allowed)))
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
