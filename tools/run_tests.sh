#!/bin/sh
# Install what is missing, build, run every test suite, and end with the plain
# line `N passed, N failed, N skipped` (GoogleTest cases that really ran in
# build/). Before that line, the stages CI also needs (each prints its time):
#   format    every tracked C++ file matches .clang-format (tools/check_format.sh)
#   sanitize  every suite again in build-fuzz/ (clang, ASan + UBSan, the
#             libFuzzer programs built alongside)
#   fuzz      each fuzz target for CWSC_FUZZ_SECONDS (default 60) on its corpus
#   coverage  every suite in build-cov/ (-Db_coverage=true), then line and
#             branch totals per folder (gcovr)
#   release   what a packager runs: `meson setup --buildtype=release` (no
#             -Dwerror, tests on), build, every suite, in build-rel/
# The plain and sanitize builds turn warnings into errors (-Dwerror=true);
# the project does not force that on everyone who builds it (meson.build).
# CWSC_STAGES picks the stages (default "format sanitize fuzz coverage release";
# "" = only the plain suite; "plainbuild" is a packager's --buildtype=plain,
# not run by default). docs/fuzzing.md, docs/building.md.
set -u
cd "$(dirname "$0")/.."
tools/install_deps.sh || exit 1
stages=${CWSC_STAGES-format sanitize fuzz coverage release}
status=0
timings=""

# timed NAME CMD...: runs CMD, notes how long it took, keeps the worst status.
timed() {
  name=$1
  shift
  start=$(date +%s)
  "$@"
  rc=$?
  took=$(($(date +%s) - start))
  echo "stage $name: ${took} s, exit $rc"
  timings="$timings
  $name: ${took} s$([ $rc -eq 0 ] || echo " (FAILED, exit $rc)")"
  [ $rc -eq 0 ] || status=1
  return $rc
}

# fresh_results DIR: no result of an earlier run may count in this one.
# Each GoogleTest suite writes DIR/<suite>.xml, which Meson folds into its
# JUnit log; a suite that crashes writes none, and an old file left from an
# earlier run would then report its cases as passed.
fresh_results() {
  rm -f "$1"/meson-logs/testlog.junit.xml "$1"/*_test.xml
}

plain() {
  if [ ! -f build/build.ninja ]; then
    meson setup build --wrap-mode=nodownload -Dwerror=true -Dtests=enabled -Dbench=enabled \
      || return 1
  fi
  meson compile -C build || return 1
  fresh_results build
  meson test -C build --print-errorlogs --num-processes 2
}

sanitize() {
  if [ ! -f build-fuzz/build.ninja ]; then
    CXX=clang++ meson setup build-fuzz --wrap-mode=nodownload -Dfuzz=enabled -Dsanitize=true \
      -Dwerror=true -Dtests=enabled -Dbench=disabled || return 1
  fi
  meson compile -C build-fuzz || return 1
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  rc=0
  fresh_results build-fuzz
  suites=$(meson test -C build-fuzz --list 2>/dev/null | grep -E '^[a-z_]+_test$' | grep -v '^runtime_test$')
  meson test -C build-fuzz --print-errorlogs --num-processes 2 $suites || rc=1
  python3 tools/test_summary.py build-fuzz/meson-logs/testlog.junit.xml >build-fuzz/summary.txt || rc=1
  echo "sanitize: $(cat build-fuzz/summary.txt)"
  # Excluded under ASan: spawn's child runs on its own small clone() stack,
  # where ASan prints a "False positive error reports may follow" warning
  # into the stderr that this exact-text test compares.
  GTEST_FILTER=-RunCliTest.UnwrappedProgramNotFoundIs127 \
    meson test -C build-fuzz --print-errorlogs --num-processes 2 runtime_test || rc=1
  python3 tools/test_summary.py build-fuzz/meson-logs/testlog.junit.xml >build-fuzz/summary.txt || rc=1
  echo "sanitize (runtime_test): $(cat build-fuzz/summary.txt)"
  return $rc
}

fuzz() {
  tools/fuzz.sh all "${CWSC_FUZZ_SECONDS:-60}"
}

format() {
  tools/check_format.sh
}

coverage() {
  if [ ! -f build-cov/build.ninja ]; then
    meson setup build-cov --wrap-mode=nodownload -Db_coverage=true -Dtests=enabled \
      -Dbench=disabled || return 1
  fi
  meson compile -C build-cov || return 1
  find build-cov -name '*.gcda' -delete
  # Without CI: the suites that run cwsc as a second user skip here (that
  # user cannot write the root-owned .gcda files, and libgcov says so on the
  # stderr the tests compare); the plain and sanitize stages run them.
  env -u CI -u CWSC_ALLOW_SYSTEM_CHANGES \
    meson test -C build-cov --print-errorlogs --num-processes 2 || return 1
  python3 tools/coverage_summary.py build-cov
}

# packaged BUILDTYPE: a packager's build and every suite in build-rel-BUILDTYPE/.
packaged() {
  dir=build-rel-$1
  if [ ! -f $dir/build.ninja ]; then
    meson setup $dir --wrap-mode=nodownload --buildtype=$1 -Dtests=enabled -Dbench=disabled \
      || return 1
  fi
  meson compile -C $dir || return 1
  fresh_results $dir
  rc=0
  meson test -C $dir --print-errorlogs --num-processes 2 || rc=1
  python3 tools/test_summary.py $dir/meson-logs/testlog.junit.xml >$dir/summary.txt || rc=1
  echo "$1 build: $(cat $dir/summary.txt)"
  return $rc
}
release() { packaged release; }
plainbuild() { packaged plain; }

timed tests plain
tests_rc=$?
for s in $stages; do
  case "$s" in
    format|sanitize|fuzz|coverage|release|plainbuild) timed "$s" "$s" ;;
    *) echo "tools/run_tests.sh: unknown stage '$s'" >&2; status=1 ;;
  esac
done
echo "stage times:$timings"
/usr/bin/python3 tools/test_summary.py build/meson-logs/testlog.junit.xml
summary=$?
[ $tests_rc -eq 0 ] && [ $summary -eq 0 ] && [ $status -eq 0 ] && exit 0
exit 1
