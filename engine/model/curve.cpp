// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/curve.h"

#include <algorithm>
#include <cmath>

namespace ek {
namespace {

std::vector<double> pchipSlopes(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  std::vector<double> h(n - 1), d(n - 1), m(n, 0.0);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    h[i] = x[i + 1] - x[i];
    d[i] = (y[i + 1] - y[i]) / h[i];
  }
  if (n == 2) return {d[0], d[0]};
  for (std::size_t i = 1; i + 1 < n; ++i) {
    if (d[i - 1] * d[i] <= 0.0) {
      m[i] = 0.0;  // local extremum: flat, so the interpolant does not overshoot
    } else {
      // Weighted harmonic mean (Fritsch-Butland), keeps monotone data monotone.
      const double w1 = 2.0 * h[i] + h[i - 1], w2 = h[i] + 2.0 * h[i - 1];
      m[i] = (w1 + w2) / (w1 / d[i - 1] + w2 / d[i]);
    }
  }
  // One-sided three-point end slopes, limited to keep monotonicity.
  auto endSlope = [](double h0, double h1, double d0, double d1) {
    double s = ((2.0 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
    if (s * d0 <= 0.0) s = 0.0;
    else if (d0 * d1 <= 0.0 && std::abs(s) > 3.0 * std::abs(d0)) s = 3.0 * d0;
    return s;
  };
  m[0] = endSlope(h[0], h[1], d[0], d[1]);
  m[n - 1] = endSlope(h[n - 2], h[n - 3], d[n - 2], d[n - 3]);
  return m;
}

std::vector<double> naturalSplineSlopes(const std::vector<double>& x, const std::vector<double>& y) {
  // Solve for second derivatives M (natural: M0 = Mn-1 = 0) with the Thomas algorithm,
  // then convert to node slopes of the Hermite form.
  const std::size_t n = x.size();
  std::vector<double> M(n, 0.0);
  if (n > 2) {
    std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 0.0), r(n, 0.0);
    for (std::size_t i = 1; i + 1 < n; ++i) {
      const double h0 = x[i] - x[i - 1], h1 = x[i + 1] - x[i];
      a[i] = h0;
      b[i] = 2.0 * (h0 + h1);
      c[i] = h1;
      r[i] = 6.0 * ((y[i + 1] - y[i]) / h1 - (y[i] - y[i - 1]) / h0);
    }
    for (std::size_t i = 1; i < n; ++i) {
      const double w = a[i] / b[i - 1];
      b[i] -= w * c[i - 1];
      r[i] -= w * r[i - 1];
    }
    M[n - 1] = r[n - 1] / b[n - 1];
    for (std::size_t i = n - 1; i-- > 0;) M[i] = (r[i] - c[i] * M[i + 1]) / b[i];
  }
  std::vector<double> m(n);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const double h = x[i + 1] - x[i];
    m[i] = (y[i + 1] - y[i]) / h - h * (2.0 * M[i] + M[i + 1]) / 6.0;
  }
  const double h = x[n - 1] - x[n - 2];
  m[n - 1] = (y[n - 1] - y[n - 2]) / h + h * (M[n - 2] + 2.0 * M[n - 1]) / 6.0;
  return m;
}

}  // namespace

Curve::Curve(std::vector<double> x, std::vector<double> y, Interpolation interp, Extrapolation extrap)
    : x_(std::move(x)), y_(std::move(y)), interp_(interp), extrap_(extrap) {
  const std::size_t n = x_.size();
  switch (interp_) {
    case Interpolation::Linear:
      m_.assign(n, 0.0);  // unused: linear segments are evaluated directly
      break;
    case Interpolation::Pchip:
      m_ = pchipSlopes(x_, y_);
      break;
    case Interpolation::Spline:
      m_ = naturalSplineSlopes(x_, y_);
      break;
  }
}

CurveValue Curve::eval(double x) const {
  // NaN compares false with every abscissa: it would pass both range tests and the segment
  // search would run off the end. It has no value; the run's divergence check names the cause.
  if (std::isnan(x)) return {x, x};
  const std::size_t n = x_.size();
  auto segmentSlope = [&](std::size_t i) { return (y_[i + 1] - y_[i]) / (x_[i + 1] - x_[i]); };
  if (x <= x_.front() || x >= x_.back()) {
    const bool low = x <= x_.front();
    const std::size_t e = low ? 0 : n - 1;
    if (extrap_ == Extrapolation::Constant) return {y_[e], 0.0};
    const double s = interp_ == Interpolation::Linear ? segmentSlope(low ? 0 : n - 2) : m_[e];
    return {y_[e] + s * (x - x_[e]), s};
  }
  const std::size_t i =
      static_cast<std::size_t>(std::upper_bound(x_.begin(), x_.end(), x) - x_.begin()) - 1;
  const double h = x_[i + 1] - x_[i];
  if (interp_ == Interpolation::Linear) {
    const double s = segmentSlope(i);
    return {y_[i] + s * (x - x_[i]), s};
  }
  // Cubic Hermite on [x_i, x_i+1].
  const double t = (x - x_[i]) / h;
  const double t2 = t * t, t3 = t2 * t;
  const double h00 = 2 * t3 - 3 * t2 + 1, h10 = t3 - 2 * t2 + t, h01 = -2 * t3 + 3 * t2, h11 = t3 - t2;
  const double d00 = 6 * t2 - 6 * t, d10 = 3 * t2 - 4 * t + 1, d01 = -6 * t2 + 6 * t, d11 = 3 * t2 - 2 * t;
  const double y = h00 * y_[i] + h10 * h * m_[i] + h01 * y_[i + 1] + h11 * h * m_[i + 1];
  const double dy = (d00 * y_[i] + d01 * y_[i + 1]) / h + d10 * m_[i] + d11 * m_[i + 1];
  return {y, dy};
}

double Curve::secondDerivative(double x) const {
  if (std::isnan(x)) return x;
  if (interp_ == Interpolation::Linear || x < x_.front() || x >= x_.back()) return 0.0;
  const std::size_t i =
      static_cast<std::size_t>(std::upper_bound(x_.begin(), x_.end(), x) - x_.begin()) - 1;
  const double h = x_[i + 1] - x_[i], t = (x - x_[i]) / h;
  const double e00 = 12 * t - 6, e10 = 6 * t - 4, e01 = 6 - 12 * t, e11 = 6 * t - 2;
  return (e00 * y_[i] + e01 * y_[i + 1]) / (h * h) + (e10 * m_[i] + e11 * m_[i + 1]) / h;
}

const char* toString(Interpolation i) {
  switch (i) {
    case Interpolation::Linear: return "linear";
    case Interpolation::Pchip: return "pchip";
    case Interpolation::Spline: return "spline";
  }
  return "?";
}
const char* toString(Extrapolation e) { return e == Extrapolation::Linear ? "linear" : "constant"; }

bool parseInterpolation(const std::string& s, Interpolation& out) {
  if (s == "linear") out = Interpolation::Linear;
  else if (s == "pchip") out = Interpolation::Pchip;
  else if (s == "spline") out = Interpolation::Spline;
  else return false;
  return true;
}
bool parseExtrapolation(const std::string& s, Extrapolation& out) {
  if (s == "linear") out = Extrapolation::Linear;
  else if (s == "constant") out = Extrapolation::Constant;
  else return false;
  return true;
}

}  // namespace ek
