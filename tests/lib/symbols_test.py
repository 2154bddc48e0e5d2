#!/usr/bin/env python3
"""libcwsc exports exactly its C API (docs/embedding.md).

usage: symbols_test.py HEADER LIBRARY.so

Checks that the dynamic symbols the library defines (`nm -D --defined-only`,
the version node aside) are exactly the functions cwsc.h declares with
CWSC_API, each at version CWSC_0, and that the soname carries the ABI
version of the header (libcwsc.so.<CWSC_ABI_VERSION>). Exit status 0 when
both hold; otherwise the differences are printed.
"""

import re
import subprocess
import sys


def main():
    header, library = sys.argv[1], sys.argv[2]
    text = open(header, encoding="utf-8").read()
    declared = set(re.findall(r"CWSC_API\s[^;(]*?\b(cwsc_\w+)\s*\(", text))
    abi = re.search(r"#define CWSC_ABI_VERSION (\d+)", text).group(1)
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                         capture_output=True, text=True).stdout
    exported, versions = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) != 3:
            continue
        kind, name = fields[1], fields[2]
        if kind == "A":  # the version node itself
            versions.add(name)
            continue
        base, _, version = name.partition("@@")
        exported.add(base)
        if version != "CWSC_0":
            print(f"{base}: version {version or '(none)'}, expected CWSC_0")
            return 1
    ok = True
    if len(declared) < 40:
        print(f"only {len(declared)} functions found in {header}: the scan is broken")
        ok = False
    for name in sorted(exported - declared):
        print(f"exported but not in the API: {name}")
        ok = False
    for name in sorted(declared - exported):
        print(f"in the API but not exported: {name}")
        ok = False
    dyn = subprocess.run(["readelf", "-d", library], check=True, capture_output=True,
                         text=True).stdout
    soname = re.search(r"Library soname: \[([^\]]+)\]", dyn)
    if not soname or soname.group(1) != f"libcwsc.so.{abi}":
        print(f"soname {soname.group(1) if soname else '(none)'}, expected libcwsc.so.{abi}")
        ok = False
    if ok:
        print(f"{len(exported)} symbols, exactly the API; soname libcwsc.so.{abi}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
