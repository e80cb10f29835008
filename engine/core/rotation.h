// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file rotation.h
/// Cardan angles alpha = (alpha_z, alpha_y', alpha_x'') of the yaw-pitch-roll current-frame
/// sequence, R = Rz(alpha_z) Ry(alpha_y') Rx(alpha_x'') (DESIGN.md section 1), the map
/// w_B = T(alpha) * d(alpha)/dt and the derivatives of its inverse needed by the linearization.
///
/// Every map is a function of the angles' sines and cosines (Trig), computed once per angle
/// triple: from the angles (trig) or, for the angles of a known matrix, from its entries
/// (trigOfMatrix) without a further transcendental call. The Vec3 overloads are shorthands.

#include <cmath>

#include "engine/core/types.h"

namespace ek::rotation {

/// Sines and cosines of the Cardan angles (psi, theta, phi).
struct Trig {
  double sps = 0.0, cps = 1.0, sth = 0.0, cth = 1.0, sph = 0.0, cph = 1.0;
};

inline Trig trig(const Vec3& a) {
  Trig t;
  t.sps = std::sin(a[0]), t.cps = std::cos(a[0]);
  t.sth = std::sin(a[1]), t.cth = std::cos(a[1]);
  t.sph = std::sin(a[2]), t.cph = std::cos(a[2]);
  return t;
}

/// Cardan angles of a rotation matrix, theta in [-pi/2, pi/2], psi and phi in (-pi, pi], and
/// their sines and cosines from the same entries (equal to sin/cos of the angles to round-off).
inline Trig trigOfMatrix(const Mat3& R, Vec3& a) {
  // The entries are at most 1 in magnitude: sqrt(x^2 + y^2) cannot overflow (std::hypot's
  // scaling would cost more than the three atan2 together).
  const double c = std::sqrt(R(2, 1) * R(2, 1) + R(2, 2) * R(2, 2));  // cos(theta) >= 0
  a[1] = std::atan2(-R(2, 0), c);
  a[0] = std::atan2(R(1, 0), R(0, 0));
  a[2] = std::atan2(R(2, 1), R(2, 2));
  Trig t;
  const double n = std::sqrt(R(2, 0) * R(2, 0) + c * c);  // 1 to round-off; keeps sth^2 + cth^2 = 1
  t.sth = -R(2, 0) / n, t.cth = c / n;
  const double np = std::sqrt(R(1, 0) * R(1, 0) + R(0, 0) * R(0, 0));
  if (np > 0.0) t.sps = R(1, 0) / np, t.cps = R(0, 0) / np;
  if (c > 0.0) t.sph = R(2, 1) / c, t.cph = R(2, 2) / c;
  return t;
}

/// R_WB.
inline Mat3 matrix(const Trig& t) {
  Mat3 R;
  R << t.cps * t.cth, t.cps * t.sth * t.sph - t.sps * t.cph, t.cps * t.sth * t.cph + t.sps * t.sph,  //
      t.sps * t.cth, t.sps * t.sth * t.sph + t.cps * t.cph, t.sps * t.sth * t.cph - t.cps * t.sph,   //
      -t.sth, t.cth * t.sph, t.cth * t.cph;
  return R;
}

/// T: body-frame angular velocity per Cardan-angle rate, w_B = T * a_dot.
inline Mat3 rateToBody(const Trig& t) {
  Mat3 T;
  // Columns: contribution of psi_dot (about the yaw axis seen from B), theta_dot, phi_dot.
  T << -t.sth, 0.0, 1.0,  //
      t.sph * t.cth, t.cph, 0.0, //
      t.cph * t.cth, -t.sph, 0.0;
  return T;
}

/// R T: world angular velocity per Cardan-angle rate (the axes z, Rz y, Rz Ry x).
inline Mat3 rateToWorld(const Trig& t) {
  Mat3 W;
  W << 0.0, -t.sps, t.cps * t.cth,  //
      0.0, t.cps, t.sps * t.cth,    //
      1.0, 0.0, -t.sth;
  return W;
}

/// T^-1: Cardan-angle rates per body-frame angular velocity (K_l block of paper 003 eq. 2a).
/// @pre cos(theta) != 0 (no Cardan singularity).
inline Mat3 bodyToRate(const Trig& t) {
  const double ic = 1.0 / t.cth, tth = t.sth * ic;
  Mat3 Ti;
  Ti << 0.0, t.sph * ic, t.cph * ic,  //
      0.0, t.cph, -t.sph,             //
      1.0, t.sph * tth, t.cph * tth;
  return Ti;
}

/// d(T^-1 * w)/da for fixed w (3x3, columns psi, theta, phi).
inline Mat3 dBodyToRateTimes(const Trig& t, const Vec3& w) {
  const double ic = 1.0 / t.cth, tth = t.sth * ic;
  const double s = t.sph * w[1] + t.cph * w[2];  // component along the yaw axis projected
  const double c = t.cph * w[1] - t.sph * w[2];  // d s / d phi
  Mat3 D = Mat3::Zero();
  D(0, 1) = s * tth * ic;
  D(2, 1) = s * ic * ic;
  D(0, 2) = c * ic;
  D(1, 2) = -s;
  D(2, 2) = tth * c;
  return D;
}

/// d(T^-T * f)/da for fixed f (3x3), the derivative of the torque of a generalized force f
/// that is conjugate to the Cardan angles.
inline Mat3 dBodyToRateTransposedTimes(const Trig& t, const Vec3& f) {
  const double ic = 1.0 / t.cth, tth = t.sth * ic, ic2 = ic * ic;
  Mat3 D = Mat3::Zero();
  D(1, 1) = t.sph * (t.sth * f[0] + f[2]) * ic2;
  D(2, 1) = t.cph * (t.sth * f[0] + f[2]) * ic2;
  D(1, 2) = t.cph * ic * f[0] - t.sph * f[1] + t.cph * tth * f[2];
  D(2, 2) = -t.sph * ic * f[0] - t.cph * f[1] - t.sph * tth * f[2];
  return D;
}

inline Mat3 matrix(const Vec3& a) { return matrix(trig(a)); }
inline Mat3 rateToBody(const Vec3& a) { return rateToBody(trig(a)); }
inline Mat3 bodyToRate(const Vec3& a) { return bodyToRate(trig(a)); }
inline Mat3 dBodyToRateTimes(const Vec3& a, const Vec3& w) { return dBodyToRateTimes(trig(a), w); }
inline Mat3 dBodyToRateTransposedTimes(const Vec3& a, const Vec3& f) { return dBodyToRateTransposedTimes(trig(a), f); }
inline Vec3 anglesFromMatrix(const Mat3& R) {
  Vec3 a;
  trigOfMatrix(R, a);
  return a;
}

}  // namespace ek::rotation
