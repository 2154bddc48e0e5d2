#!/bin/sh
# landlock_overhead.sh: what a Landlock launch costs (docs/runtime.md, "The
# Landlock backend") against a bare fork/exec/wait, side by side in one run
# (interleaved, so all see the same machine load). Rows: the floor
# (bench/min_supervisor running the program: fork, exec, wait), `cwsc run`
# with `sandbox_linux_backend = "landlock"` (ruleset, no_new_privs, seccomp,
# exec; no bwrap), and `cwsc run` with bubblewrap on the same policy.
#
#   bench/landlock_overhead.sh [CWSC_BINARY] [RUNS]
#   bench/landlock_overhead.sh build/cli/cwsc 300
set -eu
CWSC=${1:-build/cli/cwsc}
RUNS=${2:-200}
case "$CWSC" in /*) ;; *) CWSC="$(pwd)/$CWSC" ;; esac
[ -x "$CWSC" ] || { echo "landlock_overhead.sh: $CWSC is not executable" >&2; exit 2; }
SUP="$(dirname "$CWSC")/../bench/min_supervisor"
[ -x "$SUP" ] || { echo "landlock_overhead.sh: $SUP is missing (build with -Dbench=enabled)" >&2; exit 2; }
WORK=$(mktemp -d /var/tmp/cwsc-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/ws"
printf 'sandbox_linux_backend = "landlock"\n' > "$WORK/landlock.toml"
: > "$WORK/bwrap.toml"
/usr/bin/python3 - "$CWSC" "$RUNS" "$WORK" "$SUP" <<'PY'
import os, statistics, subprocess, sys, time

cwsc, runs, work, sup = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ws = os.path.join(work, "ws")
kind = subprocess.run([cwsc, "compile", os.path.join(work, "landlock.toml"), "--mode", "ask",
                       "--cwd", ws, "--target", "plan"], capture_output=True, check=True).stdout
if b'"linux-landlock"' not in kind:
    sys.exit("landlock_overhead.sh: the landlock config did not compile to a linux-landlock plan")
rows = [
    ("bare fork/exec/wait (min_supervisor)", [sup, "/bin/true"]),
    ("cwsc run, landlock", [cwsc, "run", os.path.join(work, "landlock.toml"), "--mode", "ask",
                            "--cwd", ws, "--", "/bin/true"]),
    ("cwsc run, bwrap", [cwsc, "run", os.path.join(work, "bwrap.toml"), "--mode", "ask",
                         "--cwd", ws, "--", "/bin/true"]),
]

def once(argv):
    devnull = os.open(os.devnull, os.O_RDWR)
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(devnull, 0); os.dup2(devnull, 1); os.dup2(devnull, 2); os.chdir(ws)
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter()
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("landlock_overhead.sh: %r failed with status %d" % (argv[:3], status))
    return (t1 - t0) * 1000.0

times = [[] for _ in rows]
for _ in range(runs):
    for i, (_, argv) in enumerate(rows):
        times[i].append(once(argv))
floor = statistics.median(times[0])
print("| launch of /bin/true | runs | median ms | above the floor ms |")
print("|---|---|---|---|")
for (name, _), t in zip(rows, times):
    m = statistics.median(t)
    print("| %s | %d | %.2f | %.2f |" % (name, runs, m, m - floor))
PY
