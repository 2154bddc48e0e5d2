#!/bin/sh
# lib_launch_compare.sh: the embedded launch before and after a change, in
# one run. Two builds' build/bench/lib_launch (each linked with its own
# libcwsc) run in alternating rounds, so both see the same machine load;
# each round interleaves its launchers with bare bwrap as lib_launch does.
# Prints every round's rows, then per build and launcher the median over
# the rounds of the wall-time ratio to bare bwrap and of the CPU ratio.
#
#   bench/lib_launch_compare.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR [RUNS] [ROUNDS]
#   bench/lib_launch_compare.sh ../base/build build 300 4
set -eu
before=$1 after=$2 runs=${3:-300} rounds=${4:-4}
for b in "$before" "$after"; do
  [ -x "$b/bench/lib_launch" ] || { echo "lib_launch_compare: no $b/bench/lib_launch" >&2; exit 2; }
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
r=1
while [ "$r" -le "$rounds" ]; do
  for b in "$before" "$after"; do
    "$b/bench/lib_launch" "$runs" | awk -F'|' -v b="$b" '/^\| (bare|libcwsc)/ {
      gsub(/^ +| +$/, "", $2); gsub(/x.*$/, "", $5); gsub(/x.*$/, "", $7);
      gsub(/ /, "", $4); gsub(/ /, "", $5); gsub(/ /, "", $7);
      printf "%s|%s|%s|%s|%s\n", b, $2, $4, $5, $7 }' >>"$out"
  done
  r=$((r + 1))
done
echo "| build | launcher | rounds | median wall ms | median wall vs bare | median CPU vs bare |"
echo "|---|---|---|---|---|---|"
for b in "$before" "$after"; do
  awk -F'|' -v b="$b" '$1 == b { print $2 }' "$out" | sort -u | while read -r l; do
    awk -F'|' -v b="$b" -v l="$l" '$1 == b && $2 == l' "$out" | awk -F'|' -v b="$b" -v l="$l" '
      { w[NR] = $3; r[NR] = $4; c[NR] = $5 }
      function med(a, n,   i, j, t) {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }
      END { printf "| %s | %s | %d | %.2f | %.3fx | %.3fx |\n", b, l, NR, med(w, NR), med(r, NR), med(c, NR) }'
  done
done
