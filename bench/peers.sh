#!/bin/sh
# peers.sh: the cost of starting a sandboxed command with cwsc and with its
# peers, against the same command run directly by /usr/bin/bwrap, all in one
# interleaved loop (so every launcher sees the same machine load).
#
#   bench/peers.sh [--with-peers] [--runs N] [CWSC_BINARY]
#   bench/peers.sh --runs 200 build/cli/cwsc
#   bench/peers.sh --with-peers build/cli/cwsc
#
# Launchers, each on `/bin/true` and on `sh -c 'echo hi >/dev/null; ls
# >/dev/null'`, in a fresh workspace with an empty config.toml, mode `ask`
# (workspace-write, network on):
#   bare bwrap     the argv `cwsc compile --target bwrap --format nul` emits,
#                  with the seccomp program (`--target seccomp-bpf`) on fd 3
#                  when the argv names `--seccomp 3` (as bench/run_overhead.sh)
#   cwsc run       cwsc run CONFIG --mode ask --cwd WS -- CMD
#   cwsc exec      cwsc exec PLAN.json -- CMD, the plan compiled beforehand
#                  with `cwsc compile CONFIG --mode ask --cwd WS --target plan`
# and with --with-peers, installed with npm into a temporary prefix:
#   codex sandbox  OpenAI Codex CLI @openai/codex@$CODEX_VERSION:
#                  `codex sandbox -c sandbox_mode="workspace-write"
#                  -c sandbox_workspace_write.network_access=true -- CMD`
#                  started in WS (its writable root is the working directory;
#                  `-C DIR` in 0.171.0 requires a named permission profile),
#                  once through npm's `codex` command (a node script that
#                  starts the native binary) and once the native binary itself
#   srt            @anthropic-ai/sandbox-runtime@$SRT_VERSION:
#                  `srt --settings SETTINGS.json -- CMD`, the settings allowing
#                  writes to WS only (srt needs ripgrep and socat; they are
#                  installed with apt-get when missing)
# A peer that cannot be installed or does not pass the check below is
# reported as skipped, with the reason, on one line.
#
# Before timing, each launcher runs a probe once, output not redirected:
# `sh -c` that prints hi, writes and removes a file in the workspace and
# tries to write outside it. It must exit 0, print hi, write in the
# workspace and not outside, so a launcher that fails or does not confine
# cannot post a time. Every timed run must exit 0 as well.
# Wall time is measured around fork+exec+wait of the whole command, after
# warm-up runs, over N rounds (default 200) in a rotating order; the table
# gives the median, the 90th percentile and the median's ratio to bare
# bwrap's median for the same command.
set -eu
CODEX_VERSION=0.171.0
SRT_VERSION=0.0.83

usage() { echo "usage: bench/peers.sh [--with-peers] [--runs N] [CWSC_BINARY]" >&2; exit 2; }
PEERS=0
RUNS=200
CWSC=
while [ $# -gt 0 ]; do
  case "$1" in
    --with-peers) PEERS=1 ;;
    --runs)
      [ $# -ge 2 ] || { echo "peers.sh: --runs needs a number" >&2; exit 2; }
      RUNS=$2; shift ;;
    --runs=*) RUNS=${1#--runs=} ;;
    -h|--help) echo "usage: bench/peers.sh [--with-peers] [--runs N] [CWSC_BINARY]"; exit 0 ;;
    -*) echo "peers.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$CWSC" ] || usage; CWSC=$1 ;;
  esac
  shift
