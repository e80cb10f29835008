// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/rotation.h"

#include <cmath>

namespace ek::rotation {

Mat3 matrix(const Vec3& a) {
  const double cps = std::cos(a[0]), sps = std::sin(a[0]);
  const double cth = std::cos(a[1]), sth = std::sin(a[1]);
  const double cph = std::cos(a[2]), sph = std::sin(a[2]);
  Mat3 R;
  R << cps * cth, cps * sth * sph - sps * cph, cps * sth * cph + sps * sph,  //
      sps * cth, sps * sth * sph + cps * cph, sps * sth * cph - cps * sph,   //
      -sth, cth * sph, cth * cph;
  return R;
}

Mat3 rateToBody(const Vec3& a) {
  const double cth = std::cos(a[1]), sth = std::sin(a[1]);
  const double cph = std::cos(a[2]), sph = std::sin(a[2]);
  Mat3 T;
  // Columns: contribution of psi_dot (about the yaw axis seen from B), theta_dot, phi_dot.
  T << -sth, 0.0, 1.0,  //
      sph * cth, cph, 0.0, //
      cph * cth, -sph, 0.0;
  return T;
}

Mat3 bodyToRate(const Vec3& a) {
  const double cth = std::cos(a[1]), tth = std::tan(a[1]);
  const double cph = std::cos(a[2]), sph = std::sin(a[2]);
  Mat3 Ti;
  Ti << 0.0, sph / cth, cph / cth,  //
      0.0, cph, -sph,               //
      1.0, sph * tth, cph * tth;
  return Ti;
}

Mat3 dBodyToRateTimes(const Vec3& a, const Vec3& w) {
  const double cth = std::cos(a[1]), sth = std::sin(a[1]), tth = std::tan(a[1]);
  const double cph = std::cos(a[2]), sph = std::sin(a[2]);
  const double s = sph * w[1] + cph * w[2];   // component along the yaw axis projected
  const double c = cph * w[1] - sph * w[2];   // d s / d phi
  Mat3 D = Mat3::Zero();
  D(0, 1) = s * sth / (cth * cth);
  D(2, 1) = s / (cth * cth);
  D(0, 2) = c / cth;
  D(1, 2) = -s;
  D(2, 2) = tth * c;
  return D;
}

Mat3 dBodyToRateTransposedTimes(const Vec3& a, const Vec3& f) {
  const double cth = std::cos(a[1]), sth = std::sin(a[1]), tth = std::tan(a[1]);
  const double cph = std::cos(a[2]), sph = std::sin(a[2]);
  const double c2 = cth * cth;
  Mat3 D = Mat3::Zero();
  D(1, 1) = sph * sth / c2 * f[0] + sph / c2 * f[2];
  D(2, 1) = cph * sth / c2 * f[0] + cph / c2 * f[2];
  D(1, 2) = cph / cth * f[0] - sph * f[1] + cph * tth * f[2];
  D(2, 2) = -sph / cth * f[0] - cph * f[1] - sph * tth * f[2];
  return D;
}

Vec3 anglesFromMatrix(const Mat3& R) {
  const double theta = std::atan2(-R(2, 0), std::hypot(R(2, 1), R(2, 2)));
  const double psi = std::atan2(R(1, 0), R(0, 0));
  const double phi = std::atan2(R(2, 1), R(2, 2));
  return {psi, theta, phi};
}

}  // namespace ek::rotation
