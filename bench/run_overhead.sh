#!/bin/sh
# run_overhead.sh: `cwsc run` against the same argv run directly by
# /usr/bin/bwrap, side by side in one run (interleaved, so both see the same
# machine load). Reports the median wall time and the peak RSS of each, for
# /bin/true and for a short shell command.
#
#   bench/run_overhead.sh [CWSC_BINARY] [RUNS]
#   bench/run_overhead.sh build/cli/cwsc 300
#
# Wall time is measured around fork+exec+wait of the whole command. Peak RSS
# is GNU time's %M (ru_maxrss of the command): the largest resident set of
# the command and every descendant it waited for (for `cwsc run`, cwsc itself
# is the largest), measured in separate runs so time(1) does not skew the
# wall clock.
# The argv for bare bwrap is the one `cwsc compile --format nul` emits for
# the same config, mode and workspace, so both runs build the same sandbox.
# Two reference launchers built beside cwsc (bench/*.cc, statically linked)
# run the same bwrap argv and show this host's floor: exec_trampoline is one
# extra program start in front of bwrap, min_supervisor a parent that only
# forks, execs and waits. "cwsc - sup" is what cwsc costs above the latter.
# Targets (docs/runtime.md): cwsc ≤ 1.10× bare bwrap wall time, ≤ 8 MiB RSS.
set -eu
CWSC=${1:-build/cli/cwsc}
RUNS=${2:-200}
case "$CWSC" in /*) ;; *) CWSC="$(pwd)/$CWSC" ;; esac
[ -x "$CWSC" ] || { echo "run_overhead.sh: $CWSC is not executable" >&2; exit 2; }
REFS="$(dirname "$CWSC")/../bench"
for ref in exec_trampoline min_supervisor; do
  [ -x "$REFS/$ref" ] || { echo "run_overhead.sh: $REFS/$ref is missing (build with -Dbench=enabled)" >&2; exit 2; }
done
[ -x /usr/bin/bwrap ] || { echo "run_overhead.sh: /usr/bin/bwrap is missing" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run_overhead.sh: GNU time (/usr/bin/time) is missing" >&2; exit 2; }

WORK=$(mktemp -d /var/tmp/cwsc-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/ws"
: > "$WORK/config.toml"

exec /usr/bin/python3 - "$CWSC" "$RUNS" "$WORK" "$REFS" <<'PY'
import os, statistics, subprocess, sys, time

cwsc, runs, work, refs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
trampoline = os.path.join(refs, "exec_trampoline")
supervisor = os.path.join(refs, "min_supervisor")
ws, config = os.path.join(work, "ws"), os.path.join(work, "config.toml")
cases = [("/bin/true", ["/bin/true"]),
         ("sh -c 'echo hi; ls'", ["/bin/sh", "-c", "echo hi >/dev/null; ls >/dev/null"])]

def bare_argv(program):
    out = subprocess.run([cwsc, "compile", config, "--mode", "ask", "--cwd", ws,
                          "--target", "bwrap", "--format", "nul", "--"] + program,
                         check=True, capture_output=True).stdout
    return [a.decode() for a in out.split(b"\0")[:-1]]

def run_once(argv):
    devnull = os.open(os.devnull, os.O_RDWR)
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(devnull, 0); os.dup2(devnull, 1); os.chdir(ws)
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter()
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("run_overhead.sh: %r failed with status %d" % (argv[:3], status))
    return (t1 - t0) * 1000.0

def peak_rss(argv, n=10):
    peak = 0
    for _ in range(n):
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, cwd=ws, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
        peak = max(peak, int(r.stderr.decode().strip().splitlines()[-1]))
    return peak

print("| command | runs | bare bwrap ms | trampoline ms | min supervisor ms | cwsc run ms "
      "| cwsc - sup ms | bare bwrap RSS KiB | cwsc run RSS KiB |")
print("|---|---|---|---|---|---|---|---|---|")
worst, floor = 0.0, 0.0
for name, program in cases:
    bare = bare_argv(program)
    launchers = [bare, [trampoline] + bare, [supervisor] + bare,
                 [cwsc, "run", config, "--mode", "ask", "--cwd", ws, "--"] + program]
    for _ in range(10):          # warm caches (and the probe verdict cache)
        for argv in launchers:
            run_once(argv)
    times = [[] for _ in launchers]
    for i in range(runs):        # interleaved, in a rotating order
        for k in range(len(launchers)):
            j = (i + k) % len(launchers)
            times[j].append(run_once(launchers[j]))
    med = [statistics.median(t) for t in times]
    worst = max(worst, med[3] / med[0])
    floor = max(floor, med[2] / med[0])
    print("| %s | %d | %.2f | %.2f (%.2fx) | %.2f (%.2fx) | %.2f (%.2fx) | %.2f | %d | %d |"
          % (name, runs, med[0], med[1], med[1] / med[0], med[2], med[2] / med[0],
             med[3], med[3] / med[0], med[3] - med[2], peak_rss(bare), peak_rss(launchers[3])))
print()
print("worst cwsc ratio %.2fx (target <= 1.10x; a bare supervising parent: %.2fx); "
      "cwsc peak RSS target <= 8192 KiB" % (worst, floor))
PY
