// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file rotation.h
/// Cardan angles alpha = (alpha_z, alpha_y', alpha_x'') of the yaw-pitch-roll current-frame
/// sequence, R = Rz(alpha_z) Ry(alpha_y') Rx(alpha_x'') (DESIGN.md section 1), the map
/// w_B = T(alpha) * d(alpha)/dt and the derivatives of its inverse needed by the linearization.
///
/// Every map is a function of the angles' sines and cosines (Trig), computed once per angle
/// triple: from the angles (trig) or, for the angles of a known matrix, from its entries
/// (trigOfMatrix) without a further transcendental call. Each map is one template over the number
/// type (matrixOf(), bodyToRateOf(), ...): the body kinematics and the bushings run it in lanes,
/// the Eigen forms (matrix(), bodyToRate(), ...) are its double instantiation. The Vec3 overloads
/// are shorthands.

#include <cmath>

#include "engine/core/lanes.h"
#include "engine/core/types.h"

namespace ek::rotation {

/// Sines and cosines of the Cardan angles (psi, theta, phi), and of theta its secant ic = 1 / cos
/// and tangent tth (setSecant()), for S = double or a pack of lanes (lanes.h): every map below is
/// written once, for both.
template <class S>
struct TrigT {
  S sps{}, cps = lanes::splat<S>(1.0), sth{}, cth = lanes::splat<S>(1.0), sph{}, cph = lanes::splat<S>(1.0);
  S ic = lanes::splat<S>(1.0), tth{};
};
using Trig = TrigT<double>;

/// ic = 1 / cos(theta), tth = tan(theta) from the sine and cosine (infinite at the singularity).
template <class S>
inline void setSecant(TrigT<S>& t) {
  t.ic = lanes::splat<S>(1.0) / t.cth;
  t.tth = t.sth * t.ic;
}

inline Trig trig(const Vec3& a) {
  Trig t;
  t.sps = std::sin(a[0]), t.cps = std::cos(a[0]);
  t.sth = std::sin(a[1]), t.cth = std::cos(a[1]);
  t.sph = std::sin(a[2]), t.cph = std::cos(a[2]);
  setSecant(t);
  return t;
}

/// Cardan angles of a rotation matrix, theta in [-pi/2, pi/2], psi and phi in (-pi, pi], and
/// their sines and cosines from the same entries (equal to sin/cos of the angles to round-off).
/// (The bushings take the angles of R_JI the same way in lanes, with lanes::atan2.)
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
  setSecant(t);
  return t;
}

/// R_WB (m[r][c]).
template <class S>
inline lanes::M3T<S> matrixOf(const TrigT<S>& t) {
  return {{{t.cps * t.cth, t.cps * t.sth * t.sph - t.sps * t.cph, t.cps * t.sth * t.cph + t.sps * t.sph},
           {t.sps * t.cth, t.sps * t.sth * t.sph + t.cps * t.cph, t.sps * t.sth * t.cph - t.cps * t.sph},
           {-t.sth, t.cth * t.sph, t.cth * t.cph}}};
}

/// T: body-frame angular velocity per Cardan-angle rate, w_B = T * a_dot. Columns: the
/// contributions of psi_dot (about the yaw axis seen from B), theta_dot, phi_dot.
template <class S>
inline lanes::M3T<S> rateToBodyOf(const TrigT<S>& t) {
  const S zero{}, one = lanes::splat<S>(1.0);
  return {{{-t.sth, zero, one}, {t.sph * t.cth, t.cph, zero}, {t.cph * t.cth, -t.sph, zero}}};
}

/// R T: world angular velocity per Cardan-angle rate (the axes z, Rz y, Rz Ry x).
template <class S>
inline lanes::M3T<S> rateToWorldOf(const TrigT<S>& t) {
  const S zero{}, one = lanes::splat<S>(1.0);
  return {{{zero, -t.sps, t.cps * t.cth}, {zero, t.cps, t.sps * t.cth}, {one, zero, -t.sth}}};
}

/// T^-1: Cardan-angle rates per body-frame angular velocity (K_l block of paper 003 eq. 2a).
/// @pre cos(theta) != 0 (no Cardan singularity).
template <class S>
inline lanes::M3T<S> bodyToRateOf(const TrigT<S>& t) {
  const S zero{}, one = lanes::splat<S>(1.0);
  return {{{zero, t.sph * t.ic, t.cph * t.ic}, {zero, t.cph, -t.sph}, {one, t.sph * t.tth, t.cph * t.tth}}};
}

/// N = d(T^-1 * w)/da for fixed w (columns psi, theta, phi).
template <class S>
inline lanes::M3T<S> dBodyToRateTimesOf(const TrigT<S>& t, const lanes::V3T<S>& w) {
  const S zero{};
  const S s = t.sph * w.y + t.cph * w.z;  // component along the yaw axis projected
  const S c = t.cph * w.y - t.sph * w.z;  // d s / d phi
  return {{{zero, s * t.tth * t.ic, c * t.ic}, {zero, zero, -s}, {zero, s * t.ic * t.ic, t.tth * c}}};
}

/// d(T^-T * f)/da for fixed f, the derivative of the torque of a generalized force f that is
/// conjugate to the Cardan angles.
template <class S>
inline lanes::M3T<S> dBodyToRateTransposedTimesOf(const TrigT<S>& t, const lanes::V3T<S>& f) {
  const S zero{};
  const S q = (t.sth * f.x + f.z) * (t.ic * t.ic);
  return {{{zero, zero, zero},
           {zero, t.sph * q, t.cph * t.ic * f.x - t.sph * f.y + t.cph * t.tth * f.z},
           {zero, t.cph * q, -t.sph * t.ic * f.x - t.cph * f.y - t.sph * t.tth * f.z}}};
}

/// The maps as Eigen matrices (S = double).
inline Mat3 toMat3(const lanes::M3T<double>& m) {
  Mat3 o;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o(r, c) = m.m[r][c];
  return o;
}
inline Mat3 matrix(const Trig& t) { return toMat3(matrixOf(t)); }
inline Mat3 rateToBody(const Trig& t) { return toMat3(rateToBodyOf(t)); }
inline Mat3 rateToWorld(const Trig& t) { return toMat3(rateToWorldOf(t)); }
inline Mat3 bodyToRate(const Trig& t) { return toMat3(bodyToRateOf(t)); }
inline Mat3 dBodyToRateTimes(const Trig& t, const Vec3& w) {
  return toMat3(dBodyToRateTimesOf(t, lanes::V3T<double>{w.x(), w.y(), w.z()}));
}
inline Mat3 dBodyToRateTransposedTimes(const Trig& t, const Vec3& f) {
  return toMat3(dBodyToRateTransposedTimesOf(t, lanes::V3T<double>{f.x(), f.y(), f.z()}));
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
