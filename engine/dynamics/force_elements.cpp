// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/force_elements.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "engine/core/error.h"
#include "engine/core/lanes.h"
#include "engine/core/rotation.h"

namespace ek {
namespace {

/// Direction k in 3..5 (rx, ry, rz) <-> index of the Cardan angle (psi, theta, phi).
constexpr int angleIndex(int k) { return 5 - k; }

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
  // A side on a flexible body: the marker-level partials, chained through its node by the flexible
  // pass (flexible_rows.cpp, flexibleBranchSides()), which overwrites that side's frame parts.
  for (const auto& [s, gp, gth, gv, gw, qp, qth] : {std::tuple{&out.modalA, &gpI, &gthI, &gvI, &gwI, &qpI, &qthI},
                                                   std::tuple{&out.modalB, &gpJ, &gthJ, &gvJ, &gwJ, &qpJ, &qthJ}}) {
    if (s->modes == 0) continue;
    s->gMarker << *gp, *gth, *gv, *gw;
    s->dMarker << *qp, *qth, zero, zero;
    s->F = F;
    s->tau = tau;
  }
}

}  // namespace

namespace {

using lanes::kLanes;
using lanes::laneOf;
using lanes::M3;
using lanes::M3T;
using lanes::Pack;
using lanes::V3;
using lanes::V3T;

// ---------------------------------------------------------------------------------------------
// The force laws and their partials, written once as templates over the number type S: S = double
// computes one element (calcBushingScalar(), calcP2PScalar(): the reference the tests
// differentiate), S = Pack kLanes elements at once (the step's kernels). Lane by lane the
// arithmetic is the same.

template <class S>
Vec3 laneVec(const V3T<S>& a, int l) {
  return {laneOf(a.x, l), laneOf(a.y, l), laneOf(a.z, l)};
}
template <class S>
Mat3 laneMat(const M3T<S>& a, int l) {
  Mat3 A;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) A(r, c) = laneOf(a.m[r][c], l);
  return A;
}
template <class S>
void setLaneVec(V3T<S>& a, int l, const Vec3& v) {
  lanes::setLane(a.x, l, v.x()), lanes::setLane(a.y, l, v.y()), lanes::setLane(a.z, l, v.z());
}
V3T<double> scalarOf(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
M3T<double> scalarOf(const Mat3& A) {
  M3T<double> o;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o.m[r][c] = A(r, c);
  return o;
}

/// A marker's kinematics (MarkerKinematics) in S.
template <class S>
struct MarkerOf {
  V3T<S> p, v, w, rho;
  M3T<S> R;
};

/// The bodies behind an element's markers: what takes the marker-level partials to the bodies'
/// (p, theta, v, w_B) and to the rows.
template <class S>
struct SidesOf {
  M3T<S> Ra, Rb;      ///< R_WB of the bodies of I (side A) and J (side B)
  V3T<S> rhoI, rhoJ;  ///< the markers' lever arms from their bodies' reference points
  V3T<S> wI, wJ;      ///< the markers' angular velocities (global)
  V3T<S> q;           ///< p_I - p_b: where the reaction acts, from J's body
};

/// A bushing's deflections, rates and the Cardan angles a = (psi, theta, phi) of R_JI with their
/// sines and cosines from its entries (rotation::trigOfMatrix()).
template <class S>
struct BushingGeometry {
  V3T<S> dW, d, u, dRate, wRel, z, a, aRate;
  M3T<S> Ti;  ///< T(a)^-1 (rotation::bodyToRateOf())
  rotation::TrigT<S> t;  ///< of theta and phi (psi's sine and cosine are not needed)
};

template <class S>
BushingGeometry<S> bushingGeometry(const MarkerOf<S>& I, const MarkerOf<S>& J) {
  using namespace lanes;
  BushingGeometry<S> g;
  g.dW = I.p - J.p;
  g.d = transposedTimes(J.R, g.dW);
  const M3T<S> Q = transposedTimes(J.R, I.R);  // R_JI
  g.u = I.v - J.v - cross(J.w, g.dW);
  g.dRate = transposedTimes(J.R, g.u);
  g.wRel = I.w - J.w;
  g.z = transposedTimes(I.R, g.wRel);
  const S c = lanes::sqrt(Q.m[2][1] * Q.m[2][1] + Q.m[2][2] * Q.m[2][2]);  // cos(theta) >= 0
  g.a = {lanes::atan2(Q.m[1][0], Q.m[0][0]), lanes::atan2(-Q.m[2][0], c), lanes::atan2(Q.m[2][1], Q.m[2][2])};
  const S nth = lanes::sqrt(Q.m[2][0] * Q.m[2][0] + c * c);  // 1 to round-off
  g.t.sth = -Q.m[2][0] / nth, g.t.cth = c / nth;
  const auto tilted = c > 0.0;
  g.t.sph = tilted ? Q.m[2][1] / c : S{}, g.t.cph = tilted ? Q.m[2][2] / c : splat<S>(1.0);
  rotation::setSecant(g.t);
  g.Ti = rotation::bodyToRateOf(g.t);
  g.aRate = g.Ti * g.z;
  return g;
}

/// Per direction: the force on I (f = preload - S(x) - D(x_dot)) and the slopes for the Jacobian;
/// translational in J's axes, rotational per Cardan angle.
template <class S>
struct DirectionLaws {
  V3T<S> kt, ka, ct, ca, ft, fa;
};

/// The laws of constant coefficients (ModelBushing::coefficients).
template <class S>
DirectionLaws<S> constantLaws(const S* law, const BushingGeometry<S>& g) {
  using lanes::times;
  DirectionLaws<S> o;
  o.kt = {law[0], law[1], law[2]}, o.ka = {law[3], law[4], law[5]};
  o.ct = {law[6], law[7], law[8]}, o.ca = {law[9], law[10], law[11]};
  o.ft = V3T<S>{law[12], law[13], law[14]} - times(o.kt, g.d) - times(o.ct, g.dRate);
  o.fa = V3T<S>{law[15], law[16], law[17]} - times(o.ka, g.a) - times(o.ca, g.aRate);
  return o;
}

/// Lane l of `law` for a bushing with curves or Maxwell branches: its curves, and its branches'
/// forces on I minus sum_i k_i s z_i, s = S'(x) / S'(0) when scaled by the static slope (else
/// 1), whose change with x adds s' sum_i k_i z_i to the stiffness slope. Eliminated from a stage
/// matrix I - g J (g = gain > 0) they act on the Jacobian as a damper of
/// c_eff = sum_i k_i s g / (1 + g l_i s) and a stiffness change of
/// -sum_i k_i s g l_i s' z_i / (1 + g l_i s), l_i = k_i / c_i (docs/method.md). The scaling
/// per direction into scale, scaleSlope (set for the directions with branches).
template <class S>
void curveLaws(const SuspensionModel& model, const ModelBushing& b, const VecX& z, double gain,
               const BushingGeometry<S>& g, int l, DirectionLaws<S>& law, double (&scale)[6],
               double (&scaleSlope)[6]) {
  const Vec3 dl = laneVec(g.d, l), dRl = laneVec(g.dRate, l), al = laneVec(g.a, l), aRl = laneVec(g.aRate, l);
  Vec3 ftl, fal, ktl, ctl, kal, cal;
  for (int k = 0; k < 3; ++k) {
    const CurveValue sv = b.stiffness[k].eval(dl[k]);
    const CurveValue cv = b.damping[k].eval(dRl[k]);
    ftl[k] = b.preload[k] - sv.y - cv.y;
    ktl[k] = sv.dydx;
    ctl[k] = cv.dydx;
    const int ai = angleIndex(k + 3);
    const CurveValue sr = b.stiffness[k + 3].eval(al[ai]);
    const CurveValue cr = b.damping[k + 3].eval(aRl[ai]);
    fal[ai] = b.preload[k + 3] - sr.y - cr.y;
    kal[ai] = sr.dydx;
    cal[ai] = cr.dydx;
  }
  for (int k = 0; k < 6; ++k) {
    const int bd = b.branchDirection[k];
    if (bd < 0) continue;
    const ModelBranchDirection& dir = model.branchDirections[bd];
    const int ai = k < 3 ? k : angleIndex(k);
    double& slope = k < 3 ? ktl[k] : kal[ai];
    const double x = k < 3 ? dl[k] : al[ai];
    scale[k] = dir.scaled ? slope / dir.slope0 : 1.0;
    scaleSlope[k] = dir.scaled ? b.stiffness[k].secondDerivative(x) / dir.slope0 : 0.0;
    const double sc = scale[k], sp = scaleSlope[k];
    double force = 0.0, cEff = 0.0, kz = 0.0, sEff = 0.0;
    for (std::size_t i = 0; i < dir.branches.size(); ++i) {
      const MaxwellBranch& br = dir.branches[i];
      const double zi = z[dir.first + static_cast<int>(i)];
      force += br.k * sc * zi;
      kz += br.k * zi;
      if (gain > 0.0) {
        const double denominator = 1.0 + gain * br.lambda() * sc;
        cEff += br.k * sc * gain / denominator;
        sEff += br.k * sc * gain * br.lambda() * sp * zi / denominator;
      }
    }
    slope += sp * kz - sEff;
    (k < 3 ? ftl[k] : fal[ai]) -= force;
    (k < 3 ? ctl[k] : cal[ai]) += cEff;
  }
  setLaneVec(law.ft, l, ftl), setLaneVec(law.fa, l, fal), setLaneVec(law.kt, l, ktl), setLaneVec(law.ct, l, ctl);
  setLaneVec(law.ka, l, kal), setLaneVec(law.ca, l, cal);
}

/// Marker-level partials of an element's wrench: F w.r.t. p_I (FpI; p_J: -FpI), v_I (FvI; v_J:
/// -FvI), theta_J, w_J (FthJ, FwJ); tau w.r.t. theta_I, theta_J, w_I (TthI, TthJ, TwI; w_J:
/// -TwI). A P2P element has FpI and FvI only (p2pPartials() sets the others to zero).
template <class S>
struct MarkerPartialsOf {
  M3T<S> FpI, FvI, FthJ, FwJ, TthI, TthJ, TwI;
};

/// d a = Ga (d theta_I - d theta_J): Ga = T^-1 R_I^T, and rotation::dBodyToRateTimes(z) Ga (the
/// derivative's five non-zero entries), kept for the rate partials and the branch couplings.
template <class S>
M3T<S> angleMap(const BushingGeometry<S>& g, const M3T<S>& RI) {
  return lanes::timesTransposed(g.Ti, RI);
}
template <class S>
M3T<S> angleMapRate(const BushingGeometry<S>& g, const M3T<S>& Ga) {
  // Dw = d(T^-1 z)/da (rotation::dBodyToRateTimesOf()), times Ga without its zero column.
  const M3T<S> D = rotation::dBodyToRateTimesOf(g.t, g.z);
  M3T<S> DwGa;
  for (int c = 0; c < 3; ++c) {
    DwGa.m[0][c] = D.m[0][1] * Ga.m[1][c] + D.m[0][2] * Ga.m[2][c];
    DwGa.m[1][c] = D.m[1][2] * Ga.m[2][c];
    DwGa.m[2][c] = D.m[2][1] * Ga.m[1][c] + D.m[2][2] * Ga.m[2][c];
  }
  return DwGa;
}

/// A bushing's marker-level partials (docs/method.md), block by non-zero block:
///   delta d     = RJ^T (dpI - dpJ) + RJ^T [dW]x dthJ
///   delta d_dot = RJ^T (dvI - dvJ - [wJ]x (dpI - dpJ) + [dW]x dwJ) + RJ^T [u]x dthJ
///   delta a     = Ga (dthI - dthJ)
///   delta a_dot = (Dw Ga + Ga [wRel]x) dthI - Dw Ga dthJ + Ga (dwI - dwJ)
/// with K = RJ diag(kt) RJ^T and C = RJ diag(ct) RJ^T (stiffness and damping in world axes).
/// Returned as one aggregate: each member is initialized from its expression, not copied.
template <class S>
MarkerPartialsOf<S> bushingPartials(const MarkerOf<S>& I, const MarkerOf<S>& J, const BushingGeometry<S>& g,
                                    const DirectionLaws<S>& law, const V3T<S>& F, const V3T<S>& tau,
                                    const M3T<S>& Ga, const M3T<S>& DwGa) {
  using namespace lanes;
  const M3T<S>&RI = I.R, &RJ = J.R;
  const M3T<S> K = timesTransposed(timesDiagonal(RJ, law.kt), RJ);
  const M3T<S> C = timesTransposed(timesDiagonal(RJ, law.ct), RJ);
  const M3T<S> B = rotation::dBodyToRateTransposedTimesOf(g.t, law.fa) - transposedTimesDiagonal(g.Ti, law.ka);
  const M3T<S> Cc = transposedTimesDiagonal(g.Ti, law.ca);
  const M3T<S> X = RI * (B * Ga - Cc * DwGa);
  const M3T<S> TwI = -(RI * (Cc * Ga));
  return {timesSkew(C, J.w) - K,                                        // FpI
          -C,                                                           // FvI
          -timesSkew(K, g.dW) - timesSkew(C, g.u) - skew(F),            // FthJ
          -timesSkew(C, g.dW),                                          // FwJ = FvI [dW]x
          X + timesSkew(TwI, g.wRel) - skew(tau),                       // TthI
          -X,                                                           // TthJ
          TwI};                                                         // TwI
}

/// A P2P element's marker-level partials: F = -T e, e = d_W / |d_W|:
/// dF/dp_I = -e (T_l e^T + T_r vRel^T Pe) - T Pe, dF/dv_I = -T_r e e^T, Pe = de/dd_W = (I - e e^T) / l.
template <class S>
void p2pPartials(const V3T<S>& e1, const V3T<S>& vRel, S len, S T, S dTdl, S dTdr, MarkerPartialsOf<S>& o) {
  using namespace lanes;
  M3T<S> Pe;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) Pe.m[r][c] = ((r == c ? splat<S>(1.0) : S{}) - at(e1, r) * at(e1, c)) / len;
  const V3T<S> g = dTdl * e1 + dTdr * transposedTimes(Pe, vRel);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      o.FpI.m[r][c] = -at(e1, r) * at(g, c) - T * Pe.m[r][c];
      o.FvI.m[r][c] = -dTdr * at(e1, r) * at(e1, c);
    }
  o.FthJ = o.FwJ = o.TthI = o.TthJ = o.TwI = M3T<S>{};
}

