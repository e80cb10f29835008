#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The main job: set up, build, and run load case LC1 of the default project headless,
# printing the run summary and writing results/LC1.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
mkdir -p results
./build/app/elastokin-sim projects/quarter_double_wishbone.json --loadcase LC1 --out results/LC1.csv
