#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the stored LC1 baselines of the shipped axles (tests/data/baselines/), after a
# deliberate change of the physics or of the projects. tst_shipped_projects compares against them.
set -euo pipefail
cd "$(dirname "$0")/.."
for p in double_wishbone multilink; do
  ./build/app/elastokin-sim projects/$p.json --loadcase LC1 --sample-rate 100 --quiet \
      --out tests/data/baselines/${p}_LC1.csv
done
