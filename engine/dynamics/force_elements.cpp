// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/force_elements.h"

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/rotation.h"

namespace ek {
namespace {

/// Direction k in 3..5 (rx, ry, rz) <-> index of the Cardan angle (psi, theta, phi).
constexpr int angleIndex(int k) { return 5 - k; }

/// The non-zero 3x3 blocks of an element's (F, tau) partials w.r.t. its markers' (p, theta, v,
/// w_W). The others follow from them or vanish: F_pJ = -F_pI, F_vJ = -F_vI, F_thI = F_wI = 0,
/// tau_p = tau_v = 0, tau_wJ = -tau_wI. Without torque (P2P) the tau blocks and F_thJ, F_wJ are zero.
struct MarkerBlocks {
  Mat3 FpI, FvI, FthJ, FwJ;
  Mat3 TthI, TthJ, TwI;
  bool torque = true;
};

/// Chain rule through both markers => the partials w.r.t. the bodies' (p, theta, v, w_B), with the
/// marker maps dp = dp_B - [rho]x dtheta, dv = dv_B - [w x rho]x dtheta - [rho]x R dw_B,
/// dw = -[w]x dtheta + R dw_B (docs/method.md) applied as cross products.
void bodyPartials(const MarkerBlocks& m, const MarkerKinematics& mi, const BodyKinematics& bi,
                  const MarkerKinematics& mj, const BodyKinematics& bj, ElementWrench& w) {
  if (mi.moves) {
    Mat6x12& d = w.dW_dA;
    d.block<3, 3>(0, 0) = m.FpI;
    d.block<3, 3>(0, 3) = -timesSkew(m.FpI, mi.rho) - timesSkew(m.FvI, mi.w.cross(mi.rho));
    d.block<3, 3>(0, 6) = m.FvI;
    d.block<3, 3>(0, 9).noalias() = -timesSkew(m.FvI, mi.rho) * bi.R;
    d.bottomRows<3>().setZero();
    if (m.torque) {
      d.block<3, 3>(3, 3) = m.TthI - timesSkew(m.TwI, mi.w);
      d.block<3, 3>(3, 9).noalias() = m.TwI * bi.R;
    }
  } else {
    w.dW_dA.setZero();
  }
  if (mj.moves) {
    Mat6x12& d = w.dW_dB;
    d.block<3, 3>(0, 0) = -m.FpI;
    d.block<3, 3>(0, 3) = timesSkew(m.FpI, mj.rho) + timesSkew(m.FvI, mj.w.cross(mj.rho));
    d.block<3, 3>(0, 6) = -m.FvI;
    d.bottomRows<3>().setZero();
    if (m.torque) {
      d.block<3, 3>(0, 3) += m.FthJ - timesSkew(m.FwJ, mj.w);
      d.block<3, 3>(0, 9).noalias() = (timesSkew(m.FvI, mj.rho) + m.FwJ) * bj.R;
      d.block<3, 3>(3, 3) = m.TthJ + timesSkew(m.TwI, mj.w);
      d.block<3, 3>(3, 9).noalias() = -m.TwI * bj.R;
    } else {
      d.block<3, 3>(0, 9).noalias() = timesSkew(m.FvI, mj.rho) * bj.R;
    }
  } else {
    w.dW_dB.setZero();
  }
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

/// A viscoelastic direction's BranchCoupling (docs/method.md, "Maxwell branches"): the
/// generalized force of a unit force on I in direction k, and the direction's rate partials
///   translation, n = R_J e_k:  d(rate) = n.(dvI - dvJ) + (wJ x n).(dpI - dpJ) + (n x dW).dwJ + (n x u).dthJ
///   rotation, ga, gd = rows of Ga, Dw Ga:  d(rate) = (gd - wRel x ga).dthI - gd.dthJ + ga.(dwI - dwJ)
/// through the marker maps to the bodies' (p, alpha, v, w_B); and its deflection partials
///   translation: d(defl) = n.(dpI - dpJ) + (n x dW).dthJ;   rotation: d(defl) = ga.(dthI - dthJ).
void branchCoupling(int k, const MarkerKinematics& mi, const BodyKinematics& bi, const MarkerKinematics& mj,
                    const BodyKinematics& bj, const Vec3& u, const Vec3& wRel, const Mat3& Ti, const Mat3& Ga,
                    const Mat3& DwGa, double scale, double scaleSlope, BranchCoupling& out) {
  out.scale = scale;
  out.scaleSlope = scaleSlope;
  // Per side: the rate's partials g* and the deflection's partials q* w.r.t. the marker's
  // (p, v, w, theta); F, tau a unit force on I in direction k.
  Vec3 F = Vec3::Zero(), tau = Vec3::Zero();
  Vec3 gpI = Vec3::Zero(), gvI = Vec3::Zero(), gwI = Vec3::Zero(), gthI = Vec3::Zero();
  Vec3 gpJ = Vec3::Zero(), gvJ = Vec3::Zero(), gwJ = Vec3::Zero(), gthJ = Vec3::Zero();
  Vec3 qpI = Vec3::Zero(), qthI = Vec3::Zero(), qpJ = Vec3::Zero(), qthJ = Vec3::Zero();
  if (k < 3) {
    const Vec3 n = mj.R.col(k), dW = mi.p - mj.p;
    F = n;
    gvI = n;
    gvJ = -n;
    gpI = mj.w.cross(n);
    gpJ = -gpI;
    gwJ = n.cross(dW);
    gthJ = n.cross(u);
    qpI = n;
    qpJ = -n;
    qthJ = n.cross(dW);
  } else {
    const int ai = angleIndex(k);
    const Vec3 ga = Ga.row(ai).transpose(), gd = DwGa.row(ai).transpose();
    tau = mi.R * Ti.row(ai).transpose();  // tau = R_I Ti^T fa with fa = e_ai
    gthI = gd - wRel.cross(ga);
    gthJ = -gd;
    gwI = ga;
    gwJ = -ga;
    qthI = ga;
    qthJ = -ga;
  }
  // dp = dp_B - rho x dth, dv = dv_B - (w x rho) x dth - rho x R dw_B, dw = -w x dth + R dw_B.
  // Partials w.r.t. the body's (p, theta, v, w_B), theta the global rotation vector.
  auto chain = [](const MarkerKinematics& m, const BodyKinematics& bk, const Vec3& gp, const Vec3& gv, const Vec3& gw,
                  const Vec3& gth) {
    Vec12 g;
    g << gp, gth + m.rho.cross(gp) + bk.w_W.cross(m.rho).cross(gv) + bk.w_W.cross(gw), gv,
        bk.R.transpose() * (m.rho.cross(gv) + gw);
    return g;
  };
  // A side on a free body: (p, alpha) partials and its generalized force; on a driven body: the
  // (p, theta, v, w_B) partials, taken through the drive partials by the integrators.
  const Vec3 zero = Vec3::Zero();
  auto side = [&](const MarkerKinematics& m, const BodyKinematics& bk, const Vec3& gp, const Vec3& gv, const Vec3& gw,
                  const Vec3& gth, const Vec3& qp, const Vec3& qth, Vec6& gr, Vec6& gvOut, Vec6& dr, Vec12& gDriven,
                  Vec12& dDriven) {
    const Vec12 g = chain(m, bk, gp, gv, gw, gth), q = chain(m, bk, qp, zero, zero, qth);
    if (m.state < 0) {
      gDriven = g;
      dDriven = q;
      return;
    }
    gr << g.head<3>(), bk.RT.transpose() * g.segment<3>(3);
    gvOut = g.tail<6>();
    dr << q.head<3>(), bk.RT.transpose() * q.segment<3>(3);
  };
  out.stateA = mi.state;
  out.stateB = mj.state;
  out.drivenA = mi.state < 0 && mi.moves ? mi.body : -1;
  out.drivenB = mj.state < 0 && mj.moves ? mj.body : -1;
  if (mi.moves) {
    side(mi, bi, gpI, gvI, gwI, gthI, qpI, qthI, out.grA, out.gvA, out.drA, out.gDrivenA, out.dDrivenA);
    if (mi.state >= 0) out.wA << F, bi.R.transpose() * (tau + mi.rho.cross(F));
  }
  if (mj.moves) {
    side(mj, bj, gpJ, gvJ, gwJ, gthJ, qpJ, qthJ, out.grB, out.gvB, out.drB, out.gDrivenB, out.dDrivenB);
    if (mj.state >= 0) out.wB << -F, -bj.R.transpose() * (tau + (mi.p - bj.p).cross(F));  // the reaction acts at p_I
  }
}

}  // namespace

namespace {

/// One bushing. Never inlined: the serial loop and the parallel step run the same machine code,
/// so that their results agree bit for bit (inlined copies may fuse multiply-adds differently).
[[gnu::noinline]] void bushing(const SuspensionModel& model, Workspace& ws, std::size_t e, bool partials) {
  {
    const ModelBushing& b = model.bushings[e];
    const MarkerKinematics& mi = ws.markers[b.i.value];
    const MarkerKinematics& mj = ws.markers[b.j.value];
    BushingResult& out = ws.bushings[e];

    const Mat3 RJt = mj.R.transpose();
    const Mat3 RIt = mi.R.transpose();
    const Vec3 dW = mi.p - mj.p;
    const Vec3 d = RJt * dW;
    Vec3 a;
    const rotation::Trig tr = rotation::trigOfMatrix(RJt * mi.R, a);
    if (std::abs(tr.cth) < 1e-6)
      throw SimulationError(describeElement(model, "bushing", b.id, b.name, b.i, b.j) +
                            ": relative rotation reached the Cardan singularity (ry = +-90 deg)");
    const Mat3 Ti = rotation::bodyToRate(tr);
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
    // Maxwell branches: force on I minus sum_i k_i s z_i, s = S'(x) / S'(0) when scaled by the
    // static slope (else 1), whose change with x adds s' sum_i k_i z_i to the stiffness slope.
    // Their elimination from a stage matrix acts on the Jacobian as a damper of
    // c_eff = sum_i k_i s g / (1 + g l_i s) and a stiffness change of
    // -sum_i k_i s g l_i s' z_i / (1 + g l_i s), l_i = k_i / c_i (docs/method.md).
    double scale[6], scaleSlope[6];
    for (int k = 0; k < 6; ++k) {
      const int bd = b.branchDirection[k];
      if (bd < 0) continue;
      const ModelBranchDirection& dir = model.branchDirections[bd];
      const int ai = k < 3 ? k : angleIndex(k);
      double& slope = k < 3 ? kt[k] : ka[ai];
      const double x = k < 3 ? d[k] : a[ai];
      scale[k] = dir.scaled ? slope / dir.slope0 : 1.0;
      scaleSlope[k] = dir.scaled ? b.stiffness[k].secondDerivative(x) / dir.slope0 : 0.0;
      const double s = scale[k], sp = scaleSlope[k];
      double force = 0.0, cEff = 0.0, kz = 0.0, sEff = 0.0;
      const double g = ws.branchStageGain;
      for (std::size_t i = 0; i < dir.branches.size(); ++i) {
        const MaxwellBranch& br = dir.branches[i];
        const double zi = ws.z[dir.first + static_cast<int>(i)];
        force += br.k * s * zi;
        kz += br.k * zi;
        if (g > 0.0) {
          const double denominator = 1.0 + g * br.lambda() * s;
          cEff += br.k * s * g / denominator;
          sEff += br.k * s * g * br.lambda() * sp * zi / denominator;
        }
      }
      slope += sp * kz - sEff;
      (k < 3 ? ft[k] : fa[ai]) -= force;
      (k < 3 ? ct[k] : ca[ai]) += cEff;
    }
    out.deflection << d, a[2], a[1], a[0];
    out.rate << dRate, aRate[2], aRate[1], aRate[0];
    out.force << ft, fa[2], fa[1], fa[0];
    const Vec3 g = Ti.transpose() * fa;
    ElementWrench& w = out.wrench;
    w.F = mj.R * ft;
    w.tau = mi.R * g;

    if (!partials) return;

    // Partials w.r.t. the marker quantities, block by non-zero block (docs/method.md):
    //   delta d     = RJ^T (dpI - dpJ) + RJ^T [dW]x dthJ
    //   delta d_dot = RJ^T (dvI - dvJ - [wJ]x (dpI - dpJ) + [dW]x dwJ) + RJ^T [u]x dthJ
    //   delta a     = Ga (dthI - dthJ)
    //   delta a_dot = (Dw Ga + Ga [wRel]x) dthI - Dw Ga dthJ + Ga (dwI - dwJ)
    // With K = RJ diag(kt) RJ^T and C = RJ diag(ct) RJ^T (stiffness and damping in world axes):
    const Mat3 K = mj.R * kt.asDiagonal() * RJt, C = mj.R * ct.asDiagonal() * RJt;
    MarkerBlocks m;
    m.FpI = timesSkew(C, mj.w) - K;
    m.FvI = -C;
    m.FthJ = -timesSkew(K, dW) - timesSkew(C, u) - skew(w.F);
    m.FwJ = timesSkew(m.FvI, dW);
    const Mat3 DwGa = rotation::dBodyToRateTimes(tr, z) * Ga;
    const Mat3 B = rotation::dBodyToRateTransposedTimes(tr, fa) - Ti.transpose() * ka.asDiagonal();
    const Mat3 Cc = Ti.transpose() * ca.asDiagonal();
    const Mat3 X = mi.R * (B * Ga - Cc * DwGa);
    m.TwI = -mi.R * (Cc * Ga);
    m.TthI = X + timesSkew(m.TwI, wRel) - skew(w.tau);
    m.TthJ = -X;
    bodyPartials(m, mi, ws.bodies[mi.body], mj, ws.bodies[mj.body], w);
    for (int k = 0; k < 6; ++k)
      if (b.branchDirection[k] >= 0)
        branchCoupling(k, mi, ws.bodies[mi.body], mj, ws.bodies[mj.body], u, wRel, Ti, Ga, DwGa, scale[k],
                       scaleSlope[k], ws.branches[b.branchDirection[k]]);
  }
}

[[gnu::noinline]] void p2p(const SuspensionModel& model, Workspace& ws, std::size_t e, bool partials) {
  {
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
    if (!partials) return;

    const Mat3 Pe = (Mat3::Identity() - e1 * e1.transpose()) / len;  // d e / d d_W
    MarkerBlocks m;
    m.torque = false;
    m.FpI = -e1 * (dT_dl * e1.transpose() + dT_dr * vRel.transpose() * Pe) - T * Pe;
    m.FvI = -dT_dr * e1 * e1.transpose();
    bodyPartials(m, mi, ws.bodies[mi.body], mj, ws.bodies[mj.body], w);
  }
}

}  // namespace

void calcBushing(const SuspensionModel& model, Workspace& ws, std::size_t e, bool partials) {
  bushing(model, ws, e, partials);
}

void calcP2P(const SuspensionModel& model, Workspace& ws, std::size_t e, bool partials) { p2p(model, ws, e, partials); }

void calcBushings(const SuspensionModel& model, Workspace& ws, bool partials) {
  for (std::size_t e = 0; e < model.bushings.size(); ++e) bushing(model, ws, e, partials);
}

void calcP2Ps(const SuspensionModel& model, Workspace& ws, bool partials) {
  for (std::size_t e = 0; e < model.p2ps.size(); ++e) p2p(model, ws, e, partials);
}

}  // namespace ek
