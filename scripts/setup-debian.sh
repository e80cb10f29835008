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
  pybind11-dev python3-pybind11 python3-numpy python3-dev
  libxml2-dev zlib1g-dev libminizip-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
