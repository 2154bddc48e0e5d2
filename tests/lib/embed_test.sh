#!/bin/sh
# The bindings of examples/embed/, built against an installed tree, give the
# argv of `cwsc compile --target bwrap --format nul` byte for byte
# (docs/embedding.md).
#
# usage: embed_test.sh SOURCE_ROOT BUILD_ROOT CWSC_BIN [c|cpp|python|rust|static ...]
#
# The C, C++, Python and Rust bindings also run commands through cwsc_spawn
# (cwsc_spawn.c, cpp/cwsc_spawn.cc, python/cwsc_spawn.py, the crate's
# cwsc-spawn): a planted
# secret stays out, the policy holds, the timeout ends the command (124) and
# Ctrl-C reaches its handler, as root and as the unprivileged user
# cwsc-escape (created under CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1, as the
# hostile-command suites create it; skipped otherwise).
#
# `meson install --destdir D` installs into a temporary D; pkg-config finds
# cwsc.pc there (PKG_CONFIG_PATH, PKG_CONFIG_SYSROOT_DIR=D). Each binding
# then compiles the same policies (recorded facts and the live host) and its
# output is compared with the program's; a bad policy must give the
# program's error text and exit status 2. A missing compiler (cc, Debian's
# /usr/bin/cargo) skips (exit 77), except under CI=true, where it fails.
set -eu
src=$1 build=$2 cwsc=$3
shift 3
[ $# -gt 0 ] || set -- c cpp static python rust

D=$(mktemp -d "${TMPDIR:-/var/tmp}/cwsc-embed.XXXXXX")
chmod 755 "$D"  # the second user runs the programs built here
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  [ "${CI:-}" = true ] && fail "$1 is missing (tools/install_deps.sh installs it)"
  echo "SKIP: $1 is missing" >&2
  exit 77
}
need cc
need pkg-config

meson install -C "$build" --destdir "$D/root" --no-rebuild --quiet >/dev/null \
  || fail "meson install --destdir failed"
pc=$(find "$D/root" -name cwsc.pc | head -n 1)
[ -n "$pc" ] || fail "no cwsc.pc installed"
lib=$(find "$D/root" -name 'libcwsc.so.0' | head -n 1)
[ -n "$lib" ] || fail "no libcwsc.so.0 installed"
libdir=$(dirname "$lib")
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$D/root"
flags=$(pkg-config --cflags --libs cwsc) || fail "pkg-config --cflags --libs cwsc failed"
case "$flags" in
  *"-I$D/root/"*"-L$D/root/"*) ;;
  *) fail "pkg-config flags do not point into the installed tree: $flags" ;;
esac

