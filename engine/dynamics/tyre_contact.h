// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file tyre_contact.h
/// A Magic Formula tyre on a flat road as the force law of a wheel (docs/tyres.md): the contact
/// point, the vertical load, the slip, the first-order transient slip and the wrench the tyre puts
/// on the wheel, with the exact partial derivatives by everything they depend on.
///
/// The wheel: its centre c, the unit vector y of its axis pointing to the vehicle's left (the
/// ISO W y axis; a right wheel's outboard axis negated), the centre's velocity v and the angular
/// velocity w of the non-spinning hub that carries it (global), the wheel's absolute spin rate
/// Omega about y (positive rolling forwards), and the contact's two deflections u (longitudinal)
/// and v_y (lateral, the contact point's displacement from under the rim), the tyre's relaxation
/// states.
///
/// Contact (road plane z = h, normal n = e_z): x_W = y x n / |y x n| forwards, y_W = n x x_W,
/// the wheel plane's radial direction z_p = x_W x y; loaded radius s = (c . n - h) / (z_p . n),
/// contact point P = c - s z_p, deflection rho = R0 - s, inclination sin(gamma) = y . n.
/// Vertical load (MF 6.1, 4.E68 without the Fx/Fy terms): Fz = (1 + qV2 |Omega| R0 / V0)
/// (Cz rho + qFz2 Fz0 (rho / R0)^2) + kz rho', or the file's deflection-load curve, no force when
/// airborne; rho' = -(v + w x (P - c)) . n.
/// Slip: V_x, V_y the velocity of the hub's point at P along x_W, y_W; effective rolling radius
/// R_e = R_Omega - (Fz0 / Cz) (DREFF atan(BREFF rho_d) + FREFF rho_d), rho_d = rho Cz / Fz0,
/// R_Omega = R0 (Q_RE0 + Q_V1 (R0 Omega / V0)^2); slip velocities V_sx = V_x - R_e Omega,
/// V_sy = V_y.
/// Transient slip (Pacejka 2012, chapter 7, the single contact point model):
///   u' = -V_sx - |V_x| u / sigma_kappa,   v_y' = -V_sy - |V_x| v_y / sigma_alpha,
///   kappa = u / sigma_kappa - k_low V_sx / Kxk,
///   tan(alpha) sgn(V_x) = -v_y / sigma_alpha - k_low V_sy / Kya,
/// the relaxation lengths the secant ones at the rim's slip kappa_r = -V_sx / sqrt(V_x^2 + (VXLOW / 10)^2),
/// tan(alpha_r) = V_sy / sqrt(V_x^2 + (VXLOW / 10)^2) (transientProperties(): a massless contact patch on
/// the carcass spring, so a locked wheel's deflection is Fx over the carcass stiffness),
/// with the low-speed damping k_low = k_low0 (1 + cos(pi V_x / VXLOW)) / 2 for |V_x| < VXLOW, 0
/// above (a force -k_low V_s against sliding): no division by the speed, so standstill has no
/// singularity (the deflections are then springs of stiffness Kxk / sigma_kappa, |Kya| / sigma_alpha).
/// In steady rolling kappa = -V_sx / |V_x| and tan(alpha) = V_sy / V_x: the slip of the .tir files'
/// ISO convention (a tyre sliding to the left while rolling forwards has a positive slip angle;
/// its cornering stiffness Kya, PKY1, is negative; the formula turns the slip with sgn(V_x)).
/// Wrench: Fx x_W + Fy y_W + Fz n at P and the moments Mx x_W + My y_W + Mz n; about the centre
/// M_c = (P - c) x F + M. The hub takes F and M_c less its part about y (the bearing's load); the
/// part about y, tau_y = M_c . y, turns the wheel: I_yy Omega' = tau_y + drive - brake.

#include <array>

#include "engine/core/types.h"
#include "engine/dynamics/magic_formula.h"
#include "engine/model/tyre_property.h"

namespace ek {

/// The variables the contact depends on, in this order in its partial derivatives.
enum TyreVariable : int {
  kTyreCentre = 0,            ///< c, 3
  kTyreAxis = 3,              ///< y, 3
  kTyreVelocity = 6,          ///< v, 3
  kTyreAngularVelocity = 9,   ///< w of the hub, 3
  kTyreSpin = 12,             ///< Omega
  kTyreDeflectionX = 13,      ///< u
  kTyreDeflectionY = 14,      ///< v_y
  kTyreVariables = 15
};

/// The results, in this order in the partial derivatives.
enum TyreResult : int {
  kTyreForce = 0,          ///< on the hub at the centre, global, 3
  kTyreTorque = 3,         ///< on the hub about the centre, global, 3 (no part about y)
  kTyreSpinTorque = 6,     ///< tau_y on the spinning wheel
  kTyreDeflectionRateX = 7,  ///< u'
  kTyreDeflectionRateY = 8,  ///< v_y'
  kTyreResults = 9
};

struct TyreContactState {
  Vec3 centre = Vec3::Zero();
  Vec3 axis = Vec3::UnitY();  ///< unit, to the vehicle's left
  Vec3 velocity = Vec3::Zero();
  Vec3 angularVelocity = Vec3::Zero();
  double spin = 0.0;
  double deflectionX = 0.0, deflectionY = 0.0;
};

struct TyreRoad {
  double height = 0.0;  ///< the road plane z = height
};

struct TyreContactOptions {
  bool mirrored = false;          ///< the file's tyre on the side it was not measured on
  double lowSpeedDamping = 0.0;   ///< k_low0 [N s/m]
};

/// What the contact gives; `partials` is filled only when asked for.
struct TyreContact {
  std::array<double, kTyreResults> result{};
  Eigen::Matrix<double, kTyreResults, kTyreVariables> partials;
  // For the outputs (values only).
  Vec3 point = Vec3::Zero();      ///< P
  double fz = 0.0, kappa = 0.0, alpha = 0.0, gamma = 0.0, vx = 0.0, effectiveRadius = 0.0, spin = 0.0;
  double sigmaKappa = 0.0, sigmaAlpha = 0.0;  ///< the relaxation lengths in effect (secant, at the rim's slip)
  MfForces forces{};              ///< Fx, Fy, Mz, Mx, My in the W axes
};

/// The contact of one tyre. @pre tyre read by readTyreProperty() (positive R0, Fz0, Cz).
void tyreContact(const TyreProperty& tyre, const TyreRoad& road, const TyreContactOptions& options,
                 const TyreContactState& state, bool partials, TyreContact& out);

}  // namespace ek
