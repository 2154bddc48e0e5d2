#!/bin/sh
# The bindings of examples/embed/, built against an installed tree, give the
# argv of `cwsc compile --target bwrap --format nul` byte for byte
# (docs/embedding.md).
#
# usage: embed_test.sh SOURCE_ROOT BUILD_ROOT CWSC_BIN [c|python|rust|static ...]
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
[ $# -gt 0 ] || set -- c static python rust

D=$(mktemp -d "${TMPDIR:-/tmp}/cwsc-embed.XXXXXX")
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

for binding in "$@"; do
  case $binding in
    c)
      # shellcheck disable=SC2086
      cc -std=c99 -Wall -Wextra -Werror "$src/examples/embed/c/cwsc_argv.c" $flags \
        -o "$D/cwsc_argv_c" || fail "the C example does not build"
      readelf -d "$D/cwsc_argv_c" | grep -q 'NEEDED.*libcwsc.so.0' \
        || fail "the C example is not linked to libcwsc.so.0"
      LD_LIBRARY_PATH=$libdir compare c "$D/cwsc_argv_c"
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
      ;;
    rust)
      need /usr/bin/cargo
      # Debian's cargo and rustc, offline, in a fresh CARGO_HOME.
      CARGO_HOME=$D/cargo CARGO_TARGET_DIR=$D/target RUSTC=/usr/bin/rustc \
        /usr/bin/cargo build --offline --quiet \
        --manifest-path "$src/examples/embed/rust/Cargo.toml" \
        || fail "the Rust example does not build"
      LD_LIBRARY_PATH=$libdir compare rust "$D/target/debug/cwsc-argv"
      ;;
    *) fail "unknown binding $binding" ;;
  esac
done
