#!/bin/sh
# tools/setup_test_user.sh AGENT [RUNNER]
#
# Prepares a host for the launcher tests (docs/launcher.md): installs sudo if
# missing, creates AGENT, the system user tool commands run as (nologin
# shell, locked password), and, when RUNNER is given, creates RUNNER too (the
# engine's user in the tests) and installs the sudoers rule
# `RUNNER ALL=(AGENT) NOPASSWD: ALL` as /etc/sudoers.d/cwsc-test-AGENT.
# Idempotent; root only. The tests call it only when CI=true or
# CWSC_ALLOW_SYSTEM_CHANGES=1.
set -eu
agent=${1:?usage: setup_test_user.sh AGENT [RUNNER]}
runner=${2:-}
[ "$(id -u)" = 0 ] || { echo "setup_test_user.sh: must run as root" >&2; exit 1; }
case "$agent$runner" in
  *[!a-z0-9_-]*) echo "setup_test_user.sh: user names are [a-z0-9_-] only" >&2; exit 1 ;;
esac
command -v sudo >/dev/null 2>&1 ||
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends sudo >/dev/null
# Suites run two at a time and may create the same user together: useradd's
# "already exists" (9) and "cannot lock" (10) are retried until the user is
# there.
add_user() {
  tries=0
  until id -u "$1" >/dev/null 2>&1; do
    rc=0
    useradd --system --user-group --create-home \
      --home-dir "/var/lib/$1" --shell /usr/sbin/nologin "$1" || rc=$?  # password stays locked ('!')
    [ $rc = 0 ] || [ $rc = 9 ] || [ $rc = 10 ] || exit $rc
    tries=$((tries + 1))
    [ $tries -lt 100 ] || { echo "setup_test_user.sh: cannot create $1" >&2; exit 1; }
    [ $rc = 0 ] || sleep 0.05
  done
}
add_user "$agent"
if [ -n "$runner" ]; then
  add_user "$runner"
  rule=$(mktemp)
  printf '%s\n' "# managed by cwsc tests (tools/setup_test_user.sh)" \
    "$runner ALL=($agent) NOPASSWD: ALL" > "$rule"
  visudo -cqf "$rule"                                   # never install an unparsable file
  # No '.' in the name: @includedir ignores such files.
  install -o root -g root -m 0440 "$rule" "/etc/sudoers.d/cwsc-test-$agent"
  rm -f "$rule"
  visudo -cq
  setpriv --reuid="$runner" --regid="$runner" --init-groups -- \
    sudo -n -u "$agent" -- /bin/true
fi
sudo -n -u "$agent" -- /bin/true
