#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Work-precision benchmark of the fixed-step methods (issue 15): runs
# build/bench/elastokin-integrator-bench on both axles and load cases (about 10 minutes on two
# cores; --reuse draws from the existing bench/work_precision.json instead), then draws the
# diagram and writes the tables and the recommendation into docs/integrators.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
if ! /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-matplotlib
fi
bash scripts/build.sh
if [ "${1:-}" != "--reuse" ]; then
  ./build/bench/elastokin-integrator-bench --out bench/work_precision.json
  rm -f bench/work_precision_*.json  # every method is in the new file
fi
/usr/bin/python3 scripts/work_precision.py bench/work_precision.json $(ls bench/work_precision_*.json 2>/dev/null)
