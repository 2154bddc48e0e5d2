#!/usr/bin/env python3
"""Compare the Google Benchmark programs of two builds, in one run.

  bench/compare_builds.py BEFORE_BUILD AFTER_BUILD [ROUNDS] [MIN_TIME]

Runs each program of bench/ (the in-process benchmarks: compile, DSL,
Seatbelt, scale, run path, library, host cost) from both build directories,
alternating BEFORE and AFTER for ROUNDS rounds (default 3), each run with
three repetitions, so that load on the machine falls on both alike, and
prints each benchmark's fastest real time before and after and their ratio
(on a shared VM the fastest run is the one least disturbed; medians move by
tens of percent between runs of one build). PROGRAMS (comma-separated, in
the environment) picks some of the programs, FILTER (a --benchmark_filter
regular expression) some of their benchmarks. Exits 1 when a benchmark is
more than 10% slower after (docs/performance.md, "Before and after").
"""

import json
import os
import subprocess
import sys

PROGRAMS = os.environ.get("PROGRAMS", "compile_bench,dsl_bench,seatbelt_bench,scale_bench,"
                          "run_path_bench,lib_bench,host_cost_bench").split(",")


def run(build, program, min_time):
    path = os.path.join(build, "bench", program)
    if not os.access(path, os.X_OK):
        return None
    # Each build reads the inputs (goldens, examples) of its own source tree.
    env = dict(os.environ, CWSC_SOURCE_ROOT=os.path.dirname(os.path.abspath(build)))
    out = subprocess.run([path, "--benchmark_format=json", "--benchmark_min_time=%s" % min_time,
                          "--benchmark_repetitions=3",
                          "--benchmark_filter=%s" % os.environ.get("FILTER", ".")],
                         capture_output=True, text=True, check=True, env=env).stdout
    best = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        name = b.get("run_name", b["name"])
        best[name] = min(best.get(name, b["real_time"]), b["real_time"])
    return best


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    before, after = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    min_time = sys.argv[4] if len(sys.argv) > 4 else "0.1"
    times = {}  # (program, name) -> {"before": [...], "after": [...]}
    for _ in range(rounds):
        for program in PROGRAMS:
            for side, build in (("before", before), ("after", after)):
                got = run(build, program, min_time)
                for name, t in (got or {}).items():
                    times.setdefault((program, name), {"before": [], "after": []})[side].append(t)
    worst = 0.0
    print("%-60s %12s %12s %7s" % ("benchmark (fastest real time)", "before", "after", "ratio"))
    for (program, name), sides in sorted(times.items()):
        if not sides["before"] or not sides["after"]:
            print("%-60s %s" % (name[:60], "only " + ("after" if sides["after"] else "before")))
            continue
        b, a = min(sides["before"]), min(sides["after"])
        ratio = a / b if b > 0 else 1.0
        worst = max(worst, ratio)
        print("%-60s %12.1f %12.1f %7.3f" % (name[:60], b, a, ratio))
    print("slowest after/before: %.3f" % worst)
    return 1 if worst > 1.10 else 0


if __name__ == "__main__":
    sys.exit(main())
