#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Throughput of elastokin-study (issue 14): runs per second of a 64-point DOE of the double
# wishbone's LC1 (5 s each) on 1 and 2 local threads and on 2 MPI ranks, repeated and
# interleaved (1, 2, MPI, 1, 2, MPI, ...), the median of each; the parallel efficiency is
# (runs/s on N) / (N x runs/s on 1). Usage: bench/study_throughput.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
repeats=${2:-3}
exe=$build/app/elastokin-study
study=$root/bench/studies/double_wishbone_lc1_doe64.study.json
out=$(mktemp -d)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
have_mpi=0
if command -v mpirun >/dev/null && ldd "$exe" | grep -q libmpi; then have_mpi=1; fi

# One timed study: prints "wall_s cpu_s" (CPU of all processes: user + system from time).
timed() {
  local log=$out/log
  /usr/bin/time -f "%e %U %S" -o "$out/time" "$@" --results "$out/r.csv" --fresh --quiet > "$log" 2>&1 \
    || { cat "$log"; exit 1; }
  grep -q "64 new" "$log" || { cat "$log"; echo "not 64 runs"; exit 1; }
  awk '{printf "%s %.3f\n", $1, $2 + $3}' "$out/time"
  sort -t, -k1,1n "$out/r.csv" | md5sum | cut -c1-8 >> "$out/sums"
}

declare -A wall cpu
configs=("1 thread" "2 threads")
[ $have_mpi -eq 1 ] && configs+=("2 MPI ranks")
for ((k = 0; k < repeats; ++k)); do
  for c in "${configs[@]}"; do
    case $c in
      "1 thread") r=$(timed "$exe" "$study" --threads 1) ;;
      "2 threads") r=$(timed "$exe" "$study" --threads 2) ;;
      "2 MPI ranks") r=$(timed mpirun -np 2 --oversubscribe "$exe" "$study") ;;
    esac
    wall[$c]+="${r% *} "
    cpu[$c]+="${r#* } "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "64-point DOE of the double wishbone LC1 (5 s per run), median of $repeats interleaved repeats"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf "%-14s %10s %10s %14s %12s\n" "executor" "wall [s]" "runs/s" "CPU s per run" "efficiency"
base=""
for c in "${configs[@]}"; do
  w=$(echo "${wall[$c]}" | median)
  u=$(echo "${cpu[$c]}" | median)
  rate=$(awk -v w="$w" 'BEGIN {printf "%.3f", 64 / w}')
  n=1; [ "$c" != "1 thread" ] && n=2
  [ -z "$base" ] && base=$rate
  eff=$(awk -v r="$rate" -v b="$base" -v n="$n" 'BEGIN {printf "%.0f %%", 100 * r / (n * b)}')
  printf "%-14s %10.2f %10s %14.3f %12s\n" "$c" "$w" "$rate" "$(awk -v u="$u" 'BEGIN {print u / 64}')" "$eff"
done
if [ "$(sort -u "$out/sums" | wc -l)" -eq 1 ]; then
  echo "results files (sorted): identical in all $(wc -l < "$out/sums") studies"
else
  echo "results files differ between runs:"; sort | uniq -c < "$out/sums"; exit 1
fi
rm -rf "$out"
