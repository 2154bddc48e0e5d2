#!/bin/sh
# Build the libFuzzer programs (clang, ASan + UBSan, build-fuzz/) and run
# them: tools/fuzz.sh [TARGET] [SECONDS]. Without TARGET every target runs,
# SECONDS each (default 60), two processes at a time (one per core), on a copy
# of its seed corpus (fuzz/corpus/TARGET) plus the regression inputs
# (tests/regress/TARGET). build-fuzz/ is tools/setup_build.sh's instrumented
# build, the one the sanitize stage of tools/run_tests.sh tests.
# New crash inputs land in build-fuzz/findings/TARGET/. docs/fuzzing.md.
set -u
cd "$(dirname "$0")/.."
targets="config_toml dsl facts plan_json sbpl opensandbox bwrap_argv"
target=${1:-all}
seconds=${2:-60}
case " $targets all " in
  *" $target "*) ;;
  *) echo "tools/fuzz.sh: unknown target '$target' (one of: $targets)" >&2; exit 2 ;;
esac
tools/install_deps.sh || exit 1
dir=$(tools/setup_build.sh instrumented) || exit 1
[ "$target" = all ] && run=$targets || run=$target
progs=""
for t in $run; do progs="$progs fuzz/fuzz_$t"; done
meson compile -C "$dir" -j 2 $progs || exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# fuzz_one TARGET: one libFuzzer process on TARGET; prints a line, exit 0/1.
fuzz_one() {
  t=$1
  work=build-fuzz/corpus/$t
  findings=build-fuzz/findings/$t
  mkdir -p "$work" "$findings"
  cp -n fuzz/corpus/$t/* tests/regress/$t/* "$work"/ 2>/dev/null
  dict=""
  [ -f fuzz/dict/$t.dict ] && dict="-dict=fuzz/dict/$t.dict"
  start=$(date +%s)
  # One process (no -jobs: libFuzzer then fuzzes in this process), bounded
  # input size and memory; a run over 10 s is a hang.
  build-fuzz/fuzz/fuzz_$t $dict -max_total_time="$seconds" \
    -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$work" 2>build-fuzz/findings/$t.log
  rc=$?
  end=$(date +%s)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' build-fuzz/findings/$t.log)
  if [ $rc -eq 0 ]; then
    echo "fuzz $t: ok, $((end - start)) s, ${runs:-?} runs"
    return 0
  fi
  echo "fuzz $t: FAILED (exit $rc) after $((end - start)) s; see build-fuzz/findings/$t.log:"
  grep -m 5 -E "ERROR|runtime error|invariant|Test unit written" build-fuzz/findings/$t.log
  return 1
}
mkdir -p build-fuzz/findings
status=0
set -- $run
while [ $# -gt 0 ]; do
  fuzz_one "$1" >build-fuzz/findings/.first.txt &
  first=$!
  second_rc=0
  if [ $# -gt 1 ]; then fuzz_one "$2" || second_rc=1; fi
  wait $first || status=1
  cat build-fuzz/findings/.first.txt
  [ $second_rc -eq 0 ] || status=1
  shift
  [ $# -gt 0 ] && shift
done
exit $status
