#!/bin/sh
# CI's demo stage: run the README's first command, tools/demo.sh, in a clean
# clone of HEAD (as a newcomer would), and check what it prints: the
# bubblewrap argv, starting with bwrap and ending with the command, that
# `cwsc audit` reads back as confining the workspace read-write and the rest
# of / read-only. The clone is removed afterwards.
set -u
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/cwsc-demo.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks . "$work/cwsc" || exit 1
start=$(date +%s)
if ! "$work/cwsc/tools/demo.sh" >"$work/argv" 2>"$work/err"; then
  echo "check_demo.sh: tools/demo.sh failed:" >&2
  tail -20 "$work/err" >&2
  exit 1
fi
echo "check_demo.sh: tools/demo.sh took $(($(date +%s) - start)) s in a clean clone"
fail() { echo "check_demo.sh: $1" >&2; sed -n '1,5p;$p' "$work/argv" >&2; exit 1; }
[ "$(head -n 1 "$work/argv")" = /usr/bin/bwrap ] || fail "the argv does not start with /usr/bin/bwrap"
[ "$(tail -n 3 "$work/argv" | tr '\n' '|')" = "sh|-c|echo hello from the sandbox|" ] \
  || fail "the argv does not end with the command"
# Read back: the clone (the example's workspace) is writable, /etc is not.
cwsc=$work/cwsc/build/cli/cwsc
tr '\n' '\0' <"$work/argv" >"$work/argv0"
verdict() {
  (cd "$work/cwsc" && xargs -0 "$cwsc" audit --why "$1" --write -- <"$work/argv0") 2>&1 \
    | grep "^$1 (bwrap): "
}
[ "$(verdict "$work/cwsc/x")" = "$work/cwsc/x (bwrap): write allowed" ] \
  || fail "cwsc audit does not read the workspace as writable"
[ "$(verdict /etc/hostname)" = "/etc/hostname (bwrap): write denied" ] \
  || fail "cwsc audit does not read /etc as read-only"
echo "check_demo.sh: ok ($(wc -l <"$work/argv") argv lines)"
