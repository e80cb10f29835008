// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dynamics/flexible_body.h"

namespace ek {

FlexibleWorkspace::FlexibleWorkspace(int modes)
    : n(modes),
      C(fe::Mat3X::Zero(3, modes)),
      Cdot(fe::Mat3X::Zero(3, modes)),
      dJ(modes, Mat3::Zero()),
      S(modes, Mat3::Zero()),
      dJw(modes, Vec3::Zero()),
      Eqd(modes, Vec3::Zero()),
      hw(static_cast<std::size_t>(modes) * modes, Vec3::Zero()),
      f(VecX::Zero(3 + modes)),
      dfdw(MatX::Zero(3 + modes, 3)),
      dfdq(MatX::Zero(3 + modes, modes)),
      dfdqd(MatX::Zero(3 + modes, modes)),
      mass(MatX::Zero(3 + modes, 3 + modes)),
      dMa(MatX::Zero(3 + modes, modes)),
      a(VecX::Zero(3 + modes)),
      h(VecX::Zero(3 + modes)),
      tq(Mat3X::Zero(3, modes)),
      yq(Mat3X::Zero(3, modes)),
      g(VecX::Zero(3 + modes)),
      hg(VecX::Zero(3 + modes)) {}

void evaluateInertia(const fe::ModalBody& body, const VecX& q, const VecX& qd, FlexibleWorkspace& ws) {
  const int n = ws.n;
  ws.J = body.inertia;
  ws.C.setZero();
  ws.Cdot.setZero();
  for (int k = 0; k < n; ++k) {
    Mat3 s = Mat3::Zero();
    for (int l = 0; l < n; ++l) s.noalias() += q[l] * body.h(k, l);
    ws.S[k] = s;
    const Mat3 g = body.G[k] + body.G[k].transpose();
    ws.dJ[k] = g + s + s.transpose();
    ws.J.noalias() += q[k] * (g + s);  // J2 = sum_k q_k S_k
    ws.C.noalias() += q[k] * body.E[k];
    ws.Cdot.noalias() += qd[k] * body.E[k];
  }
  ws.J = 0.5 * (ws.J + ws.J.transpose()).eval();
  ws.Jdot.setZero();
  for (int k = 0; k < n; ++k) ws.Jdot.noalias() += qd[k] * ws.dJ[k];
}

void inertialForces(const fe::ModalBody& body, const VecX& damping, const Vec3& w, const VecX& q, const VecX& qd,
                    FlexibleWorkspace& ws, bool partials) {
  const int n = ws.n;
  ws.L.noalias() = ws.J * w + ws.C * qd;
  // Rows of w: -w x L - J' w - C' q'.
  ws.f.head<3>() = -w.cross(ws.L) - ws.Jdot * w - ws.Cdot * qd;
  // Rows of q: -C'^T w + g - Lambda q - D q'.
  for (int k = 0; k < n; ++k) {
    const Vec3 Ekqd = body.E[k] * qd;
    ws.f[3 + k] = -ws.Cdot.col(k).dot(w) + 0.5 * w.dot(ws.dJ[k] * w) + w.dot(Ekqd) - body.stiffness[k] * q[k] -
                  damping[k] * qd[k];
  }
  ws.mass.topLeftCorner<3, 3>() = ws.J;
  ws.mass.topRightCorner(3, n) = ws.C;
  ws.mass.bottomLeftCorner(n, 3) = ws.C.transpose();
  ws.mass.bottomRightCorner(n, n).setIdentity();
  if (!partials) return;

  // Rows of w. hw_kj = H_kj w and dJ_k w once: the products below reuse them.
  ws.dfdw.topRows<3>() = skew(ws.L) - skew(w) * ws.J - ws.Jdot;
  for (int k = 0; k < n; ++k) {
    ws.dJw[k].noalias() = ws.dJ[k] * w;
    ws.Eqd[k].noalias() = body.E[k] * qd;
    for (int j = 0; j < n; ++j) ws.hw[static_cast<std::size_t>(k) * n + j].noalias() = body.h(k, j) * w;
  }
  auto hw = [&](int k, int j) -> const Vec3& { return ws.hw[static_cast<std::size_t>(k) * n + j]; };
  for (int k = 0; k < n; ++k) {
    Vec3 Pw = Vec3::Zero();  // (d J'/dq_k) w = sum_j q'_j (H_jk + H_kj) w
    for (int j = 0; j < n; ++j) Pw += qd[j] * (hw(j, k) + hw(k, j));
    ws.dfdq.block<3, 1>(0, k) = -w.cross(ws.dJw[k] + ws.Eqd[k]) - Pw;
    ws.dfdqd.block<3, 1>(0, k) = -w.cross(Vec3(ws.C.col(k))) - ws.dJw[k] - ws.Eqd[k] - ws.Cdot.col(k);
  }
  // Rows of q.
  for (int k = 0; k < n; ++k) {
    ws.dfdw.row(3 + k) = (-ws.Cdot.col(k) + ws.dJw[k] + ws.Eqd[k]).transpose();
    const fe::Mat3X& Ek = body.E[k];
    for (int j = 0; j < n; ++j) {
      ws.dfdq(3 + k, j) = w.dot(hw(k, j));
      ws.dfdqd(3 + k, j) = w.dot(Ek.col(j)) - w.dot(body.E[j].col(k));
    }
    ws.dfdq(3 + k, k) -= body.stiffness[k];
    ws.dfdqd(3 + k, k) -= damping[k];
  }
}

void massTimesPartial(const fe::ModalBody& body, const VecX& a, FlexibleWorkspace& ws) {
  const int n = ws.n;
  const Vec3 alpha = a.head<3>();
  const auto b = a.tail(n);
  for (int k = 0; k < n; ++k) {
    ws.dMa.block<3, 1>(0, k) = ws.dJ[k] * alpha + body.E[k] * b;
    ws.dMa.block(3, k, n, 1).noalias() = body.E[k].transpose() * alpha;
  }
}

namespace {

/// h = M0 M(q)^-1 x and, when `a` is given, a = M(q)^-1 x, through the Schur complement:
/// M(q)^-1 (x1; x2) = (S^-1 t; x2 - C^T S^-1 t) with t = x1 - C x2. @pre ws.schurInverse and
/// ws.m0SchurInverse at this state.
void schurSolve(const FlexibleWorkspace& ws, const VecX& x, VecX& h, VecX* a) {
  const int n = ws.n;
  Vec3 t = x.head<3>();
  t.noalias() -= ws.C * x.tail(n);
  const Vec3 y = ws.schurInverse * t;
  h.head<3>() = ws.m0SchurInverse * t;
  h.tail(n) = x.tail(n);
  h.tail(n).noalias() -= ws.C.transpose() * y;
  if (a == nullptr) return;
  a->head<3>() = y;
  a->tail(n) = h.tail(n);
}

}  // namespace

void engineValues(const fe::ModalBody& body, const VecX& rhs, FlexibleWorkspace& ws) {
  Mat3 S = ws.J;
  S.noalias() -= ws.C * ws.C.transpose();
  ws.schurInverse = S.inverse();  // symmetric positive definite: the frame's inertia, modes free
  ws.m0SchurInverse.noalias() = body.inertia * ws.schurInverse;
  schurSolve(ws, rhs, ws.h, &ws.a);
}

void engineRows(const fe::ModalBody& body, const VecX& rhs, const MatX& drhs, int qColumn, FlexibleWorkspace& ws) {
  const int n = ws.n;
  const Eigen::Index cols = drhs.cols();
  engineValues(body, rhs, ws);
  if (ws.t.cols() != cols) {  // the engine's workspace sizes them once
    ws.t.resize(3, cols);
    ws.y.resize(3, cols);
    ws.dh.resize(3 + n, cols);
  }
  // dh = M0 M^-1 drhs, column block by column block of the Schur form.
  ws.t = drhs.topRows<3>();
  ws.t.noalias() -= ws.C.lazyProduct(drhs.bottomRows(n));
  ws.y.noalias() = ws.schurInverse.lazyProduct(ws.t);
  ws.dh.topRows<3>().noalias() = ws.m0SchurInverse.lazyProduct(ws.t);
  ws.dh.bottomRows(n) = drhs.bottomRows(n);
  ws.dh.bottomRows(n).noalias() -= ws.C.transpose().lazyProduct(ws.y);
  if (qColumn < 0) return;
  // - M0 M^-1 d(M a)/dq on the columns of q.
  massTimesPartial(body, ws.a, ws);
  ws.tq = ws.dMa.topRows<3>();
  ws.tq.noalias() -= ws.C.lazyProduct(ws.dMa.bottomRows(n));
  ws.yq.noalias() = ws.schurInverse * ws.tq;
  ws.dh.block(0, qColumn, 3, n).noalias() -= ws.m0SchurInverse * ws.tq;
  ws.dh.block(3, qColumn, n, n) -= ws.dMa.bottomRows(n);
  ws.dh.block(3, qColumn, n, n).noalias() += ws.C.transpose().lazyProduct(ws.yq);
}

void engineSolve(FlexibleWorkspace& ws) { schurSolve(ws, ws.g, ws.hg, nullptr); }

double rotationalAndElasticEnergy(const fe::ModalBody& body, const Vec3& w, const VecX& q, const VecX& qd,
                                  const FlexibleWorkspace& ws) {
  double e = 0.5 * w.dot(ws.J * w) + w.dot(ws.C * qd) + 0.5 * qd.squaredNorm();
  for (int k = 0; k < ws.n; ++k) e += 0.5 * body.stiffness[k] * q[k] * q[k];
  return e;
}

Vec3 pointPosition(const fe::PointShape& s, const Vec3& p, const Mat3& R, const VecX& q) {
  return p + R * (s.position + s.translation * q);
}

Vec3 pointVelocity(const fe::PointShape& s, const Mat3& R, const VecX& q, const Vec3& v, const Vec3& wB, const VecX& qd) {
  const Vec3 x = s.position + s.translation * q;
  return v + R * (wB.cross(x) + s.translation * qd);
}

Vec3 pointAngularVelocity(const fe::PointShape& s, const Mat3& R, const Vec3& wB, const VecX& qd) {
  return R * (wB + s.rotation * qd);
}

void pointWrench(const fe::PointShape& s, const Mat3& R, const VecX& q, const Vec3& F, const Vec3& tau,
                 PointWrench& out) {
  const Vec3 rho = R * (s.position + s.translation * q);
  out.force = F;
  out.torque = tau + rho.cross(F);
  const Vec3 FB = R.transpose() * F, tauB = R.transpose() * tau;
  out.modal.noalias() = s.translation.transpose() * FB;
  out.modal.noalias() += s.rotation.transpose() * tauB;
}

}  // namespace ek
