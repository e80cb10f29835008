// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/force_elements.h"

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/rotation.h"
#include "engine/dynamics/kinematics.h"

namespace ek {
namespace {

using Mat3x24 = Eigen::Matrix<double, 3, 24>;
// Column offsets of the marker quantities in a 24-column partial: I then J, each (p, theta, v, w).
constexpr int pI = 0, thI = 3, vI = 6, wI = 9, pJ = 12, thJ = 15, vJ = 18, wJ = 21;

/// Direction k in 3..5 (rx, ry, rz) <-> index of the Cardan angle (psi, theta, phi).
constexpr int angleIndex(int k) { return 5 - k; }

/// Splits partials w.r.t. the 24 marker quantities into the two bodies' partials.
void finishWrench(const Mat3x24& dF, const Mat3x24& dTau, const MarkerKinematics& mi, const MarkerKinematics& mj,
                  ElementWrench& w) {
  Mat6x12 dI, dJ;
  dI.topRows<3>() = dF.leftCols<12>();
  dI.bottomRows<3>() = dTau.leftCols<12>();
  dJ.topRows<3>() = dF.rightCols<12>();
  dJ.bottomRows<3>() = dTau.rightCols<12>();
  w.dW_dA = mi.moves ? chainMarker(dI, mi) : Mat6x12::Zero();
  w.dW_dB = mj.moves ? chainMarker(dJ, mj) : Mat6x12::Zero();
}

/// "bushing 3 ('name') between body 1 ('arm') and body 0 ('ground')", for messages.
std::string describeElement(const SuspensionModel& model, const char* kind, int id, const std::string& name,
                            MarkerIndex i, MarkerIndex j) {
  auto body = [&](MarkerIndex m) {
    const ModelBody& b = model.bodies[model.markers[m.value].body.value];
    return "body " + std::to_string(b.id) + " ('" + b.name + "')";
  };
  return std::string(kind) + " " + std::to_string(id) + " ('" + name + "') between " + body(i) + " and " + body(j);
}

}  // namespace

void calcBushings(const SuspensionModel& model, Workspace& ws, bool partials) {
  for (std::size_t e = 0; e < model.bushings.size(); ++e) {
    const ModelBushing& b = model.bushings[e];
    const MarkerKinematics& mi = ws.markers[b.i.value];
    const MarkerKinematics& mj = ws.markers[b.j.value];
    BushingResult& out = ws.bushings[e];

    const Mat3 RJt = mj.R.transpose();
    const Mat3 RIt = mi.R.transpose();
    const Vec3 dW = mi.p - mj.p;
    const Vec3 d = RJt * dW;
    const Vec3 a = rotation::anglesFromMatrix(RJt * mi.R);
    if (std::abs(std::cos(a[1])) < 1e-6)
      throw SimulationError(describeElement(model, "bushing", b.id, b.name, b.i, b.j) +
                            ": relative rotation reached the Cardan singularity (ry = +-90 deg)");
    const Mat3 Ti = rotation::bodyToRate(a);
    const Mat3 Ga = Ti * RIt;  // d a = Ga (d theta_I - d theta_J)
    const Vec3 u = mi.v - mj.v - mj.w.cross(dW);
    const Vec3 dRate = RJt * u;
    const Vec3 wRel = mi.w - mj.w;
    const Vec3 z = RIt * wRel;
    const Vec3 aRate = Ti * z;

    // Direction laws: force on I = preload - S(x) - D(x_dot); slopes for the Jacobian.
    Vec3 ft, fa, kt, ct, ka, ca;
    for (int k = 0; k < 3; ++k) {
      const CurveValue s = b.stiffness[k].eval(d[k]);
      const CurveValue c = b.damping[k].eval(dRate[k]);
      ft[k] = b.preload[k] - s.y - c.y;
      kt[k] = s.dydx;
      ct[k] = c.dydx;
      const int ai = angleIndex(k + 3);
      const CurveValue sr = b.stiffness[k + 3].eval(a[ai]);
      const CurveValue cr = b.damping[k + 3].eval(aRate[ai]);
      fa[ai] = b.preload[k + 3] - sr.y - cr.y;
      ka[ai] = sr.dydx;
      ca[ai] = cr.dydx;
    }
    out.deflection << d, a[2], a[1], a[0];
    out.rate << dRate, aRate[2], aRate[1], aRate[0];
    out.force << ft, fa[2], fa[1], fa[0];
    const Vec3 g = Ti.transpose() * fa;
    ElementWrench& w = out.wrench;
    w.F = mj.R * ft;
    w.tau = mi.R * g;

    if (!partials) continue;

    // Partials w.r.t. the marker quantities, block by non-zero block (docs/method.md):
    //   delta d     = RJ^T (dpI - dpJ) + RJ^T [dW]x dthJ
    //   delta d_dot = RJ^T (dvI - dvJ - [wJ]x (dpI - dpJ) + [dW]x dwJ) + RJ^T [u]x dthJ
    //   delta a     = Ga (dthI - dthJ)
    //   delta a_dot = (Dw Ga + Ga [wRel]x) dthI - Dw Ga dthJ + Ga (dwI - dwJ)
    const Mat3 A1 = kt.asDiagonal() * RJt, A2 = ct.asDiagonal() * RJt;
    const Mat3 dF_dpI = -mj.R * (A1 - A2 * skew(mj.w));
    const Mat3 dF_dvI = -mj.R * A2;
    const Mat3 DwGa = rotation::dBodyToRateTimes(a, z) * Ga;
    const Mat3 B = rotation::dBodyToRateTransposedTimes(a, fa) - Ti.transpose() * ka.asDiagonal();
    const Mat3 Cc = Ti.transpose() * ca.asDiagonal();
    const Mat3 dTau_dwI = -mi.R * (Cc * Ga);
    Mat3x24 dF = Mat3x24::Zero(), dTau = Mat3x24::Zero();
    dF.middleCols<3>(pI) = dF_dpI;
    dF.middleCols<3>(pJ) = -dF_dpI;
    dF.middleCols<3>(thJ) = -mj.R * (A1 * skew(dW) + A2 * skew(u)) - skew(w.F);
    dF.middleCols<3>(vI) = dF_dvI;
    dF.middleCols<3>(vJ) = -dF_dvI;
    dF.middleCols<3>(wJ) = dF_dvI * skew(dW);
    dTau.middleCols<3>(thI) = mi.R * (B * Ga - Cc * (DwGa + Ga * skew(wRel))) - skew(w.tau);
    dTau.middleCols<3>(thJ) = -mi.R * (B * Ga - Cc * DwGa);
    dTau.middleCols<3>(wI) = dTau_dwI;
    dTau.middleCols<3>(wJ) = -dTau_dwI;
    finishWrench(dF, dTau, mi, mj, w);
  }
}

void calcP2Ps(const SuspensionModel& model, Workspace& ws, bool partials) {
  for (std::size_t e = 0; e < model.p2ps.size(); ++e) {
    const ModelP2P& p = model.p2ps[e];
    const MarkerKinematics& mi = ws.markers[p.i.value];
    const MarkerKinematics& mj = ws.markers[p.j.value];
    P2PResult& out = ws.p2ps[e];

    const Vec3 dW = mi.p - mj.p;
    const double len = dW.norm();
    if (!std::isfinite(len))
      throw SimulationError(describeElement(model, "p2p element", p.id, p.name, p.i, p.j) +
                            ": the markers' positions are not finite");
    if (!(len > 1e-9))
      throw SimulationError(describeElement(model, "p2p element", p.id, p.name, p.i, p.j) +
                            ": the markers coincide, the line of action is undefined");
    const Vec3 e1 = dW / len;
    const Vec3 vRel = mi.v - mj.v;
    const double rate = e1.dot(vRel);
    const double ext = len - p.freeLength;

    const CurveValue s = p.spring.eval(ext);
    const CurveValue c = p.damper.eval(rate);
    double T = p.preload + s.y + c.y;
    double dT_dl = s.dydx;
    const double dT_dr = c.dydx;
    if (p.bump.active) {
      const double x = -ext - p.bump.clearance;  // penetration in compression
      if (x > 0.0) {
        const CurveValue f = p.bump.law.eval(x);
        T -= f.y;
        dT_dl += f.dydx;
      }
    }
    if (p.rebound.active) {
      const double x = ext - p.rebound.clearance;  // penetration in extension
      if (x > 0.0) {
        const CurveValue f = p.rebound.law.eval(x);
        T += f.y;
        dT_dl += f.dydx;
      }
    }
    out.length = len;
    out.rate = rate;
    out.tension = T;
    ElementWrench& w = out.wrench;
    w.F = -T * e1;
    w.tau.setZero();
    if (!partials) continue;

    const Mat3 Pe = (Mat3::Identity() - e1 * e1.transpose()) / len;  // d e / d d_W
    const Mat3 dF_dp = -e1 * (dT_dl * e1.transpose() + dT_dr * vRel.transpose() * Pe) - T * Pe;
    const Mat3 dF_dv = -dT_dr * e1 * e1.transpose();
    Mat3x24 dF = Mat3x24::Zero();
    dF.middleCols<3>(pI) = dF_dp;
    dF.middleCols<3>(pJ) = -dF_dp;
    dF.middleCols<3>(vI) = dF_dv;
    dF.middleCols<3>(vJ) = -dF_dv;
    finishWrench(dF, Mat3x24::Zero(), mi, mj, w);
  }
}

}  // namespace ek