# reports NAME COMMAND...: the reports a binding makes through libcwsc
# (cwsc_plan_why, _explain, _diff, cwsc_check_file) are the program's: the
# text byte for byte, the JSON as the `result` of the program's --json
# report; a decision of cwsc_plan_check names the rule `cwsc why` names.
reports() {
  name=$1
  shift
  n=0
  F=$src/examples/facts/linux-workspace.yaml
  for spec in "examples/workspace.toml|ask" "examples/workspace.cwsp|plan" \
      "examples/locked-down.toml|ask"; do
    policy=$src/${spec%%|*}
    mode=${spec#*|}
    # shellcheck disable=SC2016,SC2088 # cwsc expands them, not the shell
    for path in '~/.ssh' '$WORKSPACE/src' /etc/hosts; do
      "$cwsc" why "$path" "$policy" --mode "$mode" --facts "$F" > "$D/want" 2>/dev/null \
        || fail "cwsc why $path $spec failed"
      "$@" why "$path" "$policy" "$mode" "$F" > "$D/got" 2>"$D/err" \
        || fail "$name: why $path $spec failed: $(cat "$D/err")"
      cmp -s "$D/want" "$D/got" || fail "$name: why $path $spec differs from cwsc why's"
      "$cwsc" why "$path" "$policy" --mode "$mode" --facts "$F" --json > "$D/want" 2>/dev/null \
        || fail "cwsc why --json $path $spec failed"
      "$@" why "$path" "$policy" "$mode" "$F" --json > "$D/got" 2>"$D/err" \
        || fail "$name: why --json $path $spec failed: $(cat "$D/err")"
      same_result "$D/want" "$D/got" || fail "$name: why --json $path $spec differs"
      n=$((n + 2))
    done
    "$cwsc" explain "$policy" --mode "$mode" --facts "$F" > "$D/want" 2>/dev/null \
      || fail "cwsc explain $spec failed"
    "$@" explain "$policy" "$mode" "$F" > "$D/got" 2>"$D/err" \
      || fail "$name: explain $spec failed: $(cat "$D/err")"
    cmp -s "$D/want" "$D/got" || fail "$name: explain $spec differs from cwsc explain's"
    n=$((n + 1))
  done
  a=$src/examples/readonly.cwsp b=$src/examples/workspace.toml
  "$cwsc" diff "$a" "$b" --mode ask --facts "$F" > "$D/want" 2>/dev/null || fail "cwsc diff failed"
  "$@" diff "$a" "$b" ask "$F" > "$D/got" 2>"$D/err" || fail "$name: diff failed: $(cat "$D/err")"
  cmp -s "$D/want" "$D/got" || fail "$name: diff differs from cwsc diff's"
  "$cwsc" diff "$a" "$b" --mode ask --facts "$F" --json > "$D/want" 2>/dev/null \
    || fail "cwsc diff --json failed"
  "$@" diff "$a" "$b" ask "$F" --json > "$D/got" 2>"$D/err" \
    || fail "$name: diff --json failed: $(cat "$D/err")"
  same_result "$D/want" "$D/got" || fail "$name: diff --json differs"
  for file in examples/workspace.cwsp examples/failing.cwsp; do
    set +e
    "$cwsc" check "$src/$file" --facts "$F" > "$D/want" 2>/dev/null
    want_rc=$?
    "$@" check "$src/$file" "$F" > "$D/got" 2>"$D/err"
    got_rc=$?
    set -e
    [ "$want_rc" = "$got_rc" ] || fail "$name: check $file exits $got_rc, cwsc check $want_rc"
    cmp -s "$D/want" "$D/got" || fail "$name: check $file differs from cwsc check's"
  done
  # One decision: denied reading ~/.ssh in ask mode, by the rule cwsc why names.
  # shellcheck disable=SC2088 # cwsc expands it
  "$@" verdict read '~/.ssh' "$src/examples/workspace.toml" ask "$F" > "$D/got" 2>"$D/err" \
    || fail "$name: verdict failed: $(cat "$D/err")"
  # shellcheck disable=SC2088
  rule=$("$cwsc" why '~/.ssh' "$src/examples/workspace.toml" --read --facts "$F" --json \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["decisions"][0]["rule"])')
  { grep -q ' denied: ' "$D/got" && grep -qF " by $rule (" "$D/got"; } \
    || fail "$name: the verdict for ~/.ssh is not cwsc why's ($rule): $(cat "$D/got")"
  echo "ok $name: $((n + 5)) reports and a decision agree with cwsc why, explain, diff and check"
}

# same_result WANT GOT: GOT (one JSON line from libcwsc) is the result of the
# program's --json envelope WANT.
same_result() {
  python3 - "$1" "$2" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))["result"]
got_text = open(sys.argv[2]).read()
sys.exit(0 if json.loads(got_text) == want and "\n" not in got_text.rstrip("\n") else 1)
PY
}

