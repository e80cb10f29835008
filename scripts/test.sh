#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Set up, build and run every test (CTest). GUI tests, when present, run under xvfb-run.
# Then the robustness builds: the engine and CLI tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, built without threads (scripts/sanitize.sh), and each fuzz target
# for 20 s (scripts/fuzz.sh); docs/robustness.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
(
  cd build
  if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
    xvfb-run -a -s '-screen 0 1280x800x24' ctest --output-on-failure -j2 --timeout 600
  else
    ctest --output-on-failure -j2 --timeout 600
  fi
)
bash scripts/sanitize.sh
bash scripts/fuzz.sh 20
