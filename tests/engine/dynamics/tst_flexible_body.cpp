// SPDX-License-Identifier: GPL-3.0-or-later
// The floating-frame equations of a flexible body (engine/dynamics/flexible_body.h): their
// analytic partials against central differences, a free body spinning and vibrating that keeps
// its energy and its linear and angular momentum to the order of the integrator, and the modal
// forces that do the work of a wrench on a point.
#include <QtTest>

#include <Eigen/Cholesky>
#include <cmath>
#include <random>

#include "engine/dynamics/flexible_body.h"
#include "support/beams.h"
#include "support/fd.h"

using namespace ek;

namespace {

// The bent bar (support/beams.h) of a soft material, so that its modes are low and a spin couples
// visibly into them.
fe::ModalBody bentBar(int perSegment, std::vector<int> interfaceNodes, int fixedModes) {
  const fe::BeamMaterial soft{2e9, 0.75e9, 1200.0};
  return fe::floatingFrameBody(test::bentBar(perSegment, soft, test::tube(0.022, 0.003)), interfaceNodes,
                               {fixedModes, 0.0});
}

VecX randomVector(int n, double scale, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  VecX x(n);
  for (int i = 0; i < n; ++i) x[i] = scale * u(rng);
  return x;
}

// The free body's motion: p, quaternion (w, x, y, z), v, w_B, q, q'.
struct FreeState {
  Vec3 p, v, w;
  Eigen::Quaterniond o;
  VecX q, qd;
};

struct FreeRates {
  Vec3 pd, vd, wd;
  Eigen::Vector4d od;
  VecX qd, qdd;
};

class FreeBody {
 public:
  explicit FreeBody(const fe::ModalBody& b) : body_(b), ws_(b.modes()), damping_(VecX::Zero(b.modes())) {}

  FreeRates rates(const FreeState& s) {
    evaluateInertia(body_, s.q, s.qd, ws_);
    inertialForces(body_, damping_, s.w, s.q, s.qd, ws_, false);
    const VecX a = ws_.mass.ldlt().solve(ws_.f);
    FreeRates r;
    r.pd = s.v;
    r.vd.setZero();
    r.wd = a.head<3>();
    const Eigen::Quaterniond dq = s.o * Eigen::Quaterniond(0, s.w.x(), s.w.y(), s.w.z());
    r.od = 0.5 * dq.coeffs();
    r.qd = s.qd;
    r.qdd = a.tail(body_.modes());
    return r;
  }

  static FreeState add(const FreeState& s, const FreeRates& r, double h) {
    FreeState o = s;
    o.p += h * r.pd;
    o.v += h * r.vd;
    o.w += h * r.wd;
    o.o.coeffs() += h * r.od;
    o.q += h * r.qd;
    o.qd += h * r.qdd;
    return o;
  }

  void rk4(FreeState& s, double h) {
    const FreeRates k1 = rates(s);
    const FreeRates k2 = rates(add(s, k1, h / 2));
    const FreeRates k3 = rates(add(s, k2, h / 2));
    const FreeRates k4 = rates(add(s, k3, h));
    FreeRates sum = k1;
    sum.pd = (k1.pd + 2 * k2.pd + 2 * k3.pd + k4.pd) / 6;
    sum.vd = (k1.vd + 2 * k2.vd + 2 * k3.vd + k4.vd) / 6;
    sum.wd = (k1.wd + 2 * k2.wd + 2 * k3.wd + k4.wd) / 6;
    sum.od = (k1.od + 2 * k2.od + 2 * k3.od + k4.od) / 6;
    sum.qd = (k1.qd + 2 * k2.qd + 2 * k3.qd + k4.qd) / 6;
    sum.qdd = (k1.qdd + 2 * k2.qdd + 2 * k3.qdd + k4.qdd) / 6;
    s = add(s, sum, h);
  }

  double energy(const FreeState& s) {
    evaluateInertia(body_, s.q, s.qd, ws_);
    return 0.5 * body_.mass * s.v.squaredNorm() + rotationalAndElasticEnergy(body_, s.w, s.q, s.qd, ws_);
  }

  // Angular momentum about the world origin (the quaternion's norm drifts at the integrator's
  // order; R is taken from the normalized one).
  Vec3 angularMomentum(const FreeState& s) {
    evaluateInertia(body_, s.q, s.qd, ws_);
    const Mat3 R = s.o.normalized().toRotationMatrix();
    return R * (ws_.J * s.w + ws_.C * s.qd) + body_.mass * s.p.cross(s.v);
  }

