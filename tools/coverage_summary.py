#!/usr/bin/python3
"""Print line and branch coverage per source folder of a coverage build
(tools/run_tests.sh, stage coverage): `coverage_summary.py BUILD_DIR`.
gcovr reads the .gcda files the suites left; generated code (the ANTLR
parser) and the tests themselves are left out. A clang build's counters
are read with that clang's llvm-cov (its gcov mode)."""
import collections
import json
import re
import shutil
import subprocess
import sys

build = sys.argv[1] if len(sys.argv) > 1 else "build-cov"


def gcov_executable(build_dir):
    """gcov for g++ builds; `llvm-cov-N gcov` for a clang++ N build."""
    with open(build_dir + "/build.ninja", encoding="utf-8") as f:
        ninja = f.read()
    if not re.search(r"command = (\S*ccache )?clang\+\+", ninja):
        return "gcov"
    version = subprocess.run(["clang++", "--version"], check=True, capture_output=True,
                             text=True).stdout
    major = re.search(r"clang version (\d+)", version).group(1)
    for name in ("llvm-cov-" + major, "llvm-cov"):
        if shutil.which(name):
            return name + " gcov"
    sys.exit("coverage_summary.py: llvm-cov-%s is missing (Debian package llvm-%s)" % (major, major))


folders = ["cli", "compiler", "ir", "backends", "runtime", "fuzz"]
command = (["gcovr", "--root", ".", build, "--json-summary", "-",
            "--gcov-executable", gcov_executable(build),
            "--exclude-unreachable-branches", "--exclude-throw-branches"]
           + [arg for f in folders for arg in ("--filter", f + "/")])
run = subprocess.run(command, capture_output=True, text=True)
if run.returncode != 0:
    # Say why, then read the counters once more past the lines gcov printed
    # that gcovr cannot parse; the totals say they are partial.
    sys.stderr.write(run.stderr)
    sys.stderr.write("coverage_summary.py: gcovr exited %d; reading again with "
                     "--gcov-ignore-parse-errors\n" % run.returncode)
    run = subprocess.run(command + ["--gcov-ignore-parse-errors"], capture_output=True,
                         text=True)
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        sys.exit("coverage_summary.py: gcovr exited %d" % run.returncode)
    print("(partial: gcovr skipped lines it could not parse; see above)")
out = run.stdout
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
