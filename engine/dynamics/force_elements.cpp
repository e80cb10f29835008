// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/force_elements.h"

#include <algorithm>
#include <cmath>
#include <string>

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
}

}  // namespace

namespace {

using lanes::kLanes;
using lanes::M3;
using lanes::Pack;
using lanes::V3;

void setLane(V3& a, int l, const Vec3& v) { a.x[l] = v.x(), a.y[l] = v.y(), a.z[l] = v.z(); }
Mat3 lane(const M3& a, int l) {
  Mat3 A;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) A(r, c) = a.m[r][c][l];
  return A;
}
Vec3 lane(const V3& a, int l) { return {a.x[l], a.y[l], a.z[l]}; }

/// The 6x6 block [[tl, tr], [bl, br]] of every lane (column-major) written to dst[l], or added to it.
template <bool Add>
void putBlock(const M3& tl, const M3& tr, const M3& bl, const M3& br, double* const (&dst)[kLanes]) {
  Pack e[36];
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) {
      e[6 * c + r] = tl.m[r][c];
      e[6 * c + 3 + r] = bl.m[r][c];
      e[18 + 6 * c + r] = tr.m[r][c];
      e[18 + 6 * c + 3 + r] = br.m[r][c];
    }
  if constexpr (Add) lanes::addLanes(e, dst);
  else lanes::storeLanes(e, dst);
}

// MarkerKinematics holds p, v, w, R, rho and BodyKinematics p, angles, v, w_B, R as consecutive
// doubles (Eigen's fixed 3-vectors and 3x3 matrices are plain arrays): they are read as vectors.
static_assert(sizeof(Vec3) == 3 * sizeof(double) && alignof(Vec3) == alignof(double) &&
              sizeof(Mat3) == 9 * sizeof(double) && alignof(Mat3) == alignof(double));

/// The kinematics of kLanes markers, in lanes.
struct MarkerLanes {
  V3 p, v, w, rho;
  M3 R;
};

