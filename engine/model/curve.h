// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file curve.h
/// Characteristic curves: sampled points y(x) with an interpolation and an extrapolation rule,
/// evaluated with their slope dy/dx (the slope feeds the Jacobians).

#include <string>
#include <vector>

namespace ek {

enum class Interpolation {
  Linear,  ///< piecewise linear; C0 (slope jumps at the points)
  Pchip,   ///< monotone piecewise cubic Hermite (Fritsch-Carlson); C1, no overshoot
  Spline,  ///< natural cubic spline; C2
};
enum class Extrapolation {
  Linear,    ///< continue with the end slope of the interpolant
  Constant,  ///< hold the end value (slope 0)
};

struct CurveValue {
  double y = 0.0;
  double dydx = 0.0;
};

/// An immutable, evaluated-in-O(log n) characteristic curve.
class Curve {
 public:
  /// @pre x strictly increasing, x.size() == y.size() >= 2 (validated by the model loader).
  Curve(std::vector<double> x, std::vector<double> y, Interpolation interp, Extrapolation extrap);

  CurveValue eval(double x) const;
  /// d2y/dx2 inside a segment (0 on linear pieces and beyond the points; at a point, the
  /// segment to its right: PCHIP and linear curves are not C2 there).
  double secondDerivative(double x) const;
  const std::vector<double>& x() const { return x_; }
  const std::vector<double>& y() const { return y_; }
  Interpolation interpolation() const { return interp_; }
  Extrapolation extrapolation() const { return extrap_; }

 private:
  std::vector<double> x_, y_;
  std::vector<double> m_;  ///< node slopes of the Hermite form (all interpolations use it)
  Interpolation interp_;
  Extrapolation extrap_;
};

/// A force law of one direction: a constant coefficient (F = c * x) or a curve F(x).
struct Characteristic {
  double coefficient = 0.0;
  const Curve* curve = nullptr;  ///< owned by the model; when set, coefficient is ignored

  CurveValue eval(double x) const {
    if (curve) return curve->eval(x);
    return {coefficient * x, coefficient};
  }
  bool isZero() const { return curve == nullptr && coefficient == 0.0; }
  double secondDerivative(double x) const { return curve ? curve->secondDerivative(x) : 0.0; }
};

const char* toString(Interpolation i);
const char* toString(Extrapolation e);
bool parseInterpolation(const std::string& s, Interpolation& out);
bool parseExtrapolation(const std::string& s, Extrapolation& out);

}  // namespace ek
