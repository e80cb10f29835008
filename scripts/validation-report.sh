#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Generates docs/validation.md (LSRT2 vs the CVODE reference on both axles and load cases).
# Takes tens of minutes; results are cached in build/validation/ (pass --force to rerun).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
if ! /usr/bin/python3 -c "import matplotlib, numpy" 2>/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-matplotlib python3-numpy
fi
bash scripts/build.sh
/usr/bin/python3 scripts/validation_report.py "$@"
