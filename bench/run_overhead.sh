#!/bin/sh
# run_overhead.sh: `cwsc run` against the same argv run directly by
# /usr/bin/bwrap, side by side in one run (interleaved, so both see the same
# machine load). Reports the median wall time and the peak RSS of each, for
# /bin/true and for a short shell command.
#
#   bench/run_overhead.sh [CWSC_BINARY] [RUNS] [BEFORE_BINARY]
#   bench/run_overhead.sh build/cli/cwsc 300
#   bench/run_overhead.sh build/cli/cwsc 300 ../base/build/cli/cwsc   # before/after
#   CWSC_BENCH_CONFIG=examples/workspace.toml bench/run_overhead.sh build/cli/cwsc 300
#
# With BEFORE_BINARY, a second cwsc (an earlier build) runs in the same
# interleaved loop, with its own bare bwrap argv and supervisor, and the table
# gets a row for each; "after - before" is the change in `cwsc run` wall time
# and in what cwsc costs above its supervisor.
# A plan with a seccomp stage names `--seccomp 3`: the bare launchers get the
# program (`cwsc compile --target seccomp-bpf`) on fd 3, as `cwsc run` does.
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
BEFORE=${3:-}
case "$CWSC" in /*) ;; *) CWSC="$(pwd)/$CWSC" ;; esac
[ -x "$CWSC" ] || { echo "run_overhead.sh: $CWSC is not executable" >&2; exit 2; }
if [ -n "$BEFORE" ]; then
  case "$BEFORE" in /*) ;; *) BEFORE="$(pwd)/$BEFORE" ;; esac
  [ -x "$BEFORE" ] || { echo "run_overhead.sh: $BEFORE is not executable" >&2; exit 2; }
fi
REFS="$(dirname "$CWSC")/../bench"
for ref in exec_trampoline min_supervisor; do
  [ -x "$REFS/$ref" ] || { echo "run_overhead.sh: $REFS/$ref is missing (build with -Dbench=enabled)" >&2; exit 2; }
done
[ -x /usr/bin/bwrap ] || { echo "run_overhead.sh: /usr/bin/bwrap is missing" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run_overhead.sh: GNU time (/usr/bin/time) is missing" >&2; exit 2; }

WORK=$(mktemp -d /var/tmp/cwsc-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/ws"
# CWSC_BENCH_CONFIG=FILE: time that config (e.g. examples/workspace.toml, a
# user config with model and UI keys beside the sandbox ones) instead of an
# empty one.
if [ -n "${CWSC_BENCH_CONFIG:-}" ]; then
  cp "$CWSC_BENCH_CONFIG" "$WORK/config.toml" || exit 2
else
  : > "$WORK/config.toml"
fi

# Not exec: the EXIT trap above removes the work directory afterwards.
/usr/bin/python3 - "$CWSC" "$RUNS" "$WORK" "$REFS" "$BEFORE" <<'PY'
import os, statistics, subprocess, sys, time

cwsc, runs, work, refs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
before = sys.argv[5] or None
trampoline = os.path.join(refs, "exec_trampoline")
supervisor = os.path.join(refs, "min_supervisor")
ws, config = os.path.join(work, "ws"), os.path.join(work, "config.toml")
cases = [("/bin/true", ["/bin/true"]),
         ("sh -c 'echo hi; ls'", ["/bin/sh", "-c", "echo hi >/dev/null; ls >/dev/null"])]

def bare_argv(binary, program):
    out = subprocess.run([binary, "compile", config, "--mode", "ask", "--cwd", ws,
                          "--target", "bwrap", "--format", "nul", "--"] + program,
                         check=True, capture_output=True).stdout
    argv = [a.decode() for a in out.split(b"\0")[:-1]]
    bpf = None
    if "--seccomp" in argv:
        bpf = os.path.join(work, "filter-%d.bpf" % len(os.listdir(work)))
        with open(bpf, "wb") as f:
            f.write(subprocess.run([binary, "compile", config, "--mode", "ask", "--cwd", ws,
                                    "--target", "seccomp-bpf"], check=True,
                                   capture_output=True).stdout)
    return argv, bpf

FD3 = {}  # argv id -> seccomp program file for launchers that run a bare argv

def fd3(path):
    """Open `path` as fd 3, inheritable, at offset 0."""
    prog = os.open(path, os.O_RDONLY)
    if prog != 3:
        os.dup2(prog, 3, inheritable=True)
        os.close(prog)
    else:
        os.set_inheritable(3, True)

def run_once(argv):
    bpf = FD3.get(id(argv))
    if bpf:
        fd3(bpf)
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
    if bpf:
        os.close(3)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("run_overhead.sh: %r failed with status %d" % (argv[:3], status))
    return (t1 - t0) * 1000.0

def peak_rss(argv, n=10):
    peak = 0
    bpf = FD3.get(id(argv))
    for _ in range(n):
        if bpf:  # the program on fd 3, from its start
            fd3(bpf)
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, cwd=ws, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True,
                           pass_fds=(3,) if bpf else ())
        if bpf:
            os.close(3)
        peak = max(peak, int(r.stderr.decode().strip().splitlines()[-1]))
    return peak

print("| command | runs | bare bwrap ms | trampoline ms | min supervisor ms | cwsc run ms "
      "| cwsc - sup ms | bare bwrap RSS KiB | cwsc run RSS KiB |")
print("|---|---|---|---|---|---|---|---|---|")
worst, floor = 0.0, 0.0
deltas = []
for name, program in cases:
    groups = []  # per binary: bare, trampoline, supervisor, cwsc run
    for binary in [cwsc] + ([before] if before else []):
        bare, bpf = bare_argv(binary, program)
        group = [bare, [trampoline] + bare, [supervisor] + bare,
                 [binary, "run", config, "--mode", "ask", "--cwd", ws, "--"] + program]
        for argv in group[:3]:
            if bpf:
                FD3[id(argv)] = bpf
        groups.append(group)
    launchers = [argv for group in groups for argv in group]
    for _ in range(10):          # warm caches (and the probe verdict cache)
        for argv in launchers:
            run_once(argv)
    times = [[] for _ in launchers]
    for i in range(runs):        # interleaved, in a rotating order
        for k in range(len(launchers)):
            j = (i + k) % len(launchers)
            times[j].append(run_once(launchers[j]))
    meds = [statistics.median(t) for t in times]
    for g, group in enumerate(groups):
        med = meds[4 * g:4 * g + 4]
        if g == 0:
            worst = max(worst, med[3] / med[0])
            floor = max(floor, med[2] / med[0])
        label = name if len(groups) == 1 else "%s (%s)" % (name, "after" if g == 0 else "before")
        print("| %s | %d | %.2f | %.2f (%.2fx) | %.2f (%.2fx) | %.2f (%.2fx) | %.2f | %d | %d |"
              % (label, runs, med[0], med[1], med[1] / med[0], med[2], med[2] / med[0],
                 med[3], med[3] / med[0], med[3] - med[2], peak_rss(group[0]),
                 peak_rss(group[3])))
    if len(groups) == 2:
        a, b = meds[0:4], meds[4:8]
        deltas.append("%s: cwsc run after - before %+.2f ms; (cwsc - sup) after - before %+.2f ms"
                      % (name, a[3] - b[3], (a[3] - a[2]) - (b[3] - b[2])))
print()
for d in deltas:
    print(d)
print("worst cwsc ratio %.2fx (target <= 1.10x; a bare supervising parent: %.2fx); "
      "cwsc peak RSS target <= 8192 KiB" % (worst, floor))
PY
