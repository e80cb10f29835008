#!/usr/bin/env bash
# Interleaved comparison of two builds of elastokin-bench (docs/performance.md): round after
# round, A then B, each running every project for a few seconds; per project, the fastest round
# of each (the undisturbed machine), the median of each, and the median of the pairwise ratios
# B/A (each pair ran back to back, so a change of the host's speed between rounds cancels).
#
#   bash bench/compare_builds.sh A/bench/elastokin-bench B/bench/elastokin-bench \
#        [rounds=12] [seconds=1] [projects=double_wishbone,multilink,full_vehicle] [solver=topology]
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,9p' "$0"
  exit 2
fi
A=$1
B=$2
ROUNDS=${3:-12}
DURATION=${4:-1}
PROJECTS=${5:-double_wishbone,multilink,full_vehicle}
SOLVER=${6:-topology}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for ((round = 1; round <= ROUNDS; ++round)); do
  for variant in A B; do
    bin=$A
    [[ $variant == B ]] && bin=$B
    "$bin" --projects "$PROJECTS" --solvers "$SOLVER" --duration "$DURATION" --out "$work/bench.json" |
      awk -v v="$variant" -v r="$round" -v s="$SOLVER" '$2 == s && $3 == "median" { print v, r, $1, $4 }' \
        >> "$work/steps"
  done
done

median() { sort -g | awk '{ x[NR] = $1 } END { if (NR % 2) print x[(NR + 1) / 2]; else print (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }

printf '%-18s %10s %10s %10s %10s %12s\n' project "A fastest" "B fastest" "A median" "B median" "B/A pairs"
for project in ${PROJECTS//,/ }; do
  a=$(awk -v p="$project" '$1 == "A" && $3 == p { print $4 }' "$work/steps")
  b=$(awk -v p="$project" '$1 == "B" && $3 == p { print $4 }' "$work/steps")
  ratios=$(awk -v p="$project" '$3 == p { t[$1, $2] = $4 } END { for (r = 1; (("A", r) in t); ++r) if (("B", r) in t) print t["B", r] / t["A", r] }' "$work/steps")
  printf '%-18s %7.1f us %7.1f us %7.1f us %7.1f us %12.3f\n' "$project" \
    "$(sort -g <<< "$a" | head -1)" "$(sort -g <<< "$b" | head -1)" "$(median <<< "$a")" "$(median <<< "$b")" \
    "$(median <<< "$ratios")"
done
echo "rounds: $ROUNDS, ${DURATION} s per project and round, solver $SOLVER"
echo "A: $(awk '$1 == "A" { printf "%s ", $4 }' "$work/steps")"
echo "B: $(awk '$1 == "B" { printf "%s ", $4 }' "$work/steps")"