/// The partials w.r.t. the bodies' (p, theta, v, w_B) (ElementWrench::FthA .. TwB; Fp, Fv are the
/// marker's), with the marker maps dp = dp_B - [rho]x dtheta, dv = dv_B - [w x rho]x dtheta -
/// [rho]x R dw_B, dw = -[w]x dtheta + R dw_B (docs/method.md) as cross products.
template <class S>
struct BodyPartialsOf {
  M3T<S> FthA, FwA, TthA, TwA, FthB, FwB, TthB, TwB;
};

template <class S>
BodyPartialsOf<S> bodyPartials(const MarkerPartialsOf<S>& m, const SidesOf<S>& s) {
  using namespace lanes;
  // Each member initialized from its expression (no temporary copied into it).
  return {-timesSkew(m.FpI, s.rhoI) - timesSkew(m.FvI, cross(s.wI, s.rhoI)),                       // FthA
          -timesSkew(m.FvI, s.rhoI) * s.Ra,                                                          // FwA
          m.TthI - timesSkew(m.TwI, s.wI),                                                           // TthA
          m.TwI * s.Ra,                                                                              // TwA
          timesSkew(m.FpI, s.rhoJ) + timesSkew(m.FvI, cross(s.wJ, s.rhoJ)) + m.FthJ - timesSkew(m.FwJ, s.wJ),  // FthB
          (timesSkew(m.FvI, s.rhoJ) + m.FwJ) * s.Rb,                                                 // FwB
          m.TthJ + timesSkew(m.TwI, s.wJ),                                                           // TthB
          -m.TwI * s.Rb};                                                                            // TwB
}

