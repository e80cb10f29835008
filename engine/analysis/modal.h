// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file modal.h
/// Eigen-analysis of the linearized equations of motion at a state (paper 003 Sect. 2.3):
/// eigenvalues of the first-order system matrix [[N, K], [M^-1 J_r, M^-1 J_v]], the numerical
/// stiffness ratio max|lambda| / min|lambda| and the undamped eigenfrequencies from
/// M^-1 (-J_r K).

#include <complex>
#include <vector>

#include "engine/dynamics/workspace.h"

namespace ek {

struct ModalReport {
  std::vector<std::complex<double>> eigenvalues;  ///< sorted by magnitude
  int zeroEigenvalues = 0;      ///< |lambda| below zeroThreshold: free directions (e.g. wheel spin)
  double zeroThreshold = 0.0;
  double maxMagnitude = 0.0, minMagnitude = 0.0;  ///< over the non-zero eigenvalues
  double stiffnessRatio = 0.0;                    ///< maxMagnitude / minMagnitude
  double maxRealPart = 0.0;                       ///< over the non-zero eigenvalues (< 0: stable)
  std::vector<double> undampedFrequencies;        ///< [Hz], ascending, positive omega^2 only
};

/// @pre state is the linearization point (typically a static equilibrium, v = 0).
ModalReport analyzeModes(const SuspensionModel& model, const State& state, const VecX& u);

}  // namespace ek
