#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Jitter of a paced run (docs/realtime.md): elastokin-sim --realtime over SECONDS of simulated
# time (default 60), pinned to one CPU under SCHED_FIFO with its memory locked where the system
# permits (the summary says what was refused and why). Prints the summary: missed deadlines and
# their lateness, the step latency histogram, the wake-up jitter, the step compute time.
# Usage: bench/realtime_jitter.sh [BUILD_DIR] [SECONDS] [PROJECT] [LOADCASE]
set -euo pipefail
build=${1:-build} seconds=${2:-60}
here=$(cd "$(dirname "$0")/.." && pwd)
project=${3:-$here/projects/double_wishbone.json} loadcase=${4:-LC2}
sim=$build/app/elastokin-sim
[ -x "$sim" ] || { echo "no $sim: build the project first (cmake --build $build)"; exit 2; }
out=$(mktemp --suffix=.csv)
trap 'rm -f "$out"' EXIT
echo "$(basename "$project"), load case $loadcase, $seconds s paced at the project's step; host $(nproc) CPU(s), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$sim" "$project" --loadcase "$loadcase" --duration "$seconds" --realtime --quiet --out "$out" |
  sed -n '/^real time/,/^samples/p' | sed '$d'