/// The blocks of the rows the partials are added to: the A half about a's centre (lever arm
/// rho_I, which turns with body a), the B half, the reaction at p_I, about b's centre (lever arm
/// q = p_I - p_b, which moves with p_a and p_b and turns with body a). For each RowBlock h with
/// need[h]: put(h, velocity, tl, tr, bl, br) with the 6x6 block [[tl, tr], [bl, br]], the
/// position partials (velocity false) first.
template <class S, class Put>
void rowBlocks(const MarkerPartialsOf<S>& m, const BodyPartialsOf<S>& b, const V3T<S>& F, const SidesOf<S>& s,
               const bool (&need)[4], Put&& put) {
  using namespace lanes;
  const V3T<S>& rho = s.rhoI;
  const M3T<S>&FpI = m.FpI, &FvI = m.FvI;
  const M3T<S> sF = skew(F), turnA = skewSkew(F, rho);
  const M3T<S> nFp = -FpI, nFv = -FvI, qFp = skewTimes(s.q, FpI);
  if (need[kBlockAA]) {
    put(kBlockAA, false, FpI, b.FthA, skewTimes(rho, FpI), b.TthA + skewTimes(rho, b.FthA) + turnA);
    put(kBlockAA, true, FvI, b.FwA, skewTimes(rho, FvI), b.TwA + skewTimes(rho, b.FwA));
  }
  if (need[kBlockBA]) {
    put(kBlockBA, false, nFp, -b.FthA, sF - qFp, -(b.TthA + skewTimes(s.q, b.FthA)) - turnA);
    put(kBlockBA, true, nFv, -b.FwA, -skewTimes(s.q, FvI), -(b.TwA + skewTimes(s.q, b.FwA)));
  }
  if (need[kBlockAB]) {
    put(kBlockAB, false, nFp, b.FthB, -skewTimes(rho, FpI), b.TthB + skewTimes(rho, b.FthB));
    put(kBlockAB, true, nFv, b.FwB, -skewTimes(rho, FvI), b.TwB + skewTimes(rho, b.FwB));
  }
  if (need[kBlockBB]) {
    put(kBlockBB, false, FpI, -b.FthB, qFp - sF, -(b.TthB + skewTimes(s.q, b.FthB)));
    put(kBlockBB, true, FvI, -b.FwB, skewTimes(s.q, FvI), -(b.TwB + skewTimes(s.q, b.FwB)));
  }
}

