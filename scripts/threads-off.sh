#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The build without threads (-DELASTOKIN_THREADS=OFF: engine/parallel left out, every run on one
# thread, --threads N > 1 refused) into build-nothreads/, with the engine's and the runner's tests:
# the layer above the integrators must stay optional (engine/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh > /dev/null
mkdir -p build-nothreads
cmake -S . -B build-nothreads -DCMAKE_BUILD_TYPE=Release -DELASTOKIN_THREADS=OFF -DELASTOKIN_BUILD_UI=OFF \
  -DELASTOKIN_FMU=OFF -DELASTOKIN_PYTHON=OFF -DELASTOKIN_MPI=OFF > build-nothreads/build.log
cmake --build build-nothreads -j"$(nproc)" >> build-nothreads/build.log
cd build-nothreads
ctest --output-on-failure -j"$(nproc)" --timeout 900 -LE slow