 private:
  const fe::ModalBody& body_;
  FlexibleWorkspace ws_;
  VecX damping_;
};

}  // namespace

class TestFlexibleBody : public QObject {
  Q_OBJECT
 private slots:
  void partialsMatchFiniteDifferences();
  void freeBodyKeepsEnergyAndMomentum();
  void engineRowsMatchFiniteDifferences();
  void modalForcesDoTheWorkOfAWrench();
  void noAllocationInAStep();
};

void TestFlexibleBody::partialsMatchFiniteDifferences() {
  const fe::ModalBody b = bentBar(4, {0, 6, 12}, 4);
  const int n = b.modes();
  std::mt19937 rng(3);
  const Vec3 w(4.0, -7.0, 11.0);
  const VecX q = randomVector(n, 0.02 * std::sqrt(b.mass), rng);
  const VecX qd = randomVector(n, 0.5 * std::sqrt(b.mass), rng);
  VecX damping(n);
  for (int k = 0; k < n; ++k) damping[k] = 2 * 0.02 * std::sqrt(b.stiffness[k]);
  FlexibleWorkspace ws(n);
  auto f = [&](const Vec3& w1, const VecX& q1, const VecX& qd1) {
    FlexibleWorkspace w2(n);
    evaluateInertia(b, q1, qd1, w2);
    inertialForces(b, damping, w1, q1, qd1, w2, false);
    return VecX(w2.f);
  };
  evaluateInertia(b, q, qd, ws);
  inertialForces(b, damping, w, q, qd, ws, true);
  // f is at most quadratic in each of w, q and q': central differences are exact for any step,
  // and a large step keeps the round-off of the elastic forces (Lambda q) out of the comparison.
  const MatX fdW = test::centralDifference([&](const VecX& x) { return f(x, q, qd); }, w, 1e-1);
  const MatX fdQ = test::centralDifference([&](const VecX& x) { return f(w, x, qd); }, q, 1e-2 * std::sqrt(b.mass));
  const MatX fdQd = test::centralDifference([&](const VecX& x) { return f(w, q, x); }, qd, 1e-1 * std::sqrt(b.mass));
  // The elastic stiffness dominates df/dq's diagonal; compare the inertial part on its own scale.
  MatX dqInertial = ws.dfdq, fdQInertial = fdQ;
  for (int k = 0; k < n; ++k) {
    dqInertial(3 + k, k) += b.stiffness[k];
    fdQInertial(3 + k, k) += b.stiffness[k];
  }
  const double eW = test::blockRelativeError(ws.dfdw, fdW, 3 + n, 3);
  const double eQ = test::blockRelativeError(dqInertial, fdQInertial, 3 + n, n);
  const double eQd = test::blockRelativeError(ws.dfdqd, fdQd, 3 + n, n);
  // d(M(q) a)/dq.
  const VecX a = randomVector(3 + n, 50.0, rng);
  massTimesPartial(b, a, ws);
  const MatX fdMa = test::centralDifference(
      [&](const VecX& x) {
        FlexibleWorkspace w2(n);
        evaluateInertia(b, x, qd, w2);
        inertialForces(b, damping, w, x, qd, w2, false);
        return VecX(w2.mass * a);
      },
      q, 1e-2 * std::sqrt(b.mass));
  const double eMa = test::blockRelativeError(ws.dMa, fdMa, 3 + n, n);
  qInfo("relative error against central differences: df/dw %.1e, df/dq %.1e, df/dq' %.1e, d(M a)/dq %.1e", eW, eQ,
        eQd, eMa);
  QVERIFY(eW < 1e-9);
  QVERIFY(eQ < 1e-9);
  QVERIFY(eQd < 1e-9);
  QVERIFY(eMa < 1e-9);
  // The inertial partials are not all zero (the check checks something).
  QVERIFY(dqInertial.norm() > 1e-3 * ws.dfdw.norm());
}