MarkerLanes gatherMarkers(const Workspace& ws, const MarkerIndex (&m)[kLanes]) {
  const double* src[kLanes];
  for (int l = 0; l < kLanes; ++l) src[l] = ws.markers[m[l].value].p.data();
  Pack e[20];  // p, v, w, R (column-major), rho.x, rho.y
  lanes::loadLanes(src, e);
  MarkerLanes o;
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

/// The two sides of a batch of elements: their bodies' kinematics, lever arms and outputs.
struct Sides {
  M3 Ra, Rb;            ///< R_WB of the bodies of I (side A) and J (side B)
  V3 rhoI, rhoJ;        ///< the markers' lever arms from their bodies' reference points
  V3 wI, wJ;            ///< the bodies' angular velocities (global)
  V3 q;                 ///< p_I - p_b: where the reaction acts, from J's body
  bool keep[kLanes];    ///< store the lane's side partials (ElementWrench::Fp .. TwB)
  ElementWrench* out[kLanes];
  /// Where lane l's row blocks go (r: position, v: velocity partials) and whether some lane has
  /// them. Stored to the elements (RowBlocks::InElements): every lane's blocks of a moving side
  /// (a free lane repeats lane n - 1). Added to the rows (RowBlocks::AddToRows): a lane's blocks
  /// whose row and column bodies are free, the others (a fixed or driven side, a free lane) to
  /// `scratch`, which nothing reads (no branch per lane).
  double* r[4][kLanes];
  double* v[4][kLanes];
  bool any[4] = {false, false, false, false};
  alignas(32) double scratch[36];
};

/// The sides of a batch into s (which holds the scratch its destinations may point to).
void gatherSides(Workspace& ws, const MarkerIndex (&i)[kLanes], const MarkerIndex (&j)[kLanes], const MarkerLanes& I,
                 const MarkerLanes& J, ElementWrench* const (&out)[kLanes], const BlockSlots* const (&slots)[kLanes],
                 int n, RowBlocks target, Sides& s) {
  V3 pa, pb;
  gatherBodies(ws, i, pa, s.Ra);
  gatherBodies(ws, j, pb, s.Rb);
  s.rhoI = I.rho, s.rhoJ = J.rho, s.wI = I.w, s.wJ = J.w;
  s.q = I.p - pb;
  const bool add = target == RowBlocks::AddToRows;
  for (int l = 0; l < kLanes; ++l) {
    const MarkerKinematics& mi = ws.markers[i[l].value];
    const MarkerKinematics& mj = ws.markers[j[l].value];
    s.keep[l] = ws.keepSidePartials || (mi.moves && mi.state < 0) || (mj.moves && mj.state < 0);
    s.out[l] = out[l];
    const bool a = l < n && mi.state >= 0, b = l < n && mj.state >= 0;
    // By RowBlock: aa, ba, ab, bb.
    const bool has[4] = {a, a && b, a && b, b};  // in the rows: the row and column bodies are free
    const bool moves[4] = {mi.moves, mi.moves, mj.moves, mj.moves};  // the column body moves
    const int slot[4] = {slots[l]->aa, slots[l]->ba, slots[l]->ab, slots[l]->bb};
    ElementWrench::Slot* const own[4] = {&out[l]->aa, &out[l]->ba, &out[l]->ab, &out[l]->bb};
    for (int h = 0; h < 4; ++h) {
      if (add) {
        s.any[h] = s.any[h] || has[h];
        s.r[h][l] = has[h] ? ws.Jw_r[slot[h]].data() : s.scratch;
        s.v[h][l] = has[h] ? ws.Jw_v[slot[h]].data() : s.scratch;
      } else {
        s.any[h] = s.any[h] || moves[h];
        s.r[h][l] = own[h]->r.data();
        s.v[h][l] = own[h]->v.data();
      }
    }
  }
}

/// Marker-level partials of kLanes elements => the partials w.r.t. the bodies' (p, theta, v, w_B)
/// and, from them, the blocks of the rows they are added to, stored to the elements or added to
/// the rows (Add: RowBlocks::AddToRows; lanes l < n, the free lanes repeat lane n - 1). Marker level: F w.r.t.
/// p_I (FpI; p_J: -FpI), v_I (FvI; v_J:
/// -FvI), theta_J, w_J (FthJ, FwJ); tau w.r.t. theta_I, theta_J, w_I (TthI, TthJ, TwI; w_J: -TwI).
/// The bodies' blocks follow with the marker maps dp = dp_B - [rho]x dtheta,
/// dv = dv_B - [w x rho]x dtheta - [rho]x R dw_B, dw = -[w]x dtheta + R dw_B (docs/method.md) as
/// cross products. The rows: the A half about a's centre (lever arm rho_I, which turns with body
/// a), the B half, the reaction at p_I, about b's centre (lever arm q = p_I - p_b, which moves with
/// p_a and p_b and turns with body a).
template <bool Add>
void storePartials(const M3& FpI, const M3& FvI, const M3& FthJ, const M3& FwJ, const M3& TthI, const M3& TthJ,
                   const M3& TwI, bool torque, const V3& F, const Sides& s, int n) {
  using namespace lanes;
  const M3 FthA = -timesSkew(FpI, s.rhoI) - timesSkew(FvI, cross(s.wI, s.rhoI));
  const M3 FwA = -timesSkew(FvI, s.rhoI) * s.Ra;
  const M3 TthA = TthI - timesSkew(TwI, s.wI);
  const M3 TwA = TwI * s.Ra;
  const M3 FthB = timesSkew(FpI, s.rhoJ) + timesSkew(FvI, cross(s.wJ, s.rhoJ)) + FthJ - timesSkew(FwJ, s.wJ);
  const M3 FwB = (timesSkew(FvI, s.rhoJ) + FwJ) * s.Rb;
  const M3 TthB = TthJ + timesSkew(TwI, s.wJ);
  const M3 TwB = -TwI * s.Rb;

  const V3& rho = s.rhoI;
  const M3 sF = skew(F), turnA = skewSkew(F, rho);
  const M3 nFp = -FpI, nFv = -FvI, qFp = skewTimes(s.q, FpI);
  if (s.any[kBlockAA]) {
    putBlock<Add>(FpI, FthA, skewTimes(rho, FpI), TthA + skewTimes(rho, FthA) + turnA, s.r[kBlockAA]);
    putBlock<Add>(FvI, FwA, skewTimes(rho, FvI), TwA + skewTimes(rho, FwA), s.v[kBlockAA]);
  }
  if (s.any[kBlockBA]) {
    putBlock<Add>(nFp, -FthA, sF - qFp, -(TthA + skewTimes(s.q, FthA)) - turnA, s.r[kBlockBA]);
    putBlock<Add>(nFv, -FwA, -skewTimes(s.q, FvI), -(TwA + skewTimes(s.q, FwA)), s.v[kBlockBA]);
  }
  if (s.any[kBlockAB]) {
    putBlock<Add>(nFp, FthB, -skewTimes(rho, FpI), TthB + skewTimes(rho, FthB), s.r[kBlockAB]);
    putBlock<Add>(nFv, FwB, -skewTimes(rho, FvI), TwB + skewTimes(rho, FwB), s.v[kBlockAB]);
  }
  if (s.any[kBlockBB]) {
    putBlock<Add>(FpI, -FthB, qFp - sF, -(TthB + skewTimes(s.q, FthB)), s.r[kBlockBB]);
    putBlock<Add>(FvI, -FwB, skewTimes(s.q, FvI), -(TwB + skewTimes(s.q, FwB)), s.v[kBlockBB]);
  }
  for (int l = 0; l < n; ++l) {
    ElementWrench& w = *s.out[l];
    w.torque = torque;
    if (!s.keep[l]) continue;
    w.Fp = lane(FpI, l), w.Fv = lane(FvI, l);
    w.FthA = lane(FthA, l), w.FwA = lane(FwA, l), w.FthB = lane(FthB, l), w.FwB = lane(FwB, l);
    w.TthA = lane(TthA, l), w.TwA = lane(TwA, l), w.TthB = lane(TthB, l), w.TwB = lane(TwB, l);
  }
}

/// Up to kLanes bushings at once: list[0..n), 1 <= n <= kLanes; the free lanes repeat the last
/// element and are not stored. Lane by lane the arithmetic is that of one bushing (lanes.h), so
/// an element's results do not depend on the batch it is in: the serial loop and the parallel
/// step, which batch the elements differently, agree bit for bit. Never inlined (one machine code).
///
/// Stages: the marker kinematics gathered into lanes; the relative rotation and the rates; per
/// lane, the Cardan angles (atan2) and the direction laws (curves, Maxwell branches); the wrench;
/// the partials (docs/method.md), block by non-zero block:
///   delta d     = RJ^T (dpI - dpJ) + RJ^T [dW]x dthJ
///   delta d_dot = RJ^T (dvI - dvJ - [wJ]x (dpI - dpJ) + [dW]x dwJ) + RJ^T [u]x dthJ
///   delta a     = Ga (dthI - dthJ)
///   delta a_dot = (Dw Ga + Ga [wRel]x) dthI - Dw Ga dthJ + Ga (dwI - dwJ)
/// with K = RJ diag(kt) RJ^T and C = RJ diag(ct) RJ^T (stiffness and damping in world axes), then
/// through both markers' maps to the bodies' (p, theta, v, w_B) and to the rows (storePartials()).
[[gnu::noinline]] void bushingLanes(const SuspensionModel& model, Workspace& ws, const int* list, int n, bool partials,
                                    RowBlocks target) {
  using namespace lanes;
  int e[kLanes];
  for (int l = 0; l < kLanes; ++l) e[l] = list[l < n ? l : n - 1];

  MarkerIndex mI[kLanes], mJ[kLanes];
  ElementWrench* out[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    mI[l] = model.bushings[e[l]].i, mJ[l] = model.bushings[e[l]].j;
    out[l] = &ws.bushings[e[l]].wrench;
  }
  const MarkerLanes I = gatherMarkers(ws, mI), J = gatherMarkers(ws, mJ);
  const M3& RI = I.R;
  const M3& RJ = J.R;
  const V3 &pI = I.p, &pJ = J.p, &vI = I.v, &vJ = J.v, &wI = I.w, &wJ = J.w;
  const V3 dW = pI - pJ;
  const V3 d = transposedTimes(RJ, dW);
  const M3 Rrel = transposedTimes(RJ, RI);  // R_JI
  const V3 u = vI - vJ - cross(wJ, dW);
  const V3 dRate = transposedTimes(RJ, u);
  const V3 wRel = wI - wJ;
  const V3 z = transposedTimes(RI, wRel);

  // Cardan angles a = (psi, theta, phi) of R_JI and their sines and cosines from its entries
  // (rotation::trigOfMatrix(), in lanes).
  const M3& Q = Rrel;
  const Pack c = lanes::sqrt(Q.m[2][1] * Q.m[2][1] + Q.m[2][2] * Q.m[2][2]);  // cos(theta) >= 0
  const V3 a = {lanes::atan2(Q.m[1][0], Q.m[0][0]), lanes::atan2(-Q.m[2][0], c), lanes::atan2(Q.m[2][1], Q.m[2][2])};
  const Pack nth = lanes::sqrt(Q.m[2][0] * Q.m[2][0] + c * c);  // 1 to round-off
  const Pack sth = -Q.m[2][0] / nth, cth = c / nth;
  const auto tilted = c > 0.0;
  const Pack sph = tilted ? Q.m[2][1] / c : Pack{}, cph = tilted ? Q.m[2][2] / c : splat(1.0);
  for (int l = 0; l < kLanes; ++l)
    if (std::abs(cth[l]) < 1e-6) {
      const ModelBushing& b = model.bushings[e[l]];
      throw SimulationError(describeElement(model, "bushing", b.id, b.name, b.i, b.j) +
                            ": relative rotation reached the Cardan singularity (ry = +-90 deg)");
    }
  const Pack ic = splat(1.0) / cth, tth = sth * ic;
  M3 Ti;  // rotation::bodyToRate()
  Ti.m[0][0] = Pack{}, Ti.m[0][1] = sph * ic, Ti.m[0][2] = cph * ic;
  Ti.m[1][0] = Pack{}, Ti.m[1][1] = cph, Ti.m[1][2] = -sph;
  Ti.m[2][0] = splat(1.0), Ti.m[2][1] = sph * tth, Ti.m[2][2] = cph * tth;
  const V3 aRate = Ti * z;

  // Direction laws: force on I = preload - S(x) - D(x_dot); slopes for the Jacobian. Constant
  // coefficients for all lanes at once; the lanes of bushings with a curve or Maxwell branches
  // again lane by lane. Either way a lane's numbers depend on its own bushing only.
  Pack law[20];
  {
    const double* src[kLanes];
    for (int l = 0; l < kLanes; ++l) src[l] = model.bushings[e[l]].coefficients.data();
    lanes::loadLanes(src, law);
  }
  auto times = [](const V3& x, const V3& y) { return V3{x.x * y.x, x.y * y.y, x.z * y.z}; };
  V3 kt = {law[0], law[1], law[2]}, ka = {law[3], law[4], law[5]};
  V3 ct = {law[6], law[7], law[8]}, ca = {law[9], law[10], law[11]};
  V3 ft = V3{law[12], law[13], law[14]} - times(kt, d) - times(ct, dRate);
  V3 fa = V3{law[15], law[16], law[17]} - times(ka, a) - times(ca, aRate);
  double scale[kLanes][6], scaleSlope[kLanes][6];
  for (int l = 0; l < kLanes; ++l) {
    const ModelBushing& b = model.bushings[e[l]];
    if (!b.nonlinear) continue;
    const Vec3 dl = lane(d, l), dRl = lane(dRate, l), al = lane(a, l), aRl = lane(aRate, l);
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
    // Maxwell branches: force on I minus sum_i k_i s z_i, s = S'(x) / S'(0) when scaled by the
    // static slope (else 1), whose change with x adds s' sum_i k_i z_i to the stiffness slope.
    // Their elimination from a stage matrix acts on the Jacobian as a damper of
    // c_eff = sum_i k_i s g / (1 + g l_i s) and a stiffness change of
    // -sum_i k_i s g l_i s' z_i / (1 + g l_i s), l_i = k_i / c_i (docs/method.md).
    for (int k = 0; k < 6; ++k) {
      const int bd = b.branchDirection[k];
      if (bd < 0) continue;
      const ModelBranchDirection& dir = model.branchDirections[bd];
      const int ai = k < 3 ? k : angleIndex(k);
      double& slope = k < 3 ? ktl[k] : kal[ai];
      const double x = k < 3 ? dl[k] : al[ai];
      scale[l][k] = dir.scaled ? slope / dir.slope0 : 1.0;
      scaleSlope[l][k] = dir.scaled ? b.stiffness[k].secondDerivative(x) / dir.slope0 : 0.0;
      const double sc = scale[l][k], sp = scaleSlope[l][k];
      double force = 0.0, cEff = 0.0, kz = 0.0, sEff = 0.0;
      const double g = ws.branchStageGain;
      for (std::size_t i = 0; i < dir.branches.size(); ++i) {
        const MaxwellBranch& br = dir.branches[i];
        const double zi = ws.z[dir.first + static_cast<int>(i)];
        force += br.k * sc * zi;
        kz += br.k * zi;
        if (g > 0.0) {
          const double denominator = 1.0 + g * br.lambda() * sc;
          cEff += br.k * sc * g / denominator;
          sEff += br.k * sc * g * br.lambda() * sp * zi / denominator;
        }
      }
      slope += sp * kz - sEff;
      (k < 3 ? ftl[k] : fal[ai]) -= force;
      (k < 3 ? ctl[k] : cal[ai]) += cEff;
    }
    setLane(ft, l, ftl), setLane(fa, l, fal), setLane(kt, l, ktl), setLane(ct, l, ctl);
    setLane(ka, l, kal), setLane(ca, l, cal);
  }
  for (int l = 0; l < n; ++l) {
    BushingResult& out = ws.bushings[e[l]];
    out.deflection << d.x[l], d.y[l], d.z[l], a.z[l], a.y[l], a.x[l];
    out.rate << dRate.x[l], dRate.y[l], dRate.z[l], aRate.z[l], aRate.y[l], aRate.x[l];
    out.force << ft.x[l], ft.y[l], ft.z[l], fa.z[l], fa.y[l], fa.x[l];
  }
  const V3 F = RJ * ft;
  const V3 tau = RI * transposedTimes(Ti, fa);  // tau = R_I T^-T f_a
  for (int l = 0; l < n; ++l) {
    ElementWrench& w = ws.bushings[e[l]].wrench;
    w.F = lane(F, l);
    w.tau = lane(tau, l);
  }
  if (!partials) return;

  // Marker-level blocks (F_pJ = -F_pI, F_vJ = -F_vI, F_thI = F_wI = 0, tau_p = tau_v = 0,
  // tau_wJ = -tau_wI).
  const M3 K = timesTransposed(timesDiagonal(RJ, kt), RJ), C = timesTransposed(timesDiagonal(RJ, ct), RJ);
  const M3 FpI = timesSkew(C, wJ) - K;
  const M3 FvI = -C;
  const M3 FthJ = -timesSkew(K, dW) - timesSkew(C, u) - skew(F);
  const M3 FwJ = timesSkew(FvI, dW);
  const M3 Ga = timesTransposed(Ti, RI);  // d a = Ga (d theta_I - d theta_J)
  M3 DwGa;  // rotation::dBodyToRateTimes(z) Ga, the derivative's five non-zero entries
  {
    const Pack sz = sph * z.y + cph * z.z, cz = cph * z.y - sph * z.z;
    const Pack d01 = sz * tth * ic, d21 = sz * ic * ic, d02 = cz * ic, d12 = -sz, d22 = tth * cz;
    for (int c = 0; c < 3; ++c) {
      DwGa.m[0][c] = d01 * Ga.m[1][c] + d02 * Ga.m[2][c];
      DwGa.m[1][c] = d12 * Ga.m[2][c];
      DwGa.m[2][c] = d21 * Ga.m[1][c] + d22 * Ga.m[2][c];
    }
  }
  M3 B = -transposedTimesDiagonal(Ti, ka);  // rotation::dBodyToRateTransposedTimes(fa) - T^-T diag(ka)
  {
    const Pack ic2 = ic * ic, q = (sth * fa.x + fa.z) * ic2;
    B.m[1][1] += sph * q;
    B.m[2][1] += cph * q;
    B.m[1][2] += cph * ic * fa.x - sph * fa.y + cph * tth * fa.z;
    B.m[2][2] += -sph * ic * fa.x - cph * fa.y - sph * tth * fa.z;
  }
  const M3 Cc = transposedTimesDiagonal(Ti, ca);
  const M3 X = RI * (B * Ga - Cc * DwGa);
  const M3 TwI = -(RI * (Cc * Ga));
  const M3 TthI = X + timesSkew(TwI, wRel) - skew(tau);
  const M3 TthJ = -X;

  const BlockSlots* slots[kLanes];
  for (int l = 0; l < kLanes; ++l) slots[l] = &model.bushings[e[l]].blocks;
  Sides sides;
  gatherSides(ws, mI, mJ, I, J, out, slots, n, target, sides);
  if (target == RowBlocks::AddToRows) storePartials<true>(FpI, FvI, FthJ, FwJ, TthI, TthJ, TwI, true, F, sides, n);
  else storePartials<false>(FpI, FvI, FthJ, FwJ, TthI, TthJ, TwI, true, F, sides, n);
  for (int l = 0; l < n; ++l) {
    const ModelBushing& b = model.bushings[e[l]];
    const MarkerKinematics& mi = ws.markers[b.i.value];
    const MarkerKinematics& mj = ws.markers[b.j.value];
    for (int k = 0; k < 6; ++k)
      if (b.branchDirection[k] >= 0)
        branchCoupling(k, mi, ws.bodies[mi.body], mj, ws.bodies[mj.body], lane(u, l), lane(wRel, l), lane(Ti, l),
                       lane(Ga, l), lane(DwGa, l), scale[l][k], scaleSlope[l][k], ws.branches[b.branchDirection[k]]);
  }
}

/// Up to kLanes P2P elements at once, as bushingLanes() does for bushings.
[[gnu::noinline]] void p2pLanes(const SuspensionModel& model, Workspace& ws, const int* list, int n, bool partials,
                                RowBlocks target) {
  using namespace lanes;
  int e[kLanes];
  for (int l = 0; l < kLanes; ++l) e[l] = list[l < n ? l : n - 1];
  V3 e1, vRel;
  Pack len, T, dTdl, dTdr;
  V3 F;
  for (int l = 0; l < kLanes; ++l) {
    const ModelP2P& p = model.p2ps[e[l]];
    const MarkerKinematics& mi = ws.markers[p.i.value];
    const MarkerKinematics& mj = ws.markers[p.j.value];
    const Vec3 dW = mi.p - mj.p;
    const double length = dW.norm();
    if (!std::isfinite(length))
      throw SimulationError(describeElement(model, "p2p element", p.id, p.name, p.i, p.j) +
                            ": the markers' positions are not finite");
    if (!(length > 1e-9))
      throw SimulationError(describeElement(model, "p2p element", p.id, p.name, p.i, p.j) +
                            ": the markers coincide, the line of action is undefined");
    const Vec3 el = dW / length;
    const Vec3 vl = mi.v - mj.v;
    const double rate = el.dot(vl);
    const double ext = length - p.freeLength;
    // Tension T = preload + S(l - l0) + D(l_dot) - bump + rebound.
    const CurveValue sv = p.spring.eval(ext);
    const CurveValue cv = p.damper.eval(rate);
    double tension = p.preload + sv.y + cv.y;
    double slope = sv.dydx;
    if (p.bump.active) {
      const double x = -ext - p.bump.clearance;  // penetration in compression
      if (x > 0.0) {
        const CurveValue f = p.bump.law.eval(x);
        tension -= f.y;
        slope += f.dydx;
      }
    }
    if (p.rebound.active) {
      const double x = ext - p.rebound.clearance;  // penetration in extension
      if (x > 0.0) {
        const CurveValue f = p.rebound.law.eval(x);
        tension += f.y;
        slope += f.dydx;
      }
    }
    setLane(e1, l, el), setLane(vRel, l, vl), setLane(F, l, -tension * el);
    len[l] = length, T[l] = tension, dTdl[l] = slope, dTdr[l] = cv.dydx;
    if (l < n) {
      P2PResult& out = ws.p2ps[e[l]];
      out.length = length;
      out.rate = rate;
      out.tension = tension;
      out.wrench.F = -tension * el;
      out.wrench.tau.setZero();
    }
  }
  if (!partials) return;

  // F = -T e, e = d_W / |d_W|: dF/dp_I = -e (T_l e^T + T_r vRel^T Pe) - T Pe, dF/dv_I = -T_r e e^T,
  // with Pe = de/dd_W = (I - e e^T) / l.
  M3 Pe, FpI, FvI;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) Pe.m[r][c] = ((r == c ? splat(1.0) : Pack{}) - at(e1, r) * at(e1, c)) / len;
  const V3 g = dTdl * e1 + dTdr * transposedTimes(Pe, vRel);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      FpI.m[r][c] = -at(e1, r) * at(g, c) - T * Pe.m[r][c];
      FvI.m[r][c] = -dTdr * at(e1, r) * at(e1, c);
    }
  MarkerIndex mI[kLanes], mJ[kLanes];
  ElementWrench* out[kLanes];
  const BlockSlots* slots[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    mI[l] = model.p2ps[e[l]].i, mJ[l] = model.p2ps[e[l]].j;
    out[l] = &ws.p2ps[e[l]].wrench;
    slots[l] = &model.p2ps[e[l]].blocks;
  }
  const M3 zero{};
  Sides sides;
  gatherSides(ws, mI, mJ, gatherMarkers(ws, mI), gatherMarkers(ws, mJ), out, slots, n, target, sides);
  if (target == RowBlocks::AddToRows) storePartials<true>(FpI, FvI, zero, zero, zero, zero, zero, false, F, sides, n);
  else storePartials<false>(FpI, FvI, zero, zero, zero, zero, zero, false, F, sides, n);
}

/// Elements list[0..n) in batches of kLanes.
template <class Kernel>
void batches(Kernel kernel, const SuspensionModel& model, Workspace& ws, const int* list, int n, bool partials,
             RowBlocks target) {
  for (int k = 0; k < n; k += kLanes) kernel(model, ws, list + k, std::min(kLanes, n - k), partials, target);
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

void calcBushingList(const SuspensionModel& model, Workspace& ws, const std::vector<int>& list, bool partials,
                     RowBlocks target) {
  batches(bushingLanes, model, ws, list.data(), static_cast<int>(list.size()), partials, target);
}

void calcP2PList(const SuspensionModel& model, Workspace& ws, const std::vector<int>& list, bool partials,
                 RowBlocks target) {
  batches(p2pLanes, model, ws, list.data(), static_cast<int>(list.size()), partials, target);
}

void calcBushings(const SuspensionModel& model, Workspace& ws, bool partials) {
  calcBushingList(model, ws, ws.bushingOrder, partials);
}

void calcP2Ps(const SuspensionModel& model, Workspace& ws, bool partials) {
  calcP2PList(model, ws, ws.p2pOrder, partials);
}

}  // namespace ek
