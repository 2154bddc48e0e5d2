#!/bin/sh
# Check (or, with --fix, apply) .clang-format on every C++ source the
# repository tracks. CI runs the check (tools/run_tests.sh, stage format);
# a diff is printed for each file that differs.
#   tools/check_format.sh          # exit 1 when a file is not formatted
#   tools/check_format.sh --fix    # format them in place
set -u
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format.sh: clang-format is missing" >&2; exit 2; }
files=$(git ls-files '*.cc' '*.h' '*.h.in')
if [ "${1:-}" = --fix ]; then
  # shellcheck disable=SC2086
  clang-format -i $files
  exit 0
fi
# One clang-format process checks every file; only when it finds one that
# differs are the diffs made, file by file.
# shellcheck disable=SC2086
if clang-format --dry-run --Werror $files 2>/dev/null; then
  echo "check_format.sh: $(echo "$files" | wc -l) files formatted"
  exit 0
fi
bad=0
for f in $files; do
  if ! clang-format "$f" | cmp -s - "$f"; then
    clang-format "$f" | diff -u "$f" - | head -40
    bad=$((bad + 1))
  fi
done
if [ $bad -ne 0 ]; then
  echo "check_format.sh: $bad file(s) differ from .clang-format; run tools/check_format.sh --fix" >&2
  exit 1
fi
echo "check_format.sh: clang-format --dry-run failed, but no file differs" >&2
exit 1
