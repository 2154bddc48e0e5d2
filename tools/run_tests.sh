#!/bin/sh
# Install what is missing, build, run every test suite, and end with the plain
# line `N passed, N failed, N skipped` (GoogleTest cases that really ran).
set -u
cd "$(dirname "$0")/.."
tools/install_deps.sh || exit 1
if [ ! -f build/build.ninja ]; then
  meson setup build --wrap-mode=nodownload -Dtests=enabled -Dbench=enabled || exit 1
fi
meson compile -C build || exit 1
rm -f build/meson-logs/testlog.junit.xml
meson test -C build --print-errorlogs --num-processes 2
rc=$?
/usr/bin/python3 tools/test_summary.py build/meson-logs/testlog.junit.xml
summary=$?
[ $rc -eq 0 ] && [ $summary -eq 0 ] && exit 0
exit 1
