// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/flexible_rows.h"

#include <algorithm>
#include <cmath>

#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"

namespace ek {

namespace so3 {
namespace {

/// sin a / a and (1 - cos a) / a^2 = 2 sin^2(a / 2) / a^2 in closed form (no cancellation);
/// (a - sin a) / a^3 and the derivatives of the last two divided by a by their series below
/// a = 0.1 (truncation below 3e-16 there, where the closed forms lose digits to cancellation:
/// eps / a^2 and eps / a^4).
struct Coefficients {
  double s1, b, c, beta, gamma;
};
Coefficients coefficients(double a) {
  const double a2 = a * a;
  if (a == 0.0) return {1.0, 0.5, 1.0 / 6.0, -1.0 / 12.0, -1.0 / 60.0};
  const double s = std::sin(a), h = std::sin(0.5 * a);
  Coefficients k{s / a, 2.0 * h * h / a2, 0.0, 0.0, 0.0};
  if (a < 0.1) {
    const double a4 = a2 * a2, a6 = a4 * a2;
    k.c = 1.0 / 6.0 - a2 / 120.0 + a4 / 5040.0 - a6 / 362880.0;
    k.beta = -1.0 / 12.0 + a2 / 180.0 - a4 / 6720.0 + a6 / 453600.0;
    k.gamma = -1.0 / 60.0 + a2 / 1260.0 - a4 / 60480.0 + a6 / 4989600.0;
    return k;
  }
  const double co = std::cos(a);
  k.c = (a - s) / (a2 * a);
  k.beta = (a * s - 2.0 * (1.0 - co)) / (a2 * a2);
  k.gamma = ((1.0 - co) * a - 3.0 * (a - s)) / (a2 * a2 * a);
  return k;
}

}  // namespace

Mat3 exp(const Vec3& phi) {
  const Coefficients k = coefficients(phi.norm());
  const Mat3 P = skew(phi);
  return Mat3::Identity() + k.s1 * P + k.b * P * P;
}

Mat3 leftJacobian(const Vec3& phi) {
  const Coefficients k = coefficients(phi.norm());
  const Mat3 P = skew(phi);
  return Mat3::Identity() + k.b * P + k.c * P * P;
}

Mat3 leftJacobianTimesPartial(const Vec3& phi, const Vec3& y) {
  // Jl y = y + b phi x y + c phi x (phi x y), b and c functions of a = |phi|, da = phi^T / a dphi.
  const Coefficients k = coefficients(phi.norm());
  const Vec3 py = phi.cross(y), ppy = phi.cross(py);
  return -k.b * skew(y) - k.c * (skew(py) + skew(phi) * skew(y)) + k.beta * py * phi.transpose() +
         k.gamma * ppy * phi.transpose();
}

}  // namespace so3

namespace {

/// A flexible body's slot that holds row or column k of its coordinates (p, theta, q) or
/// (v, w, q'): the frame's for k < 6, else the modal slot of mode k - 6; -1 for a body without a slot.
inline int slotOf(const SuspensionModel& model, int body, int k) {
  const ModelBody& b = model.bodies[body];
  if (k < 6 || b.flexible < 0) return b.state;
  return model.flexibleBodies[b.flexible].firstModalSlot + (k - 6) / 6;
}

/// The number of coordinates of a body at each level: 6, plus its modes.
inline int coordinates(const SuspensionModel& model, int body) {
  const ModelBody& b = model.bodies[body];
  return b.flexible < 0 ? 6 : 6 + model.flexibleBodies[b.flexible].modes();
}

/// A marker's motion (p, theta, v, w; global) per change of its body's coordinates: position
/// level (p, theta, q) into J.leftCols(nc) and velocity level (v, w_B, q') into J.rightCols.
void markerJacobian(const SuspensionModel& model, const Workspace& ws, int marker, MatX& J) {
  const MarkerKinematics& mk = ws.markers[marker];
  const BodyKinematics& b = ws.bodies[mk.body];
  const int nc = coordinates(model, mk.body);
  J.topLeftCorner(12, 2 * nc).setZero();
  auto pos = [&](int r, int c) { return J.block<3, 3>(r, c); };
  const Mat3 I = Mat3::Identity();
  pos(0, 0) = I;
  pos(0, 3) = -skew(mk.rho);
  pos(3, 3) = I;
  pos(6, 3) = -skew(Vec3(mk.v - b.v));
  pos(9, 3) = -skew(mk.w);
  pos(6, nc) = I;
  pos(6, nc + 3) = -skew(mk.rho) * b.R;
  pos(9, nc + 3) = b.R;
  const ModelMarker& mm = model.markers[marker];
  if (mm.flexible < 0) return;
  const FlexibleMarkerState& fm = ws.flexibleMarkers[marker];
  const int n = nc - 6;
  const fe::PointShape& s = mm.shape;
  // R T and R Jl R_s (3 x n) and their rates' partials.
  const Mat3 RJl = b.R * fm.jl, RdJl = b.R * so3::leftJacobianTimesPartial(fm.phi, fm.phiDot);
  J.block(0, 6, 3, n).noalias() = b.R.lazyProduct(s.translation);
  J.block(3, 6, 3, n).noalias() = RJl.lazyProduct(s.rotation);
  J.block(6, 6, 3, n).noalias() = skew(b.w_W).lazyProduct(J.block(0, 6, 3, n));
  J.block(9, 6, 3, n).noalias() = RdJl.lazyProduct(s.rotation);
  J.block(6, nc + 6, 6, n) = J.block(0, 6, 6, n);
}

/// Adds y (rows of body c's coordinates) to the rows' values, and dy (rows x both levels of body
/// x's coordinates) to the blocks of Jw_r (position level) and Jw_v (velocity level).
void scatterRows(const SuspensionModel& model, Workspace& ws, int c, int x, const MatX& dy, int rows) {
  const int nx = coordinates(model, x);
  // Slot by slot: a block of up to 6 x 6 entries per pair of row and column slots.
  for (int r0 = 0; r0 < rows; r0 += 6) {
    const int nr = std::min(6, rows - r0), rs = slotOf(model, c, r0);
    for (int k0 = 0; k0 < nx; k0 += 6) {
      const int nk = std::min(6, nx - k0);
      const int s = model.pattern.find(rs, slotOf(model, x, k0));
      if (nr == 6 && nk == 6) {  // a whole block: the fixed-size sum
        ws.Jw_r[s] += dy.block<6, 6>(r0, k0);
        ws.Jw_v[s] += dy.block<6, 6>(r0, nx + k0);
      } else {
        ws.Jw_r[s].topLeftCorner(nr, nk) += dy.block(r0, k0, nr, nk);
        ws.Jw_v[s].topLeftCorner(nr, nk) += dy.block(r0, nx + k0, nr, nk);
      }
    }
  }
}

/// The rows of body c (its coordinates' generalized forces in the world-wrench form) of a force G
/// and torque Gamma (global) acting at marker m of c: y = Y (G; Gamma) with Y = (I 0; [rho]x I;
/// T^T R^T, R_s^T Jl^T R^T), the transpose of the marker's position-level motion Jacobian (virtual
/// work). Returns the frame's (F, torque about the centre of mass); the modal forces go to `modal`.
Vec6 sideWrench(const SuspensionModel& model, const Workspace& ws, int marker, const Vec3& G, const Vec3& Gamma,
                VecX& modal) {
  const MarkerKinematics& mk = ws.markers[marker];
  Vec6 frame;
  frame << G, mk.rho.cross(G) + Gamma;
  const ModelMarker& mm = model.markers[marker];
  if (mm.flexible < 0) return frame;
  const FlexibleMarkerState& fm = ws.flexibleMarkers[marker];
  const Mat3& R = ws.bodies[mk.body].R;
  const Vec3 GB = R.transpose() * G, tauB = fm.jl.transpose() * (R.transpose() * Gamma);
  const int n = static_cast<int>(mm.shape.translation.cols());
  modal.head(n).noalias() = mm.shape.translation.transpose() * GB;
  modal.head(n).noalias() += mm.shape.rotation.transpose() * tauB;
  return frame;
}

/// Adds sideWrench() to the rows of the marker's body.
void addSideValues(const SuspensionModel& model, Workspace& ws, int marker, const Vec3& G, const Vec3& Gamma) {
  const int c = ws.markers[marker].body;
  ws.wrench[slotOf(model, c, 0)] += sideWrench(model, ws, marker, G, Gamma, ws.flexValues);
  const int n = coordinates(model, c) - 6;
  for (int k = 0; k < n; ++k) ws.wrench[slotOf(model, c, 6 + k)][k % 6] += ws.flexValues[k];
}

/// rows (nc x cols) = Y X for the side at marker m of body c, Y as in addSideValues(), whose
/// modal rows are the marker Jacobian's modal columns transposed (Jc: markerJacobian()).
void sideTimes(const Vec3& rho, const MatX& Jc, int nc, const Mat6X& X, int cols, MatX& rows) {
  rows.topLeftCorner(3, cols) = X.topLeftCorner(3, cols);
  rows.block(3, 0, 3, cols).noalias() = skew(rho) * X.topLeftCorner(3, cols);
  rows.block(3, 0, 3, cols) += X.bottomLeftCorner(3, cols);
  const int n = nc - 6;
  if (n > 0) rows.block(6, 0, n, cols).noalias() = Jc.block(0, 6, 6, n).transpose().lazyProduct(X.leftCols(cols));
}

/// Adds to rows (nc x both levels of c's coordinates) the partials of Y (G; Gamma) by c's own
/// coordinates at fixed (G, Gamma): the lever arm turns, the node moves and its section turns.
void addSideExplicit(const SuspensionModel& model, Workspace& ws, int marker, const Vec3& G, const Vec3& Gamma,
                     const MatX& Jc, MatX& rows) {
  const MarkerKinematics& mk = ws.markers[marker];
  // d(rho x G) = -[G]x d rho, d rho = -[rho]x d theta + R T dq.
  rows.block<3, 3>(3, 3) += skew(G) * skew(mk.rho);
  const ModelMarker& mm = model.markers[marker];
  if (mm.flexible < 0) return;
  const FlexibleMarkerState& fm = ws.flexibleMarkers[marker];
  const Mat3& R = ws.bodies[mk.body].R;
  const int n = static_cast<int>(mm.shape.translation.cols());
  const auto RT = Jc.block(0, 6, 3, n), RJR = Jc.block(3, 6, 3, n);  // R T and R Jl R_s
  rows.block(3, 6, 3, n).noalias() -= skew(G) * RT;
  // d(R^T x)/d theta = R^T [x]x.
  rows.block(6, 3, n, 3).noalias() += RT.transpose() * skew(G);
  rows.block(6, 3, n, 3).noalias() += RJR.transpose() * skew(Gamma);
  // d(Jl^T z)/d phi = d(Jl(-phi) z)/d phi = -leftJacobianTimesPartial(-phi, z), z = R^T Gamma.
  const Mat3 dJz = -so3::leftJacobianTimesPartial(-fm.phi, Vec3(R.transpose() * Gamma));
  ws.flexShapeScratch.leftCols(n).noalias() = dJz * mm.shape.rotation;
  rows.block(6, 6, n, n).noalias() += mm.shape.rotation.transpose() * ws.flexShapeScratch.leftCols(n);
}

}  // namespace

void calcFlexibleKinematics(const SuspensionModel& model, const State& state, Workspace& ws) {
  for (std::size_t fi = 0; fi < model.flexibleBodies.size(); ++fi) {
    const ModelFlexibleBody& f = model.flexibleBodies[fi];
    FlexibleBodyState& fs = ws.flexible[fi];
    const int n = f.modes();
    fs.q = state.r.segment(6 * f.firstModalSlot, n);
    fs.qd = state.v.segment(6 * f.firstModalSlot, n);
    for (int k = 0; k < f.modalSlots; ++k) {
      const int slot = f.firstModalSlot + k;
      BodyKinematics& b = ws.bodies[model.freeBodies[slot]];
      b.p = state.r.segment<3>(6 * slot);
      b.angles = state.r.segment<3>(6 * slot + 3);
      b.v = state.v.segment<3>(6 * slot);
      b.w_B = state.v.segment<3>(6 * slot + 3);
      setUnitMaps(b);
    }
    const BodyKinematics& b = ws.bodies[f.body];
    for (int marker : f.markers) {
      const ModelMarker& mm = model.markers[marker];
      const fe::PointShape& s = mm.shape;
      FlexibleMarkerState& fm = ws.flexibleMarkers[marker];
      MarkerKinematics& mk = ws.markers[marker];
      fm.phi.noalias() = s.rotation * fs.q;
      fm.phiDot.noalias() = s.rotation * fs.qd;
      fm.expPhi = so3::exp(fm.phi);
      fm.jl = so3::leftJacobian(fm.phi);
      Vec3 x = s.position;
      x.noalias() += s.translation * fs.q;
      mk.rho = b.R * x;
      mk.p = b.p + mk.rho;
      mk.R = b.R * fm.expPhi * mm.R_BM;
      Vec3 u;
      u.noalias() = s.translation * fs.qd;
      fm.elasticVelocity = b.R * u;
      mk.v = b.v + b.w_W.cross(mk.rho) + fm.elasticVelocity;
      mk.w = b.w_W + b.R * (fm.jl * fm.phiDot);
    }
  }
}

void calcFlexibleElements(const SuspensionModel& model, Workspace& ws, double branchStageGain) {
  for (int e : ws.flexibleBushings) calcBushingScalar(model, ws, e, branchStageGain);
  for (int e : ws.flexibleP2Ps) calcP2PScalar(model, ws, e);
}

namespace {

/// One element with a side on a flexible body: its wrench (F, tau) at p_I on the body of marker
/// I, the reaction at p_I on the body of J (applied at p_J with the moment of the offset), into
/// the rows of the free sides; with `partials`, chained through both markers' motions.
///
/// The chain: W_m (6 x 12), the partials of (F, tau) by marker m's motion (p, theta, v, w), times
/// m's motion Jacobian J_m gives P_m = W_m J_m (6 x both levels of m's body's coordinates), once
/// per marker; side I's rows are Y_I P_m, side J's Y_J (-T_d P_m +- [F]x dp_m) with T_d = (I 0;
/// [d]x I) (the reaction -F, -tau - d x F); on the side's own body add the explicit partials.
void addElement(const SuspensionModel& model, Workspace& ws, MarkerIndex iIndex, MarkerIndex jIndex,
                const ElementWrench& w, bool partials) {
  const int I = iIndex.value, J = jIndex.value;
  const MarkerKinematics& mi = ws.markers[I];
  const MarkerKinematics& mj = ws.markers[J];
  const bool aMoves = mi.state >= 0, bMoves = mj.state >= 0;
  const Vec3 d = mi.p - mj.p;
  const Vec3 reactionTorque = -w.tau - d.cross(w.F);
  if (aMoves) addSideValues(model, ws, I, w.F, w.tau);
  if (bMoves) addSideValues(model, ws, J, -w.F, reactionTorque);
  if (!partials) return;
  // The marker-level partials of (F, tau) w.r.t. (p, theta, v, w) of I and of J, recovered from
  // the side partials through the maps the laws used (force_elements.cpp, bodyPartials()).
  Mat6x12 WI = Mat6x12::Zero(), WJ = Mat6x12::Zero();
  const Mat3& Ra = ws.bodies[mi.body].R;
  const Mat3& Rb = ws.bodies[mj.body].R;
  Mat3 TwI = Mat3::Zero(), TthI = Mat3::Zero(), TthJ = Mat3::Zero(), FwJ = Mat3::Zero(), FthJ = Mat3::Zero();
  if (w.torque) TwI = aMoves ? Mat3(w.TwA * Ra.transpose()) : Mat3(-w.TwB * Rb.transpose());
  if (mi.moves && w.torque) TthI = w.TthA + TwI * skew(mi.w);
  if (mj.moves) {  // free or driven
    FwJ = w.FwB * Rb.transpose() - w.Fv * skew(mj.rho);
    FthJ = w.FthB - w.Fp * skew(mj.rho) - w.Fv * skew(Vec3(mj.w.cross(mj.rho))) + FwJ * skew(mj.w);
    if (w.torque) TthJ = w.TthB - TwI * skew(mj.w);
  }
  WI.block<3, 3>(0, 0) = w.Fp;
  WI.block<3, 3>(0, 6) = w.Fv;
  WI.block<3, 3>(3, 3) = TthI;
  WI.block<3, 3>(3, 9) = TwI;
  WJ.block<3, 3>(0, 0) = -w.Fp;
  WJ.block<3, 3>(0, 3) = FthJ;
  WJ.block<3, 3>(0, 6) = -w.Fv;
  WJ.block<3, 3>(0, 9) = FwJ;
  WJ.block<3, 3>(3, 3) = TthJ;
  WJ.block<3, 3>(3, 9) = -TwI;
  // P_m = W_m J_m; a marker's position rows (0-5) vanish in the velocity-level columns.
  const int markers[2] = {I, J};
  const bool moves[2] = {aMoves, bMoves};
  const Mat6x12* W[2] = {&WI, &WJ};
  for (int m = 0; m < 2; ++m) {
    if (!moves[m]) continue;
    const int nx = coordinates(model, ws.markers[markers[m]].body);
    const MatX& Jm = ws.flexJacobians[ws.flexJacobianOf[markers[m]]];
    ws.flexMotion[m].leftCols(nx).noalias() = W[m]->lazyProduct(Jm.topLeftCorner(12, nx));
    ws.flexMotion[m].middleCols(nx, nx).noalias() = W[m]->rightCols<6>().lazyProduct(Jm.block(6, nx, 6, nx));
  }
  MatX& rows = ws.flexRows;
  const Mat3 Fx = skew(w.F);
  for (int side = 0; side < 2; ++side) {
    if (!moves[side]) continue;
    const int marker = markers[side];
    const MarkerKinematics& mc = ws.markers[marker];
    const int c = mc.body, nc = coordinates(model, c);
    const MatX& Jc = ws.flexJacobians[ws.flexJacobianOf[marker]];
    bool explicitAdded = false;
    for (int m = 0; m < 2; ++m) {
      if (!moves[m]) continue;
      const int x = ws.markers[markers[m]].body, nx = coordinates(model, x);
      const Mat6X* X = &ws.flexMotion[m];
      if (side == 1) {
        Mat6X& T = ws.flexReaction;
        const Mat6X& P = ws.flexMotion[m];
        T.topLeftCorner(3, 2 * nx) = -P.topLeftCorner(3, 2 * nx);
        T.bottomLeftCorner(3, 2 * nx).noalias() = -skew(d) * P.topLeftCorner(3, 2 * nx);
        T.bottomLeftCorner(3, 2 * nx) -= P.bottomLeftCorner(3, 2 * nx);
        // d(-d x F) by the position of marker m: +[F]x dp_I, -[F]x dp_J.
        const MatX& Jm = ws.flexJacobians[ws.flexJacobianOf[markers[m]]];
        if (m == 0)
          T.bottomLeftCorner(3, nx).noalias() += Fx * Jm.topLeftCorner(3, nx);
        else
          T.bottomLeftCorner(3, nx).noalias() -= Fx * Jm.topLeftCorner(3, nx);
        X = &T;
      }
      sideTimes(mc.rho, Jc, nc, *X, 2 * nx, rows);
      if (x == c && !explicitAdded) {
        if (side == 0)
          addSideExplicit(model, ws, marker, w.F, w.tau, Jc, rows);
        else
          addSideExplicit(model, ws, marker, -w.F, reactionTorque, Jc, rows);
        explicitAdded = true;
      }
      scatterRows(model, ws, c, x, rows, nc);
    }
  }
  // A side on a rig body that motion inputs move: the columns of its inputs (J_u, J_udot) in the
  // rows of the moving side, P = W_m (J_m dpose/du), chained as above.
  for (int m = 0; m < 2; ++m) {
    const MarkerKinematics& md = ws.markers[markers[m]];
    if (moves[m] || !md.moves) continue;
    const MatX& Jm = ws.flexJacobians[ws.flexJacobianOf[markers[m]]];
    const int side = 1 - m, marker = markers[side];
    if (!moves[side]) continue;
    const MarkerKinematics& mc = ws.markers[marker];
    const int c = mc.body, nc = coordinates(model, c);
    const MatX& Jc = ws.flexJacobians[ws.flexJacobianOf[marker]];
    for (int k : model.bodies[md.body].drives)
      for (int rate = 0; rate < 2; ++rate) {
        const Vec12 motion = Jm.topLeftCorner<12, 12>() * (rate ? ws.drives[k].dPose_dudot : ws.drives[k].dPose_du);
        Vec6 X = *W[m] * motion;
        if (side == 1) {  // the reaction -F, -tau - d x F; d = p_I - p_J moves with p_I (m = 0) or p_J
          const Vec3 dF = X.head<3>();
          X.head<3>() = -dF;
          X.tail<3>() = -X.tail<3>() - d.cross(dF) + (m == 0 ? 1.0 : -1.0) * w.F.cross(motion.head<3>());
        }
        VecX& y = ws.flexValues;
        y.head<3>() = X.head<3>();
        y.segment<3>(3) = mc.rho.cross(X.head<3>()) + X.tail<3>();
        if (nc > 6) y.segment(6, nc - 6).noalias() = Jc.block(0, 6, 6, nc - 6).transpose() * X;
        std::vector<Vec6>& columns = rate ? ws.Jw_udot : ws.Jw_u;
        for (int r0 = 0; r0 < nc; r0 += 6)
          columns[model.inputPattern.find(slotOf(model, c, r0), k)].head(std::min(6, nc - r0)) += y.segment(r0, std::min(6, nc - r0));
      }
  }
}

/// The force and torque inputs at markers on flexible bodies, body forces as addBodyForcesRow()
/// adds them on rigid bodies: their wrench and modal forces into the rows, their columns of J_u in
/// the generalized form (the frame's torque in body axes; flexibleBodyRows() maps them through
/// M0 M(q)^-1), and with `partials` their partials by the body's coordinates (the node moves and
/// turns; a direction in the marker's axes turns with it: d(u d) = -[u d]x dtheta_M).
void addFlexibleLoads(const SuspensionModel& model, Workspace& ws, bool partials) {
  const InputPattern& ip = model.inputPattern;
  const Vec3 zero = Vec3::Zero();
  for (int k : ws.flexibleLoads) {
    const ModelInput& in = model.inputs[k];
    const int marker = in.marker.value;
    const MarkerKinematics& mk = ws.markers[marker];
    const int c = mk.body, nc = coordinates(model, c), n = nc - 6, frame = slotOf(model, c, 0);
    const bool force = in.kind == InputKind::Force;
    const Vec3 dir = in.frame == InputFrame::Global ? in.direction : Vec3(mk.R * in.direction);
    VecX& modal = ws.flexValues;
    const Vec6 unit = sideWrench(model, ws, marker, force ? dir : zero, force ? zero : dir, modal);
    const double u = ws.u[k];
    ws.wrench[frame] += u * unit;
    for (int j = 0; j < n; ++j) ws.wrench[slotOf(model, c, 6 + j)][j % 6] += u * modal[j];
    if (!partials) continue;
    ws.Ju[ip.find(frame, k)] << unit.head<3>(), ws.bodies[c].R.transpose() * unit.tail<3>();
    for (int j0 = 0; j0 < n; j0 += 6) {
      Vec6& column = ws.Ju[ip.find(slotOf(model, c, 6 + j0), k)];
      column.setZero();
      column.head(std::min(6, n - j0)) = modal.segment(j0, std::min(6, n - j0));
    }
    const Vec3 value = u * dir;
    const MatX& Jc = ws.flexJacobians[ws.flexJacobianOf[marker]];
    MatX& rows = ws.flexRows;
    if (in.frame == InputFrame::Marker) {
      Mat6X& P = ws.flexMotion[0];
      P.leftCols(2 * nc).setZero();
      P.block(force ? 0 : 3, 0, 3, nc).noalias() = -skew(value) * Jc.block(3, 0, 3, nc);
      sideTimes(mk.rho, Jc, nc, P, 2 * nc, rows);
    } else {
      rows.topLeftCorner(nc, 2 * nc).setZero();
    }
    addSideExplicit(model, ws, marker, force ? value : zero, force ? zero : value, Jc, rows);
    scatterRows(model, ws, c, c, rows, nc);
  }
}

/// A steering rack with a side on a flexible body: its force's partials by the steering-wheel
/// angle and its rate (calcSteeringRacks()) times the force's generalized form on each moving
/// side (the rack's pull at p_I, the reaction at p_I on the housing; on a flexible side the frame's
/// and the modes' rows, sideWrench()) into the angle's columns of Jw_u and Jw_udot, which the rows
/// then map as a rigid rack's (addBodyForcesRow(), flexibleBodyRows()).
void addFlexibleSteeringAngleColumns(const SuspensionModel& model, Workspace& ws, int e) {
  const ModelSteeringRack& r = model.steeringRacks[e];
  const SteeringRackResult& out = ws.steeringRacks[e];
  const InputPattern& ip = model.inputPattern;
  const MarkerKinematics& mi = ws.markers[r.i.value];
  const MarkerKinematics& mj = ws.markers[r.j.value];
  const Vec3 z = mj.R.col(2);
  for (int side = 0; side < 2; ++side) {
    const MarkerKinematics& mk = side ? mj : mi;
    if (mk.state < 0) continue;
    const int marker = side ? r.j.value : r.i.value, c = mk.body, n = coordinates(model, c) - 6;
    const Vec6 frame = side ? sideWrench(model, ws, marker, -z, Vec3(-(mi.p - mj.p).cross(z)), ws.flexValues)
                            : sideWrench(model, ws, marker, z, Vec3::Zero(), ws.flexValues);
    const int s0 = ip.find(slotOf(model, c, 0), r.input);
    ws.Jw_u[s0] += out.dForce_du * frame;
    ws.Jw_udot[s0] += out.dForce_dudot * frame;
    for (int k = 0; k < n; ++k) {
      const int s = ip.find(slotOf(model, c, 6 + k), r.input);
      ws.Jw_u[s][k % 6] += out.dForce_du * ws.flexValues[k];
      ws.Jw_udot[s][k % 6] += out.dForce_dudot * ws.flexValues[k];
    }
  }
}

/// The viscoelastic directions' sides on flexible bodies (BranchModalSide): the rate's and the
/// deflection's marker-level partials times the marker's motion Jacobian give their partials by
/// the frame's (p, theta, v, w_B) and the modes' (q, q'); the unit wrench on I (the reaction at
/// p_I on J's side) gives the frame's force and the generalized torque and modal forces that
/// flexibleBodyRows() maps through M0 M(q)^-1 (docs/flexible-bodies.md, "Maxwell branches").
void flexibleBranchSides(const SuspensionModel& model, Workspace& ws) {
  for (std::size_t d = 0; d < ws.branches.size(); ++d) {
    BranchCoupling& c = ws.branches[d];
    for (int side = 0; side < 2; ++side) {
      BranchModalSide& s = side ? c.modalB : c.modalA;
      if (s.modes == 0) continue;
      const int n = s.modes, nc = 6 + n;
      const MatX& J = ws.flexJacobians[ws.flexJacobianOf[s.marker]];
      const BodyKinematics& bk = ws.bodies[ws.markers[s.marker].body];
      Vec6& gr = side ? c.grB : c.grA;
      Vec6& gv = side ? c.gvB : c.gvA;
      Vec6& dr = side ? c.drB : c.drA;
      gr << J.block<12, 3>(0, 0).transpose() * s.gMarker, bk.RT.transpose() * (J.block<12, 3>(0, 3).transpose() * s.gMarker);
      gv = J.block<12, 6>(0, nc).transpose() * s.gMarker;
      s.gq.noalias() = J.block(0, 6, 12, n).transpose() * s.gMarker;
      s.gqd.noalias() = J.block(0, nc + 6, 12, n).transpose() * s.gMarker;
      dr << J.block<6, 3>(0, 0).transpose() * s.dMarker.head<6>(),
          bk.RT.transpose() * (J.block<6, 3>(0, 3).transpose() * s.dMarker.head<6>());
      s.dq.noalias() = J.block(0, 6, 6, n).transpose() * s.dMarker.head<6>();
      const ModelBushing& b = model.bushings[model.branchDirections[d].bushing];
      const Vec3 lever = ws.markers[b.i.value].p - ws.markers[b.j.value].p;
      const Vec6 frame = side ? sideWrench(model, ws, s.marker, -s.F, Vec3(-s.tau - lever.cross(s.F)), s.wq)
                              : sideWrench(model, ws, s.marker, s.F, s.tau, s.wq);
      Vec6& w = side ? c.wB : c.wA;
      w.head<3>() = frame.head<3>();
      s.torqueB = bk.R.transpose() * frame.tail<3>();
    }
  }
}

}  // namespace

void addFlexibleElementForces(const SuspensionModel& model, Workspace& ws, bool partials) {
  if (partials)  // each marker's motion Jacobian once: an element uses it for both of its sides
    for (std::size_t k = 0; k < ws.flexJacobianMarkers.size(); ++k)
      if (ws.markers[ws.flexJacobianMarkers[k]].moves)  // free, or driven by motion inputs
        markerJacobian(model, ws, ws.flexJacobianMarkers[k], ws.flexJacobians[k]);
  for (int e : ws.flexibleBushings)
    addElement(model, ws, model.bushings[e].i, model.bushings[e].j, ws.bushings[e].wrench, partials);
  for (int e : ws.flexibleP2Ps) addElement(model, ws, model.p2ps[e].i, model.p2ps[e].j, ws.p2ps[e].wrench, partials);
  for (int e : ws.flexibleRacks) {
    const ModelSteeringRack& r = model.steeringRacks[e];
    addElement(model, ws, r.i, r.j, ws.steeringRacks[e].wrench, partials);
    if (partials) addFlexibleSteeringAngleColumns(model, ws, e);
  }
  if (partials) flexibleBranchSides(model, ws);
}

void flexibleBodyRows(const SuspensionModel& model, Workspace& ws, bool partials) {
  const BlockPattern& bp = model.pattern;
  const InputPattern& ip = model.inputPattern;
  addFlexibleLoads(model, ws, partials);
  for (std::size_t fi = 0; fi < model.flexibleBodies.size(); ++fi) {
    const ModelFlexibleBody& f = model.flexibleBodies[fi];
    const int n = f.modes();
    if (n == 0) continue;  // a rigid body: its rows are those of any rigid body
    FlexibleBodyState& fs = ws.flexible[fi];
    FlexibleWorkspace& fw = fs.inertia;
    const BodyKinematics& b = ws.bodies[f.body];
    const int l0 = f.frameSlot;
    const Vec3 w = b.w_B;
    evaluateInertia(f.modal, fs.q, fs.qd, fw);
    inertialForces(f.modal, f.damping, w, fs.q, fs.qd, fw, partials);
    const Vec3 tauW = ws.wrench[l0].tail<3>();
    auto modalSlot = [&](int k) { return f.firstModalSlot + k / 6; };
    fs.rhs.head<3>() = b.R.transpose() * tauW;
    for (int k = 0; k < n; ++k) fs.rhs[3 + k] = ws.wrench[modalSlot(k)][k % 6];
    fs.rhs += fw.f;
    const int nc = static_cast<int>(fs.cols.size());
    int j0 = 0;
    while (fs.cols[j0] != l0) ++j0;
    // The pattern's block of the body's slot m (0: the frame) and column j.
    auto block = [&](int m, int j) { return fs.blocks[static_cast<std::size_t>(m) * nc + j]; };
    if (partials) {
      for (int j = 0; j < nc; ++j) {
        const int s0 = block(0, j);
        fs.drhs.block(0, 6 * j, 3, 6).noalias() = b.R.transpose() * ws.Jw_r[s0].bottomRows<3>();
        fs.drhs.block(0, 6 * (nc + j), 3, 6).noalias() = b.R.transpose() * ws.Jw_v[s0].bottomRows<3>();
        for (int k = 0; k < n; ++k) {
          const int sk = block(1 + k / 6, j);
          fs.drhs.block<1, 6>(3 + k, 6 * j) = ws.Jw_r[sk].row(k % 6);
          fs.drhs.block<1, 6>(3 + k, 6 * (nc + j)) = ws.Jw_v[sk].row(k % 6);
        }
      }
      fs.drhs.block<3, 3>(0, 6 * j0 + 3) += b.R.transpose() * skew(tauW);  // d(R^T tau) = R^T (d tau + [tau]x d theta)
      fs.drhs.block(0, 6 * (nc + j0) + 3, 3 + n, 3) += fw.dfdw;
      fs.drhs.middleCols(fs.qColumn, n) += fw.dfdq;
      fs.drhs.middleCols(6 * nc + fs.qColumn, n) += fw.dfdqd;
      engineRows(f.modal, fs.rhs, fs.drhs, fs.qColumn, fw);
    } else {
      engineValues(f.modal, fs.rhs, fw);
    }
    // Back into the world-wrench form.
    const Mat3& J0 = f.modal.inertia;
    const Vec3 J0w = J0 * w;
    const Vec3 Wrot = b.R * (fw.h.head<3>() + w.cross(J0w));
    ws.wrench[l0].tail<3>() = Wrot;
    for (int k = 0; k < n; ++k) ws.wrench[modalSlot(k)][k % 6] = fw.h[3 + k];
    if (!partials) continue;
    for (int j = 0; j < nc; ++j) {
      const int s0 = block(0, j);
      ws.Jw_r[s0].bottomRows<3>().noalias() = b.R * fw.dh.block(0, 6 * j, 3, 6);
      ws.Jw_v[s0].bottomRows<3>().noalias() = b.R * fw.dh.block(0, 6 * (nc + j), 3, 6);
      for (int k = 0; k < n; ++k) {
        const int sk = block(1 + k / 6, j);
        ws.Jw_r[sk].row(k % 6) = fw.dh.block<1, 6>(3 + k, 6 * j);
        ws.Jw_v[sk].row(k % 6) = fw.dh.block<1, 6>(3 + k, 6 * (nc + j));
      }
    }
    // The inputs' columns of J_u and J_udot (generalized: rhs changes by g per unit u or u') through
    // M0 M(q)^-1; their translation rows are m v' = F as for a rigid body.
    for (int s = ip.rowStart[l0]; s < ip.rowStart[l0 + 1]; ++s)
      for (std::vector<Vec6>* columns : {&ws.Ju, &ws.Judot}) {
        const int k = ip.input[s];
        std::vector<Vec6>& J = *columns;
        fw.g.head<3>() = J[s].tail<3>();
        for (int j = 0; j < n; ++j) fw.g[3 + j] = J[ip.find(modalSlot(j), k)][j % 6];
        engineSolve(fw);
        J[s].tail<3>() = fw.hg.head<3>();
        for (int j = 0; j < n; ++j) J[ip.find(modalSlot(j), k)][j % 6] = fw.hg[3 + j];
      }
    // The viscoelastic directions' sides on the body (flexibleBranchSides()): their generalized
    // force per unit branch force through M0 M(q)^-1 as well.
    for (BranchCoupling& c : ws.branches)
      for (int side = 0; side < 2; ++side) {
        BranchModalSide& s = side ? c.modalB : c.modalA;
        if (s.firstSlot != f.firstModalSlot) continue;
        fw.g.head<3>() = s.torqueB;
        fw.g.tail(n) = s.wq;
        engineSolve(fw);
        (side ? c.wB : c.wA).tail<3>() = fw.hg.head<3>();
        s.wq = fw.hg.tail(n);
      }
    ws.Jw_v[bp.diag[l0]].bottomRightCorner<3, 3>() += b.R * (skew(w) * J0 - skew(J0w));
    ws.Jw_r[bp.diag[l0]].bottomRightCorner<3, 3>() -= skew(Wrot);
    for (int k = 0; k < f.modalSlots; ++k) {
      const int s = f.firstModalSlot + k;
      ws.Jw_r[bp.diag[s]].bottomRightCorner<3, 3>() -= skew(Vec3(ws.wrench[s].tail<3>()));
    }
  }
}

}  // namespace ek
