// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file rotation.h
/// Cardan angles alpha = (alpha_z, alpha_y', alpha_x'') of the yaw-pitch-roll current-frame
/// sequence, R = Rz(alpha_z) Ry(alpha_y') Rx(alpha_x'') (DESIGN.md section 1), the map
/// w_B = T(alpha) * d(alpha)/dt and the derivatives of its inverse needed by the linearization.

#include "engine/core/types.h"

namespace ek::rotation {

/// R_WB of the Cardan angles a = (psi, theta, phi) = (alpha_z, alpha_y', alpha_x'').
Mat3 matrix(const Vec3& a);

/// T(a): body-frame angular velocity per Cardan-angle rate, w_B = T(a) * a_dot.
Mat3 rateToBody(const Vec3& a);

/// T(a)^-1: Cardan-angle rates per body-frame angular velocity (K_l block of paper 003 eq. 2a).
/// @pre |cos(theta)| > 0 (no Cardan singularity).
Mat3 bodyToRate(const Vec3& a);

/// d(T(a)^-1 * w)/da for fixed w (3x3, columns psi, theta, phi).
Mat3 dBodyToRateTimes(const Vec3& a, const Vec3& w);

/// d(T(a)^-T * f)/da for fixed f (3x3), the derivative of the torque of a generalized force f
/// that is conjugate to the Cardan angles.
Mat3 dBodyToRateTransposedTimes(const Vec3& a, const Vec3& f);

/// Cardan angles of a rotation matrix, theta in [-pi/2, pi/2], psi and phi in (-pi, pi].
Vec3 anglesFromMatrix(const Mat3& R);

}  // namespace ek::rotation
