#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian 12 packages Elastokin needs to build and test. Idempotent and
# non-interactive: installs only what is missing (run as root, or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libeigen3-dev nlohmann-json3-dev
  qt6-base-dev libqt6opengl6-dev qt6-svg-dev
  libvtk9-dev libqcustomplot-dev libqcustomplot2.1-qt6
  libsundials-dev libsuitesparse-dev
  libnlopt-cxx-dev libopenmpi-dev openmpi-bin
  xvfb xauth
  clang libclang-rt-14-dev
  locales
  pybind11-dev python3-pybind11 python3-numpy python3-dev python3-scipy python3-matplotlib
  libxml2-dev libxml2-utils zlib1g-dev libminizip-dev
  calculix-ccx libspectra-dev
)

# The locales the tests run under (numbers in files must not depend on them: tst_locale, the
# CLI and GUI tests run in de_DE.UTF-8, where the decimal separator is a comma).
locales_needed=(de_DE.UTF-8 fr_FR.UTF-8)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

generate=()
for l in "${locales_needed[@]}"; do
  # locale -a lists de_DE.utf8 for de_DE.UTF-8
  if ! locale -a 2>/dev/null | grep -qix "${l%%.*}.utf8"; then generate+=("$l"); fi
done
if [ ${#generate[@]} -gt 0 ]; then
  echo "setup: generating the locales ${generate[*]}"
  for l in "${generate[@]}"; do
    $SUDO sed -i "s/^# *\(${l} UTF-8\)/\1/" /etc/locale.gen
    grep -q "^${l} UTF-8" /etc/locale.gen || echo "${l} UTF-8" | $SUDO tee -a /etc/locale.gen > /dev/null
  done
  $SUDO locale-gen
fi