void TestFlexibleBody::freeBodyKeepsEnergyAndMomentum() {
  const fe::ModalBody b = bentBar(4, {0, 12}, 6);
  const int n = b.modes();
  std::mt19937 rng(11);
  FreeState s0;
  s0.p = Vec3(0.1, -0.2, 0.3);
  s0.v = Vec3(0.5, 0.1, -0.2);
  s0.w = Vec3(3.0, -2.0, 8.0);
  s0.o = Eigen::Quaterniond(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()));
  s0.q = randomVector(n, 0.005 * std::sqrt(b.mass), rng);
  s0.qd = randomVector(n, 0.05 * std::sqrt(b.mass), rng);
  const double omegaMax = std::sqrt(b.stiffness.maxCoeff());
  qInfo("%d modes, %.2f to %.0f Hz; spin %.1f rad/s", n, b.frequencies[0], b.frequencies[n - 1], s0.w.norm());
  FreeBody body(b);
  const double e0 = body.energy(s0);
  const Vec3 L0 = body.angularMomentum(s0);
  const double T = 0.1;
  double previous = 0;
  qInfo("  h [s]      steps  |dE|/E       |dL|/|L|     |d(m v)|");
  std::vector<double> errors;
  for (double hw : {0.2, 0.1, 0.05}) {
    const double h0 = hw / omegaMax;
    const int steps = static_cast<int>(std::ceil(T / h0));
    const double h = T / steps;
    FreeState s = s0;
    for (int i = 0; i < steps; ++i) body.rk4(s, h);
    const double dE = std::abs(body.energy(s) - e0) / e0;
    const double dL = (body.angularMomentum(s) - L0).norm() / L0.norm();
    const double dP = b.mass * (s.v - s0.v).norm();
    qInfo("  %.3e  %5d  %.3e    %.3e    %.1e", h, steps, dE, dL, dP);
    errors.push_back(std::max(dE, dL));
    QVERIFY(dP == 0);
    if (previous > 0) QVERIFY2(previous / std::max(dE, dL) > 12, "the drift does not fall at the integrator's order");
    previous = std::max(dE, dL);
  }
  QVERIFY(errors.back() < 2e-6);
  // Energy went through the modes: the body did deform and exchange energy with the spin.
  FreeBody probe(b);
  FreeState s = s0;
  s.q.setZero();
  s.qd.setZero();
  for (int i = 0; i < 200; ++i) probe.rk4(s, 0.5 / omegaMax);
  QVERIFY(s.q.norm() > 0);
}

void TestFlexibleBody::engineRowsMatchFiniteDifferences() {
  // h~ = M0 M(q)^-1 (Q + f) of a damped body under a modal force and a torque that depend on the
  // state, and its partials w.r.t. (w, q, q') from those of the right-hand side: the chain with
  // d(M a)/dq, against central differences of the whole function.
  const fe::ModalBody b = bentBar(4, {0, 6, 12}, 4);
  const int n = b.modes();
  std::mt19937 rng(9);
  const Vec3 w(3.0, 5.0, -6.0);
  const VecX q = randomVector(n, 0.02 * std::sqrt(b.mass), rng);
  const VecX qd = randomVector(n, 0.5 * std::sqrt(b.mass), rng);
  VecX damping(n);
  for (int k = 0; k < n; ++k) damping[k] = 2 * 0.05 * std::sqrt(b.stiffness[k]);
  const VecX load = randomVector(3 + n, 20.0, rng);  // external (tau_B; Q) = load + 40 q_0 in every row
  auto rows = [&](const VecX& x, FlexibleWorkspace& ws, bool partials) {
    const Vec3 w1 = x.head<3>();
    const VecX q1 = x.segment(3, n), qd1 = x.tail(n);
    evaluateInertia(b, q1, qd1, ws);
    inertialForces(b, damping, w1, q1, qd1, ws, partials);
    const VecX rhs = ws.f + load + VecX::Constant(3 + n, 40.0 * q1[0]);
    MatX drhs = MatX::Zero(3 + n, 3 + 2 * n);
    if (partials) {
      drhs << ws.dfdw, ws.dfdq, ws.dfdqd;
      drhs.col(3).array() += 40.0;
    }
    engineRows(b, rhs, drhs, partials ? 3 : -1, ws);
    return VecX(ws.h);
  };
  VecX x(3 + 2 * n);
  x << w, q, qd;
  FlexibleWorkspace ws(n);
  rows(x, ws, true);
  const MatX analytic = ws.dh;
  // Not quadratic any more (M^-1): a small step, the elastic rows' round-off compared on their scale.
  VecX steps(3 + 2 * n);
  steps << Vec3::Constant(1e-5), VecX::Constant(n, 1e-7 * std::sqrt(b.mass)), VecX::Constant(n, 1e-6 * std::sqrt(b.mass));
  MatX fd(3 + n, 3 + 2 * n);
  for (int c = 0; c < x.size(); ++c) {
    FlexibleWorkspace w2(n);
    VecX xp = x, xm = x;
    xp[c] += steps[c];
    xm[c] -= steps[c];
    fd.col(c) = (rows(xp, w2, false) - rows(xm, w2, false)) / (2 * steps[c]);
  }
  const double e = test::blockRelativeError(analytic, fd, 3 + n, 3 + 2 * n);
  qInfo("M0 M(q)^-1 (Q + f): partials against central differences %.1e", e);
  QVERIFY(e < 1e-8);
  // M0 a with a = M^-1 rhs: at q = 0 M = M0 and h~ = rhs.
  FlexibleWorkspace w0(n);
  VecX x0 = x;
  x0.segment(3, n).setZero();
  const VecX h0 = rows(x0, w0, false);
  w0.mass.setZero();  // (inertialForces wrote M(0) = M0; h~ must equal the right-hand side)
  evaluateInertia(b, VecX::Zero(n), x0.tail(n), w0);
  inertialForces(b, damping, x0.head<3>(), VecX::Zero(n), x0.tail(n), w0, false);
  QVERIFY((h0 - (w0.f + load)).norm() < 1e-12 * h0.norm());
}