done
case "$RUNS" in ''|*[!0-9]*|0) echo "peers.sh: --runs wants a positive integer, not '$RUNS'" >&2; exit 2 ;; esac
CWSC=${CWSC:-build/cli/cwsc}
case "$CWSC" in /*) ;; *) CWSC="$(pwd)/$CWSC" ;; esac
[ -x "$CWSC" ] || { echo "peers.sh: $CWSC is not executable" >&2; exit 2; }
[ -x /usr/bin/bwrap ] || { echo "peers.sh: /usr/bin/bwrap is missing" >&2; exit 2; }

WORK=$(mktemp -d /var/tmp/cwsc-peers-XXXXXX)
trap 'rm -rf "$WORK"' EXIT  # python3 below is not exec'd, so this runs
mkdir "$WORK/ws" "$WORK/home"
: > "$WORK/config.toml"
"$CWSC" compile "$WORK/config.toml" --mode ask --cwd "$WORK/ws" --target plan > "$WORK/plan.json"

# Peers: installed into $WORK/peers; a failure becomes a "skipped" line.
CODEX_SKIP=
SRT_SKIP=
if [ "$PEERS" = 1 ]; then
  if ! command -v npm >/dev/null 2>&1; then
    CODEX_SKIP="npm is not installed"; SRT_SKIP=$CODEX_SKIP
  else
    if ! npm install --prefix "$WORK/peers" --no-audit --no-fund --loglevel=error \
        "@openai/codex@$CODEX_VERSION" > "$WORK/npm-codex.log" 2>&1; then
      CODEX_SKIP="npm install @openai/codex@$CODEX_VERSION failed: $(grep -m1 -i 'err' "$WORK/npm-codex.log" || tail -n1 "$WORK/npm-codex.log")"
    fi
    if ! npm install --prefix "$WORK/peers" --no-audit --no-fund --loglevel=error \
        "@anthropic-ai/sandbox-runtime@$SRT_VERSION" > "$WORK/npm-srt.log" 2>&1; then
      SRT_SKIP="npm install @anthropic-ai/sandbox-runtime@$SRT_VERSION failed: $(grep -m1 -i 'err' "$WORK/npm-srt.log" || tail -n1 "$WORK/npm-srt.log")"
    fi
  fi
  if [ -z "$SRT_SKIP" ] && ! { command -v rg && command -v socat; } >/dev/null 2>&1; then
    if ! { apt-get install -y --no-install-recommends ripgrep socat ||
           { apt-get update && apt-get install -y --no-install-recommends ripgrep socat; }; } \
        > "$WORK/apt.log" 2>&1; then
      SRT_SKIP="srt needs ripgrep and socat; apt-get install failed: $(grep -m1 '^E:' "$WORK/apt.log" || tail -n1 "$WORK/apt.log")"
    fi
  fi
fi

/usr/bin/python3 - "$CWSC" "$RUNS" "$WORK" "$PEERS" "$CODEX_SKIP" "$SRT_SKIP" <<'PY'
import datetime, glob, json, os, platform, shlex, statistics, subprocess, sys, time

cwsc, runs, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
peers, codex_skip, srt_skip = sys.argv[4] == "1", sys.argv[5], sys.argv[6]
ws, config, plan = (os.path.join(work, n) for n in ("ws", "config.toml", "plan.json"))
outside = os.path.join(work, "outside")
cases = [("/bin/true", ["/bin/true"]),
         ("sh -c 'echo hi; ls'", ["/bin/sh", "-c", "echo hi >/dev/null; ls >/dev/null"])]
probe = ["/bin/sh", "-c", "echo hi; touch probe && rm probe && echo wrote; "
         "touch %s 2>/dev/null && echo escaped; exit 0" % shlex.quote(outside)]

def version(argv, env=None):
    try:
        r = subprocess.run(argv, capture_output=True, env=env, timeout=60)
        return (r.stdout or r.stderr).decode().strip().splitlines()[0]
    except Exception as e:  # reported, not fatal
        return "unknown (%s)" % e

class Launcher:
    def __init__(self, name, make, env=None, bare=False):
        self.name, self.make, self.env, self.bare = name, make, env, bare
        self.skip = None
        self.argv = {}  # case name -> (argv, seccomp program or None)

    def prepare(self, key, program):
        self.argv[key] = self.make(program)

def bare_argv(program):
    out = subprocess.run([cwsc, "compile", config, "--mode", "ask", "--cwd", ws,
                          "--target", "bwrap", "--format", "nul", "--"] + program,
                         check=True, capture_output=True).stdout
    argv = [a.decode() for a in out.split(b"\0")[:-1]]
    bpf = None
    if "--seccomp" in argv:
        bpf = os.path.join(work, "filter.bpf")
        if not os.path.exists(bpf):
            with open(bpf, "wb") as f:
                f.write(subprocess.run([cwsc, "compile", config, "--mode", "ask", "--cwd", ws,
                                        "--target", "seccomp-bpf"], check=True,
                                       capture_output=True).stdout)
    return argv, bpf

def fd3(path):
    """Open `path` as fd 3, inheritable, at offset 0."""
    prog = os.open(path, os.O_RDONLY)
    if prog != 3:
        os.dup2(prog, 3, inheritable=True)
        os.close(prog)
    else:
        os.set_inheritable(3, True)

def run_once(launcher, key):
    argv, bpf = launcher.argv[key]
    env = launcher.env if launcher.env is not None else os.environ
    if bpf:
        fd3(bpf)
    devnull = os.open(os.devnull, os.O_RDWR)
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(devnull, 0); os.dup2(devnull, 1); os.chdir(ws)
        try:
            os.execve(argv[0], argv, env)
        except OSError as e:
            os.write(2, ("peers.sh: cannot start %s: %s\n" % (argv[0], e)).encode())
        finally:
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter()
    os.close(devnull)
    if bpf:
        os.close(3)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("peers.sh: %s on %s failed with exit status %d: %s"
                 % (launcher.name, key, os.waitstatus_to_exitcode(status), shlex.join(argv)))
    return (t1 - t0) * 1000.0

def check(launcher):
    """The probe, output captured: None when it behaves, else why not."""
    argv, bpf = launcher.make(probe)
    if bpf:
        fd3(bpf)
    try:
        r = subprocess.run(argv, cwd=ws, stdin=subprocess.DEVNULL, capture_output=True,
                           env=launcher.env, pass_fds=(3,) if bpf else (), timeout=120)
    except Exception as e:
        return "probe did not run: %s" % e
    finally:
        if bpf:
            os.close(3)
    out = r.stdout.decode(errors="replace").split()
    if os.path.exists(outside):
        os.unlink(outside)
        return "probe wrote outside the workspace (no confinement)"
    if r.returncode != 0 or out != ["hi", "wrote"]:
        err = r.stderr.decode(errors="replace").strip().splitlines()
        return "probe exited %d with output %r%s" % (r.returncode, " ".join(out),
                                                     ": " + err[-1] if err else "")
    return None

launchers = [
    Launcher("bare bwrap", bare_argv, bare=True),
    Launcher("cwsc run", lambda p: ([cwsc, "run", config, "--mode", "ask", "--cwd", ws, "--"] + p,
                                    None)),
    Launcher("cwsc exec", lambda p: ([cwsc, "exec", plan, "--"] + p, None)),
]
skipped = []
versions = ["bwrap %s" % version(["/usr/bin/bwrap", "--version"]).split()[-1],
            "cwsc %s" % version([cwsc, "--version"]).split()[-1]]
if peers:
    bindir = os.path.join(work, "peers", "node_modules", ".bin")
    peer_env = dict(os.environ, HOME=os.path.join(work, "home"),
                    CODEX_HOME=os.path.join(work, "home"))
    codex_flags = ["sandbox", "-c", 'sandbox_mode="workspace-write"',
                   "-c", "sandbox_workspace_write.network_access=true", "--"]
    if codex_skip:
        skipped.append("codex sandbox: " + codex_skip)
    else:
        shim = os.path.join(bindir, "codex")
        native = sorted(glob.glob(os.path.join(work, "peers", "node_modules", "@openai",
                                               "codex-linux-*", "vendor", "*", "bin", "codex")))
        launchers.append(Launcher("codex sandbox (npm `codex`)",
                                  lambda p: ([shim] + codex_flags + p, None), peer_env))
        if native:
            launchers.append(Launcher("codex sandbox (native binary)",
                                      lambda p: ([native[0]] + codex_flags + p, None), peer_env))
        else:
            skipped.append("codex sandbox (native binary): no @openai/codex-linux-* binary "
                           "was installed")
        versions.append(version([shim, "--version"], peer_env))
    if srt_skip:
        skipped.append("srt: " + srt_skip)
    else:
        settings = os.path.join(work, "srt-settings.json")
        with open(settings, "w") as f:
            json.dump({"filesystem": {"denyRead": [], "allowWrite": [ws], "denyWrite": []},
                       "network": {"allowedDomains": [], "deniedDomains": []}}, f)
        srt = os.path.join(bindir, "srt")
        launchers.append(Launcher("srt", lambda p: ([srt, "--settings", settings, "--"] + p, None),
                                  peer_env))
        versions.append("srt %s" % version([srt, "--version"], peer_env))
    versions.append("node %s" % version(["node", "--version"]))

kept = []
for l in launchers:
    why = check(l)
    if why is None:
        kept.append(l)
    elif l.bare or l.name.startswith("cwsc"):
        sys.exit("peers.sh: %s fails the probe: %s" % (l.name, why))
    else:
        skipped.append("%s: %s" % (l.name, why))
launchers = kept

print("%s UTC, Linux %s, %d CPUs, %s"
      % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"), platform.release(),
         os.cpu_count(), ", ".join(versions)))
print("%d rounds, interleaved in a rotating order; load average before: %s"
      % (runs, " ".join("%.2f" % x for x in os.getloadavg())))
print()
print("| launcher | command | median ms | p90 ms | ratio to bare bwrap |")
print("|---|---|---|---|---|")
for key, program in cases:
    for l in launchers:
        l.prepare(key, program)
    for _ in range(5):               # warm caches (and cwsc's probe verdict cache)
        for l in launchers:
            run_once(l, key)
    times = [[] for _ in launchers]
    for i in range(runs):            # interleaved, in a rotating order
        for k in range(len(launchers)):
            j = (i + k) % len(launchers)
            times[j].append(run_once(launchers[j], key))
    base = statistics.median(times[0])
    for l, t in zip(launchers, times):
        med = statistics.median(t)
        p90 = statistics.quantiles(t, n=10)[8] if len(t) > 1 else t[0]
        print("| %s | %s | %.2f | %.2f | %.2fx |" % (l.name, key, med, p90, med / base))
if skipped:
    print()
for s in skipped:
    print("skipped: " + s)
print("load average after: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
PY
