#!/bin/sh
# tools/setup_build.sh main|instrumented|coverage: configure the build directory that
# tools/demo.sh, tools/run_tests.sh and tools/fuzz.sh share, with the one set
# of options each uses, and print its path. An existing directory is
# reconfigured to those options, so the README's two commands and CI always
# build the same thing (docs/building.md, "CI time"):
#   main          build/       g++, --buildtype=release (what a packager runs),
#                              warnings as errors, tests and benchmarks built
#   instrumented  build-fuzz/  clang, ASan + UBSan and the libFuzzer programs
#                              in one build (-O1, line tables only), warnings
#                              as errors
#   coverage      build-cov/   g++ with gcov counters, no optimization
# The test programs themselves are built without optimization (tests/meson.build).
set -eu
cd "$(dirname "$0")/.."
cpp_args=""  # one value, spaces and all (not split with the options)
case "${1:-}" in
  main)
    dir=build
    opts="-Dbuildtype=release -Dwerror=true -Dtests=enabled -Dbench=enabled"
    ;;
  instrumented)
    dir=build-fuzz
    opts="-Dbuildtype=debug -Doptimization=1 -Ddebug=false -Dwerror=true -Dsanitize=true
          -Dfuzz=enabled -Dtests=enabled -Dbench=disabled"
    # Meson puts ccache in front of the compiler it finds, not of one named.
    if command -v ccache >/dev/null; then export CXX="ccache clang++"; else export CXX=clang++; fi
    ;;
  coverage)
    dir=build-cov
    # Atomic counters: the suites run threads (the HTTP client, the
    # OpenSandbox lifecycle, the tests' servers); plain counters updated from
    # two threads at once can come out inconsistent, and gcovr then stops on
    # a count gcov prints as negative.
    # Counters only in the project's own functions: not in the library
    # templates instantiated from /usr/include (the standard library,
    # nlohmann_json, Abseil), the generated parser or the tests, none of
    # which the coverage report counts. Each cwsc process writes its
    # counters when it exits, and the suites start cwsc thousands of times:
    # with every template counted, `cwsc --version` took 106 ms here, 17 ms
    # without, and the suites 141 s instead of about 600 (docs/building.md).
    opts="-Dbuildtype=debug -Ddebug=false -Db_coverage=true -Dtests=enabled -Dbench=disabled"
    cpp_args="-fprofile-update=atomic -fprofile-exclude-files=^/usr/;^grammar/;/tests/"
    ;;
  *) echo "usage: tools/setup_build.sh main|instrumented|coverage" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
if [ -f "$dir/build.ninja" ]; then
  meson configure "$dir" $opts "-Dcpp_args=$cpp_args" >/dev/null
else
  meson setup "$dir" -Dwrap_mode=nodownload $opts "-Dcpp_args=$cpp_args" >&2
fi
echo "$dir"
