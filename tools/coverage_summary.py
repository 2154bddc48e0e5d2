#!/usr/bin/python3
"""Print line and branch coverage per source folder of a coverage build
(tools/run_tests.sh, stage coverage): `coverage_summary.py BUILD_DIR`.
gcovr reads the .gcda files the suites left; generated code (the ANTLR
parser) and the tests themselves are left out."""
import collections
import json
import subprocess
import sys

build = sys.argv[1] if len(sys.argv) > 1 else "build-cov"
folders = ["cli", "compiler", "ir", "backends", "runtime", "fuzz"]
out = subprocess.run(
    ["gcovr", "--root", ".", build, "--json-summary", "-",
     "--exclude-unreachable-branches", "--exclude-throw-branches"]
    + [arg for f in folders for arg in ("--filter", f + "/")],
    check=True, capture_output=True, text=True).stdout
files = json.loads(out)["files"]
totals = collections.OrderedDict((f, [0, 0, 0, 0]) for f in folders + ["all"])
for entry in files:
    folder = entry["filename"].split("/", 1)[0]
    if folder not in totals:
        continue
    for key in (folder, "all"):
        t = totals[key]
        t[0] += entry["line_covered"]
        t[1] += entry["line_total"]
        t[2] += entry["branch_covered"]
        t[3] += entry["branch_total"]


def pct(a, b):
    return f"{100.0 * a / b:5.1f}%" if b else "    -"


print(f"{'folder':10} {'lines':>22} {'branches':>22}")
for folder, (lc, lt, bc, bt) in totals.items():
    print(f"{folder:10} {pct(lc, lt)} {lc:6}/{lt:<6}   {pct(bc, bt)} {bc:6}/{bt:<6}")