/// Lane l's side partials into w.
template <class S>
void storeSidePartials(const MarkerPartialsOf<S>& m, const BodyPartialsOf<S>& b, int l, ElementWrench& w) {
  w.Fp = laneMat(m.FpI, l), w.Fv = laneMat(m.FvI, l);
  w.FthA = laneMat(b.FthA, l), w.FwA = laneMat(b.FwA, l), w.FthB = laneMat(b.FthB, l), w.FwB = laneMat(b.FwB, l);
  w.TthA = laneMat(b.TthA, l), w.TwA = laneMat(b.TwA, l), w.TthB = laneMat(b.TthB, l), w.TwB = laneMat(b.TwB, l);
}

/// A bushing's results of lane l into its BushingResult: deflection, rate, force, wrench.
template <class S>
void storeBushingValues(const BushingGeometry<S>& g, const DirectionLaws<S>& law, const V3T<S>& F,
                        const V3T<S>& tau, int l, BushingResult& out) {
  out.deflection << laneOf(g.d.x, l), laneOf(g.d.y, l), laneOf(g.d.z, l), laneOf(g.a.z, l), laneOf(g.a.y, l),
      laneOf(g.a.x, l);
  out.rate << laneOf(g.dRate.x, l), laneOf(g.dRate.y, l), laneOf(g.dRate.z, l), laneOf(g.aRate.z, l),
      laneOf(g.aRate.y, l), laneOf(g.aRate.x, l);
  out.force << laneOf(law.ft.x, l), laneOf(law.ft.y, l), laneOf(law.ft.z, l), laneOf(law.fa.z, l),
      laneOf(law.fa.y, l), laneOf(law.fa.x, l);
  out.wrench.F = laneVec(F, l);
  out.wrench.tau = laneVec(tau, l);
}

/// Throws when lane l of a bushing's relative rotation is at the Cardan singularity.
template <class S>
void checkCardan(const SuspensionModel& model, int e, const BushingGeometry<S>& g, int l) {
  if (std::abs(laneOf(g.t.cth, l)) >= 1e-6) return;
  const ModelBushing& b = model.bushings[e];
  throw SimulationError(describeElement(model, "bushing", b.id, b.name, b.i, b.j) +
                        ": relative rotation reached the Cardan singularity (ry = +-90 deg)");
}

/// What a P2P element's law gives (the same function for both instantiations: its curves are
/// evaluated element by element anyway).
struct P2PLaw {
  Vec3 e, vRel;
  double length, rate, tension, dTdl, dTdr;
};

/// Tension T = preload + S(l - l0) + D(l_dot) - bump + rebound along e = d_W / |d_W|.
P2PLaw p2pLaw(const SuspensionModel& model, const Workspace& ws, int e) {
  const ModelP2P& p = model.p2ps[e];
  const MarkerKinematics& mi = ws.markers[p.i.value];
  const MarkerKinematics& mj = ws.markers[p.j.value];
  const Vec3 dW = mi.p - mj.p;
  P2PLaw o;
  o.length = dW.norm();
  if (!std::isfinite(o.length))
    throw SimulationError(describeElement(model, "p2p element", p.id, p.name, p.i, p.j) +
                          ": the markers' positions are not finite");
  if (!(o.length > 1e-9))
    throw SimulationError(describeElement(model, "p2p element", p.id, p.name, p.i, p.j) +
                          ": the markers coincide, the line of action is undefined");
  o.e = dW / o.length;
  o.vRel = mi.v - mj.v;
  o.rate = o.e.dot(o.vRel);
  const double ext = o.length - p.freeLength;
  const CurveValue sv = p.spring.eval(ext);
  const CurveValue cv = p.damper.eval(o.rate);
  o.tension = p.preload + sv.y + cv.y;
  o.dTdl = sv.dydx;
  o.dTdr = cv.dydx;
  if (p.bump.active) {
    const double x = -ext - p.bump.clearance;  // penetration in compression
    if (x > 0.0) {
      const CurveValue f = p.bump.law.eval(x);
      o.tension -= f.y;
      o.dTdl += f.dydx;
    }
  }
  if (p.rebound.active) {
    const double x = ext - p.rebound.clearance;  // penetration in extension
    if (x > 0.0) {
      const CurveValue f = p.rebound.law.eval(x);
      o.tension += f.y;
      o.dTdl += f.dydx;
    }
  }
  return o;
}