# compare NAME COMMAND...: for each case, COMMAND POLICY MODE [--facts F] -- PROG
# must print what `cwsc compile` prints, and fail as it fails.
compare() {
  name=$1
  shift
  n=0
  for spec in \
      "examples/workspace.toml|ask|examples/facts/linux-workspace.yaml" \
      "examples/workspace.cwsp|auto-review|examples/facts/linux-workspace.yaml" \
      "examples/locked-down.toml|plan|examples/facts/linux-locked-down.yaml" \
      "examples/readonly.cwsp|ask|examples/facts/linux-readonly.yaml" \
      "examples/workspace.toml|ask|"; do
    policy=$src/${spec%%|*}
    rest=${spec#*|}
    mode=${rest%%|*}
    facts=${rest#*|}
    if [ -n "$facts" ]; then
      fa="--facts $src/$facts"
    else
      fa=""  # the live host
    fi
    # shellcheck disable=SC2086
    "$cwsc" compile "$policy" --mode "$mode" $fa --target bwrap --format nul -- make 'a b' \
      > "$D/want" 2>/dev/null || fail "cwsc compile $spec failed"
    # shellcheck disable=SC2086
    "$@" "$policy" "$mode" $fa -- make 'a b' > "$D/got" 2>"$D/err" \
      || fail "$name: $spec failed: $(cat "$D/err")"
    cmp -s "$D/want" "$D/got" || fail "$name: $spec: the argv differs from cwsc compile's"
    n=$((n + 1))
  done
  # A bad policy: the program's text on stderr and exit status 2.
  printf 'sandbox_mode = "sometimes"\n' > "$D/bad.toml"
  "$cwsc" compile "$D/bad.toml" --facts "$src/examples/facts/linux-workspace.yaml" \
    > /dev/null 2> "$D/want_err" && fail "cwsc compile accepted a bad policy"
  set +e
  "$@" "$D/bad.toml" ask --facts "$src/examples/facts/linux-workspace.yaml" \
    > /dev/null 2> "$D/got_err"
  rc=$?
  set -e
  [ "$rc" = 2 ] || fail "$name: a bad policy exits $rc, expected 2"
  cmp -s "$D/want_err" "$D/got_err" \
    || fail "$name: the error differs: $(cat "$D/got_err") vs $(cat "$D/want_err")"
  echo "ok $name: $n argvs and the error text agree with cwsc compile"
}

# run_as WHO DIR CMD...: becomes CMD (exec, so a job's pid is the
# program's) in DIR with a clean environment, as root ("root") or as the
# second user ("user"). Call it in a subshell.
user=cwsc-escape
run_as() {
  who=$1
  cd "$2" || exit 1
  shift 2
  set -- /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$w/home" LANG=C.UTF-8 \
    LD_LIBRARY_PATH="$libdir" MY_SECRET_TOKEN=planted-secret-value "$@"
  if [ "$who" = user ]; then
    exec /usr/bin/setpriv --reuid "$user" --regid "$user" --clear-groups -- "$@"
  fi
  exec "$@"
}

# spawn_checks NAME LIBDIR PROGRAM: PROGRAM POLICY MODE [--timeout S] -- CMD
# runs CMD confined through cwsc_spawn, once as each identity.
spawn_checks() {
  name=$1 libdir=$2
  shift 2
  whos=root
  if [ "$(id -u)" = 0 ] && { [ "${CI:-}" = true ] || [ "${CWSC_ALLOW_SYSTEM_CHANGES:-}" = 1 ]; }; then
    # Other suites may create the same user at this moment: retried until
    # it is there (useradd: 9 the name is taken, 10 a file is locked).
    tries=0
    until getent passwd "$user" >/dev/null; do
      /usr/sbin/useradd --system --user-group --no-create-home --shell /usr/sbin/nologin \
        "$user" 2>/dev/null
      tries=$((tries + 1))
      [ $tries -lt 100 ] || fail "cannot create the user $user"
      getent passwd "$user" >/dev/null || sleep 0.05
    done
    whos="root user"
  elif [ "$(id -u)" = 0 ]; then
    echo "note: $name: the second user's runs need CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1" >&2
  fi
  for who in $whos; do
    w=$D/spawn-$name-$who
    mkdir -p "$w/ws" "$w/outside" "$w/home"
    echo ORIGINAL > "$w/outside/target"
    [ "$who" = user ] && chown -R "$user:$user" "$w"
    run() { (run_as "$who" "$w/ws" "$@"); }
    policy=$src/examples/workspace.toml
    # 1. The environment: the allow-list and the markers, no planted secret.
    set +e
    run "$@" "$policy" ask -- /usr/bin/env > "$w/env" 2> "$w/err"
    rc=$?
    set -e
    [ "$rc" = 0 ] || fail "$name ($who): env exits $rc: $(cat "$w/err")"
    grep -q '^CODEWHALE_SANDBOX=' "$w/env" || fail "$name ($who): no sandbox marker: $(cat "$w/env")"
    grep -q planted-secret-value "$w/env" && fail "$name ($who): the planted secret reached the command"
    # 2. The policy holds: the workspace is writable, outside is not.
    set +e
    run "$@" "$policy" ask -- /bin/sh -c \
      "echo made > made; echo evil > $w/outside/target; echo evil > $w/outside/new" \
      > /dev/null 2> "$w/err"
    set -e
    [ "$(cat "$w/ws/made" 2>/dev/null)" = made ] || fail "$name ($who): the workspace is not writable: $(cat "$w/err")"
    [ "$(cat "$w/outside/target")" = ORIGINAL ] || fail "$name ($who): a file outside was written"
    [ -e "$w/outside/new" ] && fail "$name ($who): a file was created outside"
    # 3. The timeout ends the command: 124, well before the command would end.
    start=$(date +%s)
    set +e
    run "$@" "$policy" ask --timeout 1 -- /bin/sleep 30 > /dev/null 2> "$w/err"
    rc=$?
    set -e
    took=$(($(date +%s) - start))
    [ "$rc" = 124 ] || fail "$name ($who): the timeout gives $rc, expected 124: $(cat "$w/err")"
    [ "$took" -lt 15 ] || fail "$name ($who): the timeout took $took s"
    # 4. Ctrl-C (SIGINT to the program) reaches the command's handler.
    (run_as "$who" "$w/ws" "$@" "$policy" ask -- /bin/sh -c \
      'trap "echo got-int; exit 7" INT; echo ready; while :; do sleep 0.1; done') \
      > "$w/int" 2> "$w/err" &
    pid=$!
    n=0
    until grep -q ready "$w/int" 2>/dev/null; do
      n=$((n + 1))
      [ $n -lt 200 ] || { kill -9 "$pid"; fail "$name ($who): the command never started: $(cat "$w/err")"; }
      sleep 0.1
    done
    kill -INT "$pid"
    n=0
    while kill -0 "$pid" 2>/dev/null; do
      n=$((n + 1))
      [ $n -lt 200 ] || { kill -9 "$pid"; fail "$name ($who): Ctrl-C did not end the command"; }
      sleep 0.1
    done
    set +e
    wait "$pid"
    rc=$?
    set -e
    [ "$rc" = 7 ] || fail "$name ($who): after Ctrl-C it exits $rc, expected 7: $(cat "$w/int" "$w/err")"
    grep -q got-int "$w/int" || fail "$name ($who): the handler did not run"
  done
  echo "ok $name: cwsc_spawn keeps the secret out, holds the policy, times out and forwards Ctrl-C ($whos)"
}

for binding in "$@"; do
  case $binding in
    c)
      # shellcheck disable=SC2086
      cc -std=c99 -Wall -Wextra -Werror "$src/examples/embed/c/cwsc_argv.c" $flags \
        -o "$D/cwsc_argv_c" || fail "the C example does not build"
      readelf -d "$D/cwsc_argv_c" | grep -q 'NEEDED.*libcwsc.so.0' \
        || fail "the C example is not linked to libcwsc.so.0"
      LD_LIBRARY_PATH=$libdir compare c "$D/cwsc_argv_c"
      # shellcheck disable=SC2086
      cc -std=c99 -Wall -Wextra -Werror "$src/examples/embed/c/cwsc_spawn.c" $flags \
        -o "$D/cwsc_spawn_c" || fail "the C spawn example does not build"
      spawn_checks c "$libdir" "$D/cwsc_spawn_c"
      ;;
    cpp)
      need c++
      # shellcheck disable=SC2086
      c++ -std=c++17 -Wall -Wextra -Werror "$src/examples/embed/cpp/cwsc_spawn.cc" $flags \
        -o "$D/cwsc_spawn_cpp" || fail "the C++ spawn example does not build"
      spawn_checks cpp "$libdir" "$D/cwsc_spawn_cpp"
      ;;
    static)
      # libcwsc.a with its own dependencies from `pkg-config --static`.
      [ -f "$libdir/libcwsc.a" ] || fail "no libcwsc.a installed"
      privates=$(pkg-config --static --libs-only-l cwsc | sed 's/-lcwsc\b//')
      # shellcheck disable=SC2086
      cc -std=c99 "$src/examples/embed/c/cwsc_argv.c" $(pkg-config --cflags cwsc) \
        "$libdir/libcwsc.a" $privates -o "$D/cwsc_argv_static" \
        || fail "the C example does not link with libcwsc.a"
      readelf -d "$D/cwsc_argv_static" | grep -q 'libcwsc' \
        && fail "the static build still needs libcwsc.so"
      compare static "$D/cwsc_argv_static"
      ;;
    python)
      need python3
      CWSC_LIBRARY=$libdir/libcwsc.so.0 compare python \
        python3 "$src/examples/embed/python/cwsc_argv.py"
      spawn_checks python "$libdir" /usr/bin/env CWSC_LIBRARY="$libdir/libcwsc.so.0" \
        /usr/bin/python3 "$src/examples/embed/python/cwsc_spawn.py"
      CWSC_LIBRARY=$libdir/libcwsc.so.0 reports python \
        python3 "$src/examples/embed/python/cwsc_report.py"
      ;;
    rust)
      need /usr/bin/cargo
      # Debian's cargo and rustc, offline, in a fresh CARGO_HOME.
      CARGO_HOME=$D/cargo CARGO_TARGET_DIR=$D/target RUSTC=/usr/bin/rustc \
        /usr/bin/cargo build --offline --quiet \
        --manifest-path "$src/examples/embed/rust/Cargo.toml" \
        || fail "the Rust example does not build"
      LD_LIBRARY_PATH=$libdir compare rust "$D/target/debug/cwsc-argv"
      spawn_checks rust "$libdir" "$D/target/debug/cwsc-spawn"
      LD_LIBRARY_PATH=$libdir reports rust "$D/target/debug/cwsc-report"
      ;;
    *) fail "unknown binding $binding" ;;
  esac
done
