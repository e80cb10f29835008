#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The main job: set up, build, and open the workbench on the default project
# (projects/macpherson_front.json). Without a display the workbench says so and runs the
# headless job instead: load case LC1 with elastokin-sim, printing the run summary and writing
# results/LC1.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
./build/app/elastokin projects/macpherson_front.json
