// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/flexible_rows.h"

#include <algorithm>
#include <cmath>

#include "engine/dynamics/force_elements.h"

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
  for (int k = 0; k < n; ++k) {
    const Vec3 RT = b.R * Vec3(s.translation.col(k));
    const Vec3 RJR = RJl * Vec3(s.rotation.col(k));
    J.block<3, 1>(0, 6 + k) = RT;
    J.block<3, 1>(3, 6 + k) = RJR;
    J.block<3, 1>(6, 6 + k) = b.w_W.cross(RT);
    J.block<3, 1>(9, 6 + k) = RdJl * Vec3(s.rotation.col(k));
    J.block<3, 1>(6, nc + 6 + k) = RT;
    J.block<3, 1>(9, nc + 6 + k) = RJR;
  }
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
      ws.Jw_r[s].topLeftCorner(nr, nk) += dy.block(r0, k0, nr, nk);
      ws.Jw_v[s].topLeftCorner(nr, nk) += dy.block(r0, nx + k0, nr, nk);
    }
  }
}

/// The rows of body c (its coordinates' generalized forces in the world-wrench form: F, torque
/// about the centre of mass, modal forces) of a force G and torque Gamma (global) acting at marker
/// m of c: y = Y (G; Gamma), and with `explicitRows` the partials of y w.r.t. c's own coordinates
/// at fixed (G, Gamma) (the lever arm and the mode shapes turn and deform).
void sideRows(const SuspensionModel& model, const Workspace& ws, int marker, const Vec3& G, const Vec3& Gamma,
              MatX& Y, VecX* y, MatX* explicitRows) {
  const MarkerKinematics& mk = ws.markers[marker];
  const BodyKinematics& b = ws.bodies[mk.body];
  const int nc = coordinates(model, mk.body), n = nc - 6;
  Y.topLeftCorner(nc, 6).setZero();
  Y.block<3, 3>(0, 0).setIdentity();
  Y.block<3, 3>(3, 0) = skew(mk.rho);
  Y.block<3, 3>(3, 3).setIdentity();
  const ModelMarker& mm = model.markers[marker];
  const FlexibleMarkerState* fm = mm.flexible >= 0 ? &ws.flexibleMarkers[marker] : nullptr;
  if (fm) {
    Y.block(6, 0, n, 3).noalias() = mm.shape.translation.transpose() * b.R.transpose();
    const Mat3 RJl = b.R * fm->jl;
    Y.block(6, 3, n, 3).noalias() = mm.shape.rotation.transpose() * RJl.transpose();
  }
  if (y) {
    y->head(nc).noalias() = Y.topLeftCorner(nc, 3) * G;
    y->head(nc).noalias() += Y.block(0, 3, nc, 3) * Gamma;
  }
  if (!explicitRows) return;
  MatX& E = *explicitRows;
  E.topLeftCorner(nc, 2 * nc).setZero();
  E.block<3, 3>(3, 3) = skew(G) * skew(mk.rho);  // d(rho x G) = -[G]x d rho, d rho = -[rho]x d theta + R T dq
  if (!fm) return;
  const Vec3 gammaB = b.R.transpose() * Gamma;
  // d(R^T x)/d theta = R^T [x]x.
  E.block(6, 3, n, 3).noalias() = mm.shape.translation.transpose() * (b.R.transpose() * skew(G));
  E.block(6, 3, n, 3).noalias() += mm.shape.rotation.transpose() * (fm->jl.transpose() * (b.R.transpose() * skew(Gamma)));
  // d(Jl^T z)/d phi = d(Jl(-phi) z)/d phi = -leftJacobianTimesPartial(-phi, z).
  const Mat3 dJz = -so3::leftJacobianTimesPartial(-fm->phi, gammaB);
  for (int k = 0; k < n; ++k) {
    const Vec3 RT = b.R * Vec3(mm.shape.translation.col(k));
    E.block<3, 1>(3, 6 + k) = -G.cross(RT);
    E.block(6, 6 + k, n, 1).noalias() = mm.shape.rotation.transpose() * (dJz * Vec3(mm.shape.rotation.col(k)));
  }
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
      b.R.setIdentity();
      b.Tinv.setIdentity();
      b.RT.setIdentity();
      b.w_W = b.w_B;
      b.N.setZero();
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

void calcFlexibleElements(const SuspensionModel& model, Workspace& ws) {
  for (int e : ws.flexibleBushings) calcBushingScalar(model, ws, e);
  for (int e : ws.flexibleP2Ps) calcP2PScalar(model, ws, e);
}

namespace {

/// One element with a side on a flexible body: its wrench (F, tau) at p_I on the body of marker
/// I, the reaction at p_I on the body of J (applied at p_J with the moment of the offset), into
/// the rows of the free sides; with `partials`, chained through both markers' motions.
void addElement(const SuspensionModel& model, Workspace& ws, MarkerIndex iIndex, MarkerIndex jIndex,
                const ElementWrench& w, bool partials) {
  const int I = iIndex.value, J = jIndex.value;
  const MarkerKinematics& mi = ws.markers[I];
  const MarkerKinematics& mj = ws.markers[J];
  const bool aMoves = mi.state >= 0, bMoves = mj.state >= 0;
  const Vec3 d = mi.p - mj.p;
  // The marker-level partials of (F, tau) w.r.t. (p, theta, v, w) of I and of J, recovered from
  // the side partials through the maps the laws used (force_elements.cpp, bodyPartials()).
  Mat6x12 WI = Mat6x12::Zero(), WJ = Mat6x12::Zero();
  if (partials) {
    const Mat3& Ra = ws.bodies[mi.body].R;
    const Mat3& Rb = ws.bodies[mj.body].R;
    Mat3 TwI = Mat3::Zero(), TthI = Mat3::Zero(), TthJ = Mat3::Zero(), FwJ = Mat3::Zero(), FthJ = Mat3::Zero();
    if (w.torque) TwI = aMoves ? Mat3(w.TwA * Ra.transpose()) : Mat3(-w.TwB * Rb.transpose());
    if (aMoves && w.torque) TthI = w.TthA + TwI * skew(mi.w);
    if (bMoves) {
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
  }
  MatX& Y = ws.flexScratchA;
  MatX& rows = ws.flexScratchB;
  for (int side = 0; side < 2; ++side) {
    const MarkerKinematics& mc = side == 0 ? mi : mj;
    if (mc.state < 0) continue;
    const int c = mc.body, marker = side == 0 ? I : J;
    // The applied force and torque at the side's marker and their marker-level partials.
    Vec3 G = w.F, Gamma = w.tau;
    Mat6x12 GI = WI, GJ = WJ;
    if (side == 1) {
      G = -w.F;
      Gamma = -w.tau - d.cross(w.F);
      GI = -WI;
      GJ = -WJ;
      if (partials) {
        GI.bottomRows<3>() -= skew(d) * WI.topRows<3>();
        GJ.bottomRows<3>() -= skew(d) * WJ.topRows<3>();
        GI.block<3, 3>(3, 0) += skew(w.F);
        GJ.block<3, 3>(3, 0) -= skew(w.F);
      }
    }
    const int nc = coordinates(model, c);
    VecX& values = ws.flexValues;
    sideRows(model, ws, marker, G, Gamma, Y, &values, nullptr);
    for (int r = 0; r < nc; ++r) ws.wrench[slotOf(model, c, r)][r % 6] += values[r];
    if (!partials) continue;
    for (int other = 0; other < 2; ++other) {
      const MarkerKinematics& mx = other == 0 ? mi : mj;
      if (mx.state < 0) continue;
      const int x = mx.body, nx = coordinates(model, x);
      const MatX& Jm = ws.flexJacobians[ws.flexJacobianOf[other == 0 ? I : J]];
      const Mat6x12& Gm = other == 0 ? GI : GJ;
      // Y (G_m J_m): the 6-row product first, then the side's rows.
      ws.flexYG.topLeftCorner(6, 2 * nx).noalias() = Gm * Jm.topLeftCorner(12, 2 * nx);
      rows.topLeftCorner(nc, 2 * nx).noalias() = Y.topLeftCorner(nc, 6) * ws.flexYG.topLeftCorner(6, 2 * nx);
      if (x == c) {
        sideRows(model, ws, marker, G, Gamma, Y, nullptr, &ws.flexExplicit);
        rows.topLeftCorner(nc, 2 * nx) += ws.flexExplicit.topLeftCorner(nc, 2 * nx);
      }
      scatterRows(model, ws, c, x, rows, nc);
    }
  }
}

}  // namespace

void addFlexibleElementForces(const SuspensionModel& model, Workspace& ws, bool partials) {
  if (partials)  // each marker's motion Jacobian once: an element uses it for both of its sides
    for (std::size_t k = 0; k < ws.flexJacobianMarkers.size(); ++k)
      if (ws.markers[ws.flexJacobianMarkers[k]].state >= 0)
        markerJacobian(model, ws, ws.flexJacobianMarkers[k], ws.flexJacobians[k]);
  for (int e : ws.flexibleBushings)
    addElement(model, ws, model.bushings[e].i, model.bushings[e].j, ws.bushings[e].wrench, partials);
  for (int e : ws.flexibleP2Ps) addElement(model, ws, model.p2ps[e].i, model.p2ps[e].j, ws.p2ps[e].wrench, partials);
}

void flexibleBodyRows(const SuspensionModel& model, Workspace& ws, bool partials) {
  const BlockPattern& bp = model.pattern;
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
    ws.Jw_v[bp.diag[l0]].bottomRightCorner<3, 3>() += b.R * (skew(w) * J0 - skew(J0w));
    ws.Jw_r[bp.diag[l0]].bottomRightCorner<3, 3>() -= skew(Wrot);
    for (int k = 0; k < f.modalSlots; ++k) {
      const int s = f.firstModalSlot + k;
      ws.Jw_r[bp.diag[s]].bottomRightCorner<3, 3>() -= skew(Vec3(ws.wrench[s].tail<3>()));
    }
  }
}

}  // namespace ek