void TestFlexibleBody::modalForcesDoTheWorkOfAWrench() {
  // Power of a force and torque on a point = F . v_P + tau . w_P = the generalized forces times
  // the velocities (force . v + torque about the centre . w + modal . q').
  const fe::ModalBody b = bentBar(4, {0, 12}, 3);
  const int n = b.modes();
  std::mt19937 rng(5);
  const fe::PointShape point = fe::pointShape(b, 7, Vec3(0.01, 0.02, -0.015));
  const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(0.3, -1, 0.5).normalized()).toRotationMatrix();
  const Vec3 p(0.3, 0.1, -0.2), v(0.4, -0.3, 0.8), wB(2, -1, 3), F(120, -40, 300), tau(5, -8, 2);
  const VecX q = randomVector(n, 0.01, rng), qd = randomVector(n, 0.3, rng);
  PointWrench out;
  pointWrench(point, R, q, F, tau, out);
  const double power = F.dot(pointVelocity(point, R, q, v, wB, qd)) + tau.dot(pointAngularVelocity(point, R, wB, qd));
  const double generalized = out.force.dot(v) + out.torque.dot(R * wB) + out.modal.dot(qd);
  QVERIFY2(std::abs(power - generalized) < 1e-12 * std::abs(power), qPrintable(QString::number(power - generalized)));
  // The point's velocity is the rate of its position.
  const double h = 1e-6;
  const Mat3 Rh = Eigen::AngleAxisd(h * (R * wB).norm(), (R * wB).normalized()).toRotationMatrix() * R;
  const Vec3 rate = (pointPosition(point, p + h * v, Rh, q + h * qd) - pointPosition(point, p, R, q)) / h;
  QVERIFY((rate - pointVelocity(point, R, q, v, wB, qd)).norm() < 1e-5 * rate.norm());
}

void TestFlexibleBody::noAllocationInAStep() {
  // The workspace is sized once: its buffers keep their addresses through evaluations.
  const fe::ModalBody b = bentBar(3, {0, 9}, 2);
  const int n = b.modes();
  FlexibleWorkspace ws(n);
  const double* f = ws.f.data();
  const double* m = ws.mass.data();
  const double* dq = ws.dfdq.data();
  VecX q = VecX::Constant(n, 0.01), qd = VecX::Constant(n, 0.1), d = VecX::Zero(n), a = VecX::Ones(3 + n);
  const MatX drhs = MatX::Ones(3 + n, 3 + 2 * n);
  const double* dh = nullptr;
  for (int i = 0; i < 3; ++i) {
    evaluateInertia(b, q, qd, ws);
    inertialForces(b, d, Vec3(1, 2, 3), q, qd, ws, true);
    massTimesPartial(b, a, ws);
    engineRows(b, a, drhs, 3, ws);  // sizes ws.dh on the first call
    if (i == 0) dh = ws.dh.data();
  }
  QVERIFY(f == ws.f.data() && m == ws.mass.data() && dq == ws.dfdq.data() && dh == ws.dh.data());
}

QTEST_APPLESS_MAIN(TestFlexibleBody)
#include "tst_flexible_body.moc"