void storeP2PValues(const P2PLaw& law, P2PResult& out) {
  out.length = law.length;
  out.rate = law.rate;
  out.tension = law.tension;
  out.wrench.F = -law.tension * law.e;
  out.wrench.tau.setZero();
}

/// The branch couplings of lane l's viscoelastic directions (bushing e).
template <class S>
void storeBranchCouplings(const SuspensionModel& model, const Workspace& ws, int e, const BushingGeometry<S>& g,
                          const M3T<S>& Ga, const M3T<S>& DwGa, const double (&scale)[6],
                          const double (&scaleSlope)[6], int l, std::vector<BranchCoupling>& out) {
  const ModelBushing& b = model.bushings[e];
  const MarkerKinematics& mi = ws.markers[b.i.value];
  const MarkerKinematics& mj = ws.markers[b.j.value];
  for (int k = 0; k < 6; ++k)
    if (b.branchDirection[k] >= 0)
      branchCoupling(k, mi, ws.bodies[mi.body], mj, ws.bodies[mj.body], laneVec(g.u, l), laneVec(g.wRel, l),
                     laneMat(g.Ti, l), laneMat(Ga, l), laneMat(DwGa, l), scale[k], scaleSlope[k],
                     out[b.branchDirection[k]]);
}

// ---------------------------------------------------------------------------------------------
// S = double: one element, the reference.

MarkerOf<double> scalarMarker(const MarkerKinematics& m) {
  return {scalarOf(m.p), scalarOf(m.v), scalarOf(m.w), scalarOf(m.rho), scalarOf(m.R)};
}

SidesOf<double> scalarSides(const Workspace& ws, MarkerIndex i, MarkerIndex j) {
  const MarkerKinematics& mi = ws.markers[i.value];
  const MarkerKinematics& mj = ws.markers[j.value];
  const BodyKinematics &a = ws.bodies[mi.body], &b = ws.bodies[mj.body];
  return {scalarOf(a.R), scalarOf(b.R), scalarOf(mi.rho), scalarOf(mj.rho),
          scalarOf(mi.w), scalarOf(mj.w), scalarOf(Vec3(mi.p - b.p))};
}

/// Side partials and the row blocks of every moving side (RowBlocks::InElements) into w.
void storeScalarPartials(const MarkerPartialsOf<double>& m, const V3T<double>& F, const SidesOf<double>& s,
                         bool movesI, bool movesJ, bool torque, ElementWrench& w) {
  const BodyPartialsOf<double> b = bodyPartials(m, s);
  storeSidePartials(m, b, 0, w);
  w.torque = torque;
  ElementWrench::Slot* const own[4] = {&w.aa, &w.ba, &w.ab, &w.bb};
  const bool need[4] = {movesI, movesI, movesJ, movesJ};
  rowBlocks(m, b, F, s, need,
            [&](RowBlock h, bool velocity, const M3T<double>& tl, const M3T<double>& tr,
                const M3T<double>& bl, const M3T<double>& br) {
              Mat6& M = velocity ? own[h]->v : own[h]->r;
              M << laneMat(tl, 0), laneMat(tr, 0), laneMat(bl, 0), laneMat(br, 0);
            });
}

// ---------------------------------------------------------------------------------------------
// S = Pack: kLanes elements at once, gathered from and scattered to the elements' storage.

/// The 6x6 block [[tl, tr], [bl, br]] of every lane (column-major) written to dst[l], or added to it.
template <bool Add>
void putBlock(const M3& tl, const M3& tr, const M3& bl, const M3& br, double* const (&dst)[kLanes]) {
  const Pack* e[36];
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) {
      e[6 * c + r] = &tl.m[r][c];
      e[6 * c + 3 + r] = &bl.m[r][c];
      e[18 + 6 * c + r] = &tr.m[r][c];
      e[18 + 6 * c + 3 + r] = &br.m[r][c];
    }
  lanes::putLanes<Add>(e, dst);
}

// MarkerKinematics holds p, v, w, R, rho and BodyKinematics p, angles, v, w_B, R as consecutive
// doubles (Eigen's fixed 3-vectors and 3x3 matrices are plain arrays): they are read as vectors.
static_assert(sizeof(Vec3) == 3 * sizeof(double) && alignof(Vec3) == alignof(double) &&
              sizeof(Mat3) == 9 * sizeof(double) && alignof(Mat3) == alignof(double));

MarkerOf<Pack> gatherMarkers(const Workspace& ws, const MarkerIndex (&m)[kLanes]) {
  const double* src[kLanes];
  for (int l = 0; l < kLanes; ++l) src[l] = ws.markers[m[l].value].p.data();
  Pack e[20];  // p, v, w, R (column-major), rho.x, rho.y
  lanes::loadLanes(src, e);
  MarkerOf<Pack> o;
  o.p = {e[0], e[1], e[2]}, o.v = {e[3], e[4], e[5]}, o.w = {e[6], e[7], e[8]};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) o.R.m[r][c] = e[9 + 3 * c + r];
  o.rho.x = e[18], o.rho.y = e[19];
  for (int l = 0; l < kLanes; ++l) o.rho.z[l] = ws.markers[m[l].value].rho.z();
  return o;
}

