// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file criteria.h
/// Functionals of a sampled output channel for parameter studies and optimization (paper 001
/// Sect. 5: comfort, safety, suspension travel as time integrals of outputs), and the sampling
/// plans of a design of experiments. Definitions: docs/studies.md.

#include <string>
#include <vector>

namespace ek {

enum class CriterionKind {
  Rms,             ///< sqrt(1/T int y^2 dt): the root of the time average of y^2 (trapezoid)
  Maximum,         ///< max y
  MaximumAbs,      ///< max |y|
  PeakToPeak,      ///< max y - min y
  IntegralSquare,  ///< int y^2 dt (trapezoid)
  /// int t^p |d^k y / dt^k|^q dt with the time weight exponent p, derivative order k (0-2,
  /// central differences) and exponent q: paper 001's int t^2 z''^2 dt is p = 2, k = 2, q = 2,
  /// its suspension travel int ((zP - zQ)/s0)^6 dt is p = 0, k = 0, q = 6
  WeightedIntegral,
  ValueAt,         ///< y(time), linear between samples
  SettlingTime,    ///< the last time |y - y_end| exceeds band * (max y - min y), from the start
};

struct Criterion {
  CriterionKind kind = CriterionKind::Rms;
  double from = 0.0, to = 1e300;  ///< the time window evaluated [s]
  double weightPower = 2.0;       ///< WeightedIntegral: p (t measured from `from`)
  int derivative = 2;             ///< WeightedIntegral: k
  double exponent = 2.0;          ///< WeightedIntegral: q
  double time = 0.0;              ///< ValueAt
  double band = 0.02;             ///< SettlingTime: tolerance band as a share of the range
};

/// The criterion of samples (t, y) (t increasing, at least 2 samples in the window).
/// @throws std::invalid_argument for a window with fewer than 2 samples (3 for k = 2), or a time
///   outside the samples.
double evaluateCriterion(const Criterion& c, const std::vector<double>& t, const std::vector<double>& y);

/// Criterion kinds by name ("rms", "max", "max abs", "peak to peak", "integral square",
/// "weighted integral", "value at", "settling time"). @returns false for an unknown name.
bool parseCriterionKind(const std::string& name, CriterionKind& out);
const char* toString(CriterionKind kind);

/// A Latin hypercube of n points in [0, 1)^dims: in every dimension each of the n strata
/// [k/n, (k+1)/n) holds exactly one point. Reproducible for a seed on every platform (mt19937 and
/// its own integer and real conversions, no library distributions).
std::vector<std::vector<double>> latinHypercube(int n, int dims, unsigned seed);

/// A full factorial plan: every combination of `levels[d]` equally spaced values in [0, 1] per
/// dimension (a single level is 0.5), the last dimension varying fastest.
std::vector<std::vector<double>> fullFactorial(const std::vector<int>& levels);

}  // namespace ek
