#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds fmusim, the Modelica Association's reference FMU importer, from FMI_DIR (its sources and
# build-fmusim.sh; ../shared/fmi beside the project) into OUT. Skipped (exit 77) with a message
# where that folder is absent.
set -u
fmi=$1 out=$2
if [ ! -f "$fmi/build-fmusim.sh" ]; then
  echo "SKIP: no fmusim sources at $fmi (set ELASTOKIN_FMI_DIR): the FMUs are not checked by the reference importer"
  exit 77
fi
[ -x "$out/fmusim" ] && [ "$out/fmusim" -nt "$fmi/build-fmusim.sh" ] && { "$out/fmusim" --version; exit 0; }
bash "$fmi/build-fmusim.sh" "$out"