/// p and R of the bodies of kLanes markers, in lanes.
void gatherBodies(const Workspace& ws, const MarkerIndex (&m)[kLanes], V3& p, M3& R) {
  const double* src[kLanes];
  for (int l = 0; l < kLanes; ++l) src[l] = ws.bodies[ws.markers[m[l].value].body].p.data();
  Pack e[20];  // p, angles, v, w_B, R (column-major, without R(2, 2))
  lanes::loadLanes(src, e);
  p = {e[0], e[1], e[2]};
  for (int k = 0; k < 8; ++k) R.m[k % 3][k / 3] = e[12 + k];
  for (int l = 0; l < kLanes; ++l) R.m[2][2][l] = ws.bodies[ws.markers[m[l].value].body].R(2, 2);
}

static_assert(kElementBatch == kLanes, "a batch is one kernel's lanes");

/// Where a batch's row blocks go: lane l's (r: position, v: velocity partials) and whether some
/// lane has them. Stored to the elements (RowBlocks::InElements): every lane's blocks of a moving
/// side (a free lane repeats lane n - 1). Added to the rows (RowBlocks::AddToRows): a lane's
/// blocks whose row and column bodies are free, the others (a fixed or driven side, a free lane)
/// to `scratch`, which nothing reads (no branch per lane; one per lane and kind, so that the
/// lanes' additions to it do not wait for each other). And which lanes keep their side partials
/// (ElementWrench::Fp .. TwB).
struct Destinations {
  bool keep[kLanes];
  double* r[4][kLanes];
  double* v[4][kLanes];
  bool any[4] = {false, false, false, false};
  alignas(64) double scratch[2][kLanes][36];
};

/// The sides of a batch into s and where its blocks go into d.
void gatherSides(Workspace& ws, const MarkerIndex (&i)[kLanes], const MarkerIndex (&j)[kLanes],
                 const MarkerOf<Pack>& I, const MarkerOf<Pack>& J, ElementWrench* const (&out)[kLanes],
                 const BlockSlots* const (&slots)[kLanes], int n, const ElementPass& pass, SidesOf<Pack>& s,
                 Destinations& d) {
  V3 pa, pb;
  gatherBodies(ws, i, pa, s.Ra);
  gatherBodies(ws, j, pb, s.Rb);
  s.rhoI = I.rho, s.rhoJ = J.rho, s.wI = I.w, s.wJ = J.w;
  s.q = I.p - pb;
  const bool add = pass.blocks == RowBlocks::AddToRows;
  for (int l = 0; l < kLanes; ++l) {
    const MarkerKinematics& mi = ws.markers[i[l].value];
    const MarkerKinematics& mj = ws.markers[j[l].value];
    d.keep[l] = pass.allSidePartials || (mi.moves && mi.state < 0) || (mj.moves && mj.state < 0);
    const bool a = l < n && mi.state >= 0, b = l < n && mj.state >= 0;
    // By RowBlock: aa, ba, ab, bb.
    const bool has[4] = {a, a && b, a && b, b};  // in the rows: the row and column bodies are free
    const bool moves[4] = {mi.moves, mi.moves, mj.moves, mj.moves};  // the column body moves
    const int slot[4] = {slots[l]->aa, slots[l]->ba, slots[l]->ab, slots[l]->bb};
    ElementWrench::Slot* const own[4] = {&out[l]->aa, &out[l]->ba, &out[l]->ab, &out[l]->bb};
    for (int h = 0; h < 4; ++h) {
      if (add) {
        d.any[h] = d.any[h] || has[h];
        d.r[h][l] = has[h] ? ws.Jw_r[slot[h]].data() : d.scratch[0][l];
        d.v[h][l] = has[h] ? ws.Jw_v[slot[h]].data() : d.scratch[1][l];
      } else {
        d.any[h] = d.any[h] || moves[h];
        d.r[h][l] = own[h]->r.data();
        d.v[h][l] = own[h]->v.data();
      }
    }
  }
}

/// The batch's partials to the bodies and rows: blocks stored to the elements or added to the
/// rows (Add: RowBlocks::AddToRows; lanes l < n, the free lanes repeat lane n - 1), side partials
/// kept where asked.
template <bool Add>
void putPartials(const MarkerPartialsOf<Pack>& m, bool torque, const V3& F, const SidesOf<Pack>& s,
                 const Destinations& d, ElementWrench* const (&out)[kLanes], int n) {
  const BodyPartialsOf<Pack> b = bodyPartials(m, s);
  rowBlocks(m, b, F, s, d.any, [&](RowBlock h, bool velocity, const M3& tl, const M3& tr, const M3& bl, const M3& br) {
    putBlock<Add>(tl, tr, bl, br, velocity ? d.v[h] : d.r[h]);
  });
  for (int l = 0; l < n; ++l) {
    out[l]->torque = torque;
    if (d.keep[l]) storeSidePartials(m, b, l, *out[l]);
  }
}

