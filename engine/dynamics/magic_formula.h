// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file magic_formula.h
/// The Magic Formula's steady-state forces and moments of a tyre at the contact point (ISO W axes:
/// x forwards in the wheel plane, z up, y to the left), per Pacejka, Tyre and Vehicle Dynamics
/// (3rd ed.), section 4.3.2 for MF 6.1/6.2 and the PAC2002 (MF 5.2) variant (docs/tyres.md):
/// pure and combined slip Fx, Fy, the aligning torque Mz with its pneumatic trail and residual
/// torque, the overturning moment Mx and the rolling resistance moment My, each with the load,
/// camber and inflation-pressure terms and the file's scaling factors. No turn slip (zeta = 1).
///
/// Written once on the scalar type: double for the values, Eigen's forward automatic
/// differentiation for the exact partial derivatives the linearization needs (tested against
/// finite differences).

#include <array>

#include "engine/model/tyre_property.h"

namespace ek {

/// The inputs, in this order in the partial derivatives.
enum MfInput : int { kMfKappa, kMfAlpha, kMfGamma, kMfFz, kMfVx, kMfInputs };
/// The outputs, in this order.
enum MfOutput : int { kMfFx, kMfFy, kMfMz, kMfMx, kMfMy, kMfOutputs };

struct MfState {
  double kappa = 0.0;  ///< longitudinal slip, -Vsx / |Vx|
  double alpha = 0.0;  ///< slip angle [rad], tan(alpha) = Vsy / Vx (ISO, the .tir files' sign: PKY1 < 0)
  double gamma = 0.0;  ///< inclination (camber) angle [rad]
  double fz = 0.0;     ///< vertical load [N] (no force below 0)
  double vx = 0.0;     ///< forward speed of the wheel centre [m/s]
};

using MfForces = std::array<double, kMfOutputs>;
using MfPartials = std::array<std::array<double, kMfInputs>, kMfOutputs>;  ///< [output][input]

/// Forces and moments. `mirrored`: the tyre runs on the side opposite to the one it was measured
/// on (TYRESIDE or a negative USE_MODE): evaluated at -alpha, -gamma, with Fy, Mz and Mx negated.
MfForces magicFormula(const TyreProperty& tyre, const MfState& s, bool mirrored = false);
/// The same with the partial derivatives of every output by every input.
MfForces magicFormula(const TyreProperty& tyre, const MfState& s, bool mirrored, MfPartials& partials);

/// The rim's slip the relaxation lengths are taken at: kappa_r = -V_sx / sqrt(V_x^2 + (VXLOW / 10)^2),
/// tan(alpha_r) = V_sy / sqrt(V_x^2 + (VXLOW / 10)^2) (alpha* of the formula, positive for a tyre sliding
/// to the left while rolling forwards), and whether the tyre is mirrored.
struct MfRimSlip {
  double kappa = 0.0, tanAlpha = 0.0;
  bool mirrored = false;
};

/// What the first-order transient slip of a tyre needs at load fz and inclination gamma (docs/tyres.md):
/// the relaxation lengths of longitudinal and lateral slip and the pure-slip stiffnesses Kxk and
/// Kya (the formulas' own). At zero slip the lengths are the file's: from PTX1-3 and PTY1-2 when
/// it gives PTX1 / PTY1 (MF-Tyre 5.2's formulas, PAC2002 and MF 6.x alike), otherwise the slip
/// stiffness over the carcass stiffness of [STRUCTURAL] (LONGITUDINAL_STIFFNESS,
/// LATERAL_STIFFNESS); both plus 0.1 mm so that an unloaded tyre divides by no zero. At the rim's
/// slip they are the secant ones, sigma0 times the pure-slip curve's secant slope over its slope at
/// zero: the carcass spring Kxk / sigma_kappa0 (Kya / sigma_alpha0) keeps its stiffness while the
/// slip's stiffness falls beyond the peak. With `withPartials` each of the four by fz, gamma,
/// kappa_r and tan(alpha_r).
struct MfTransient {
  double sigmaKappa = 0.0, sigmaAlpha = 0.0;  ///< [m]
  double kxk = 0.0, kya = 0.0;                ///< [N], [N/rad]
  /// [sigmaKappa, sigmaAlpha, kxk, kya][fz, gamma, kappa_r, tan(alpha_r)]
  std::array<std::array<double, 4>, 4> partials{};
};
MfTransient transientProperties(const TyreProperty& tyre, double fz, double gamma, const MfRimSlip& slip = {});
MfTransient transientProperties(const TyreProperty& tyre, double fz, double gamma, const MfRimSlip& slip,
                                bool withPartials);

/// The slip stiffnesses at zero slip of the pure-slip formulas: dFx0/dkappa = Kxk [N],
/// dFy0/dalpha = Kya [N/rad] (MF: B C D), at load fz and camber gamma.
double longitudinalSlipStiffness(const TyreProperty& tyre, double fz);
double corneringStiffness(const TyreProperty& tyre, double fz, double gamma = 0.0);

}  // namespace ek
