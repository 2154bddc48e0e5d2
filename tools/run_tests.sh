#!/bin/sh
# Install what is missing, build, run every test suite, and end with the plain
# line `N passed, N failed, N skipped`: the GoogleTest cases that really ran,
# summed over every build whose suites this run ran (build/, and build-fuzz/
# and build-cov/ when their stages ran), so a case failing only under the
# sanitizers counts as failed. Three builds, each configured once by tools/setup_build.sh and
# shared with tools/demo.sh and tools/fuzz.sh (docs/building.md, "CI time"):
#   build/       g++, --buildtype=release, warnings as errors: the plain
#                suites, and exactly a packager's release build (a packager
#                builds the same sources with the same flags, less -Werror)
#   build-fuzz/  clang, ASan + UBSan + libFuzzer, -Werror
#   build-cov/   g++ -O0 with gcov counters
# Stages after the plain suites (each prints its time, then a total):
#   demo      tools/demo.sh in a clean clone of HEAD, its output checked
#             (tools/check_demo.sh)
#   format    every tracked C++ file matches .clang-format (tools/check_format.sh)
#   sanitize  every suite again in build-fuzz/
#   coverage  every suite in build-cov/, then line and branch totals per
#             folder (gcovr; tools/coverage_summary.py)
#   fuzz      each fuzz target for CWSC_FUZZ_SECONDS (default 60) on its
#             corpus, two at a time
# CWSC_STAGES picks them (default "demo format sanitize coverage fuzz"; "" =
# only the plain suites; "plainbuild" adds a packager's --buildtype=plain
# build in build-rel-plain/, not run by default). A compiler cache (ccache,
# outside the tree) makes a second run mostly links. docs/fuzzing.md.
set -u
cd "$(dirname "$0")/.."
tools/install_deps.sh || exit 1
stages=${CWSC_STAGES-demo format sanitize coverage fuzz}
status=0
timings=""
# The JUnit logs of the suites this run ran, for the closing line.
junit_logs=""
# The build directories' paths differ between a developer's tree, CI's clone
# and the demo's clone; the cache still applies across them.
export CCACHE_NOHASHDIR=1
all_start=$(date +%s)

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
# earlier run would then report its cases as passed. The log joins the
# closing line's: a build that fails before its suites run leaves none,
# which counts as a failure there.
fresh_results() {
  rm -f "$1"/meson-logs/testlog.junit.xml "$1"/*_test.xml
  junit_logs="$junit_logs $1/meson-logs/testlog.junit.xml"
}

plain() {
  dir=$(tools/setup_build.sh main) || return 1
  fresh_results "$dir"
  meson compile -C "$dir" || return 1
  meson test -C "$dir" --print-errorlogs --num-processes 2
}

demo() {
  tools/check_demo.sh
}

sanitize() {
  dir=$(tools/setup_build.sh instrumented) || return 1
  fresh_results "$dir"
  meson compile -C "$dir" || return 1
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  rc=0
  # Excluded under ASan: spawn's child runs on its own small clone() stack,
  # where ASan prints a "False positive error reports may follow" warning
  # into the stderr that this exact-text test compares. The suites run
  # about three times slower than in build/. The hostile-command suites'
  # Landlock variants (tests/escape) run in the plain stage only: they
  # double those suites' time, and the Landlock runtime's own suite
  # (landlock_test) runs here.
  GTEST_FILTER=-RunCliTest.UnwrappedProgramNotFoundIs127:*/LandlockRoot:*/LandlockUser \
    meson test -C "$dir" --print-errorlogs --num-processes 2 --timeout-multiplier 3 || rc=1
  python3 tools/test_summary.py "$dir"/meson-logs/testlog.junit.xml >"$dir"/summary.txt || rc=1
  echo "sanitize: $(cat "$dir"/summary.txt)"
  return $rc
}

coverage() {
  dir=$(tools/setup_build.sh coverage) || return 1
  fresh_results "$dir"
  meson compile -C "$dir" || return 1
  find "$dir" -name '*.gcda' -delete
  # Without CI: the suites that run cwsc as a second user skip here (that
  # user cannot write the root-owned .gcda files, and libgcov says so on the
  # stderr the tests compare); the plain and sanitize stages run them.
  # The Landlock variants of tests/escape run in the plain stage only (above).
  env -u CI -u CWSC_ALLOW_SYSTEM_CHANGES GTEST_FILTER='-*/LandlockRoot:*/LandlockUser' \
    meson test -C "$dir" --print-errorlogs --num-processes 2 --timeout-multiplier 2 || return 1
  python3 tools/coverage_summary.py "$dir"
}

fuzz() {
  tools/fuzz.sh all "${CWSC_FUZZ_SECONDS:-60}"
}

format() {
  tools/check_format.sh
}

# plainbuild: a packager's --buildtype=plain build and every suite.
plainbuild() {
  dir=build-rel-plain
  if [ ! -f $dir/build.ninja ]; then
    meson setup $dir --wrap-mode=nodownload --buildtype=plain -Dtests=enabled -Dbench=disabled \
      || return 1
  fi
  fresh_results $dir
  meson compile -C $dir || return 1
  rc=0
  meson test -C $dir --print-errorlogs --num-processes 2 || rc=1
  python3 tools/test_summary.py $dir/meson-logs/testlog.junit.xml >$dir/summary.txt || rc=1
  echo "plain build: $(cat $dir/summary.txt)"
  return $rc
}

timed tests plain
tests_rc=$?
for s in $stages; do
  case "$s" in
    demo|format|sanitize|coverage|fuzz|plainbuild) timed "$s" "$s" ;;
    *) echo "tools/run_tests.sh: unknown stage '$s'" >&2; status=1 ;;
  esac
done
echo "stage times:$timings
  total: $(($(date +%s) - all_start)) s"
# shellcheck disable=SC2086 # one word per log path, none with spaces
/usr/bin/python3 tools/test_summary.py $junit_logs
summary=$?
[ $tests_rc -eq 0 ] && [ $summary -eq 0 ] && [ $status -eq 0 ] && exit 0
exit 1