/// Up to kLanes bushings at once: list[0..n), 1 <= n <= kLanes; the free lanes repeat the last
/// element and are not stored. Lane by lane the arithmetic is that of calcBushingScalar(), so an
/// element's results do not depend on the batch it is in: the serial loop and the parallel step,
/// which batch the elements differently, agree bit for bit. Never inlined (one machine code).
[[gnu::noinline]] void bushingLanes(const SuspensionModel& model, Workspace& ws, const int* list, int n,
                                    const ElementPass& pass) {
  int e[kLanes];
  for (int l = 0; l < kLanes; ++l) e[l] = list[l < n ? l : n - 1];
  MarkerIndex mI[kLanes], mJ[kLanes];
  ElementWrench* out[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    mI[l] = model.bushings[e[l]].i, mJ[l] = model.bushings[e[l]].j;
    out[l] = &ws.bushings[e[l]].wrench;
  }
  const MarkerOf<Pack> I = gatherMarkers(ws, mI), J = gatherMarkers(ws, mJ);
  const BushingGeometry<Pack> g = bushingGeometry(I, J);
  for (int l = 0; l < kLanes; ++l) checkCardan(model, e[l], g, l);
  // Constant coefficients for all lanes at once; the lanes of bushings with a curve or Maxwell
  // branches again lane by lane. Either way a lane's numbers depend on its own bushing only.
  Pack coefficients[20];
  {
    const double* src[kLanes];
    for (int l = 0; l < kLanes; ++l) src[l] = model.bushings[e[l]].coefficients.data();
    lanes::loadLanes(src, coefficients);
  }
  DirectionLaws<Pack> law = constantLaws(coefficients, g);
  double scale[kLanes][6], scaleSlope[kLanes][6];
  for (int l = 0; l < kLanes; ++l)
    if (model.bushings[e[l]].nonlinear)
      curveLaws(model, model.bushings[e[l]], ws.z, pass.branchStageGain, g, l, law, scale[l], scaleSlope[l]);
  const V3 F = J.R * law.ft;
  const V3 tau = I.R * transposedTimes(g.Ti, law.fa);  // tau = R_I T^-T f_a
  for (int l = 0; l < n; ++l) storeBushingValues(g, law, F, tau, l, ws.bushings[e[l]]);
  if (!pass.partials) return;

  const M3 Ga = angleMap(g, I.R), DwGa = angleMapRate(g, Ga);
  const MarkerPartialsOf<Pack> m = bushingPartials(I, J, g, law, F, tau, Ga, DwGa);
  const BlockSlots* slots[kLanes];
  for (int l = 0; l < kLanes; ++l) slots[l] = &model.bushings[e[l]].blocks;
  SidesOf<Pack> sides;
  Destinations d;
  gatherSides(ws, mI, mJ, I, J, out, slots, n, pass, sides, d);
  if (pass.blocks == RowBlocks::AddToRows) putPartials<true>(m, true, F, sides, d, out, n);
  else putPartials<false>(m, true, F, sides, d, out, n);
  for (int l = 0; l < n; ++l)
    storeBranchCouplings(model, ws, e[l], g, Ga, DwGa, scale[l], scaleSlope[l], l, ws.branches);
}

/// Up to kLanes P2P elements at once, as bushingLanes() does for bushings.
[[gnu::noinline]] void p2pLanes(const SuspensionModel& model, Workspace& ws, const int* list, int n,
                                const ElementPass& pass) {
  int e[kLanes];
  for (int l = 0; l < kLanes; ++l) e[l] = list[l < n ? l : n - 1];
  V3 e1, vRel, F;
  Pack len, T, dTdl, dTdr;
  for (int l = 0; l < kLanes; ++l) {
    const P2PLaw law = p2pLaw(model, ws, e[l]);
    setLaneVec(e1, l, law.e), setLaneVec(vRel, l, law.vRel), setLaneVec(F, l, -law.tension * law.e);
    len[l] = law.length, T[l] = law.tension, dTdl[l] = law.dTdl, dTdr[l] = law.dTdr;
    if (l < n) storeP2PValues(law, ws.p2ps[e[l]]);
  }
  if (!pass.partials) return;

  MarkerPartialsOf<Pack> m;
  p2pPartials(e1, vRel, len, T, dTdl, dTdr, m);
  MarkerIndex mI[kLanes], mJ[kLanes];
  ElementWrench* out[kLanes];
  const BlockSlots* slots[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    mI[l] = model.p2ps[e[l]].i, mJ[l] = model.p2ps[e[l]].j;
    out[l] = &ws.p2ps[e[l]].wrench;
    slots[l] = &model.p2ps[e[l]].blocks;
  }
  SidesOf<Pack> sides;
  Destinations d;
  gatherSides(ws, mI, mJ, gatherMarkers(ws, mI), gatherMarkers(ws, mJ), out, slots, n, pass, sides, d);
  if (pass.blocks == RowBlocks::AddToRows) putPartials<true>(m, false, F, sides, d, out, n);
  else putPartials<false>(m, false, F, sides, d, out, n);
}

/// Elements list[0..n) in batches of kLanes.
template <class Kernel>
void batches(Kernel kernel, const SuspensionModel& model, Workspace& ws, const int* list, int n,
             const ElementPass& pass) {
  for (int k = 0; k < n; k += kLanes) kernel(model, ws, list + k, std::min(kLanes, n - k), pass);
}

}  // namespace

std::vector<int> batchOrder(const SuspensionModel& model, std::vector<int> elements, bool bushings) {
  auto moves = [&](MarkerIndex m) {
    const ModelBody& b = model.bodies[model.markers[m.value].body.value];
    return b.state >= 0 || b.driven();
  };
  auto key = [&](int e) {
    const MarkerIndex i = bushings ? model.bushings[e].i : model.p2ps[e].i;
    const MarkerIndex j = bushings ? model.bushings[e].j : model.p2ps[e].j;
    return 2 * !moves(i) + !moves(j);
  };
  // By key, then by index (std::sort with a total order: no temporary buffer, unlike stable_sort).
  std::sort(elements.begin(), elements.end(), [&](int x, int y) { return key(x) != key(y) ? key(x) < key(y) : x < y; });
  return elements;
}

void calcBushingList(const SuspensionModel& model, Workspace& ws, const std::vector<int>& list, const ElementPass& pass) {
  batches(bushingLanes, model, ws, list.data(), static_cast<int>(list.size()), pass);
}

