#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `cmake --install` into a fresh prefix puts the Python package where that prefix's Python finds
# it: imported from there (not from the build tree), it runs a load case.
# Usage: python_install.sh BUILD_DIR PYTHON SOURCE_DIR WORK_DIR. Prints "FAIL:" on a failure.
set -u -o pipefail
build=$1 python=$2 src=$3 work=$4
rm -rf "$work"; mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
site=$(find "$work/prefix" -type d -name elastokin -path "*dist-packages*" | head -n 1)
[ -n "$site" ] || { echo "FAIL: no elastokin package under $work/prefix"; exit 1; }
echo "installed: ${site#$work/prefix/}"
PYTHONPATH=$(dirname "$site") "$python" - "$src" "$site" <<'PY' || echo "FAIL: the installed package does not run"
import os, sys
import elastokin as ek
src, site = sys.argv[1], sys.argv[2]
assert os.path.dirname(ek.__file__) == site, (ek.__file__, site)
r = ek.run(ek.Project.load(os.path.join(src, "projects", "quarter_double_wishbone.json")), "LC1", duration=0.1)
print("imported from", os.path.dirname(ek.__file__), "- ran", r.steps, "steps,", len(r.names), "channels")
PY