void calcP2PList(const SuspensionModel& model, Workspace& ws, const std::vector<int>& list, const ElementPass& pass) {
  batches(p2pLanes, model, ws, list.data(), static_cast<int>(list.size()), pass);
}

void calcBushings(const SuspensionModel& model, Workspace& ws, const ElementPass& pass) {
  calcBushingList(model, ws, ws.bushingOrder, pass);
}

void calcP2Ps(const SuspensionModel& model, Workspace& ws, const ElementPass& pass) {
  calcP2PList(model, ws, ws.p2pOrder, pass);
}

void calcSteeringRacks(const SuspensionModel& model, Workspace& ws, bool partials) {
  for (std::size_t e = 0; e < model.steeringRacks.size(); ++e) {
    const ModelSteeringRack& r = model.steeringRacks[e];
    const MarkerKinematics& mi = ws.markers[r.i.value];
    const MarkerKinematics& mj = ws.markers[r.j.value];
    const Vec3 z = mj.R.col(2);
    const Vec3 dW = mi.p - mj.p;
    const Vec3 vRel = mi.v - mj.v - mj.w.cross(dW);  // the rack's velocity as the housing sees it
    SteeringRackResult& out = ws.steeringRacks[e];
    out.travel = dW.dot(z) - r.travel0;
    out.rate = vRel.dot(z);
    // The column's stiffness and damping at the rack with the ratio at this angle.
    const ModelSteeringRack::Command cmd = r.command(ws.u[r.input]);
    const double k = r.travelCurve ? r.columnStiffness / (cmd.ratio * cmd.ratio) : r.stiffness;
    const double c = r.travelCurve ? r.columnDamping / (cmd.ratio * cmd.ratio) : r.damping;
    const double g = out.travel - cmd.travel, gRate = out.rate - cmd.ratio * ws.uDot[r.input];
    out.force = -(k * g + c * gRate) + 0.0;  // + 0.0: a rack at rest reads 0, not -0
    out.columnTorque = cmd.ratio * out.force;
    out.columnTwist = -g / cmd.ratio;
    out.wrench.F = out.force * z;
    out.wrench.tau.setZero();
    // By the angle and its rate: k = K_c / S'^2 and c = C_c / S'^2 change with S'' (a variable ratio).
    out.dForce_du = k * cmd.ratio;
    out.dForce_dudot = c * cmd.ratio;
    if (cmd.ratioSlope != 0.0)
      out.dForce_du += c * cmd.ratioSlope * ws.uDot[r.input] - 2.0 * cmd.ratioSlope / cmd.ratio * out.force;
    if (!partials) continue;
    // A bushing's z direction alone (bushingPartials() with K = k z z^T, C = c z z^T, no torque).
    const Mat3 K = k * z * z.transpose(), C = c * z * z.transpose();
    MarkerPartialsOf<double> m;
    m.FpI = scalarOf(Mat3(C * skew(mj.w) - K));
    m.FvI = scalarOf(Mat3(-C));
    m.FthJ = scalarOf(Mat3(-K * skew(dW) - C * skew(vRel) - skew(out.wrench.F)));
    m.FwJ = scalarOf(Mat3(-C * skew(dW)));
    m.TthI = m.TthJ = m.TwI = M3T<double>{};
    storeScalarPartials(m, scalarOf(out.wrench.F), scalarSides(ws, r.i, r.j), mi.moves, mj.moves, false, out.wrench);
  }
}

void calcBushingScalar(const SuspensionModel& model, Workspace& ws, int e, double branchStageGain) {
  const ModelBushing& b = model.bushings[e];
  const MarkerKinematics& mi = ws.markers[b.i.value];
  const MarkerKinematics& mj = ws.markers[b.j.value];
  const MarkerOf<double> I = scalarMarker(mi), J = scalarMarker(mj);
  const BushingGeometry<double> g = bushingGeometry(I, J);
  checkCardan(model, e, g, 0);
  DirectionLaws<double> law = constantLaws(b.coefficients.data(), g);
  double scale[6], scaleSlope[6];
  if (b.nonlinear) curveLaws(model, b, ws.z, branchStageGain, g, 0, law, scale, scaleSlope);
  const V3T<double> F = J.R * law.ft;
  const V3T<double> tau = I.R * transposedTimes(g.Ti, law.fa);
  BushingResult& out = ws.bushings[e];
  storeBushingValues(g, law, F, tau, 0, out);
  const M3T<double> Ga = angleMap(g, I.R), DwGa = angleMapRate(g, Ga);
  const MarkerPartialsOf<double> m = bushingPartials(I, J, g, law, F, tau, Ga, DwGa);
  storeScalarPartials(m, F, scalarSides(ws, b.i, b.j), mi.moves, mj.moves, true, out.wrench);
  storeBranchCouplings(model, ws, e, g, Ga, DwGa, scale, scaleSlope, 0, ws.branches);
}

void calcP2PScalar(const SuspensionModel& model, Workspace& ws, int e) {
  const ModelP2P& p = model.p2ps[e];
  const P2PLaw law = p2pLaw(model, ws, e);
  P2PResult& out = ws.p2ps[e];
  storeP2PValues(law, out);
  MarkerPartialsOf<double> m;
  p2pPartials(scalarOf(law.e), scalarOf(law.vRel), law.length, law.tension, law.dTdl, law.dTdr, m);
  storeScalarPartials(m, scalarOf(out.wrench.F), scalarSides(ws, p.i, p.j), ws.markers[p.i.value].moves,
                      ws.markers[p.j.value].moves, false, out.wrench);
}

}  // namespace ek
