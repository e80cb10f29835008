// SPDX-License-Identifier: GPL-3.0-or-later
// Flexible bodies in the stages (dynamics/flexible_rows.h): the rotation maps of the nodes, the
// markers riding on them, and the linearization of a model with a flexible body against central
// finite differences of h.
#include <QtTest>

#include <Eigen/Geometry>

#include "engine/core/rotation.h"
#include "engine/dynamics/flexible_rows.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/linearize.h"
#include "support/fd.h"
#include "support/test_models.h"

using namespace ek;

namespace {

/// The model's state as modelled, moved: every coordinate (frame, modes) and every rate.
State movedState(const SuspensionModel& m, double scale) {
  State s;
  m.initialState(s.r, s.v);
  for (int i = 0; i < s.r.size(); ++i) {
    s.r[i] += scale * 2e-3 * std::cos(1.7 * i + 0.3);
    s.v[i] = scale * 0.4 * std::sin(2.0 + 1.3 * i);
  }
  // The padding entries of the last modal slot stay zero.
  for (const auto& f : m.flexibleBodies)
    for (int k = f.modes(); k < 6 * f.modalSlots; ++k) s.r[6 * f.firstModalSlot + k] = s.v[6 * f.firstModalSlot + k] = 0.0;
  return s;
}

VecX hAt(const SuspensionModel& m, const State& s, const VecX& u) {
  Workspace ws(m);
  linearize(m, s, u, ws);
  return ws.h;
}
VecX hAt(const SuspensionModel& m, const State& s) { return hAt(m, s, VecX::Zero(m.nInputs())); }

/// The bar with loads: forces and torques at its nodes and at a marker off a node, along global
/// and along turned marker axes, and a force on the rigid arm; u their values.
Project loadedBar(VecX& u) {
  Project p = test::flexibleBar(8);
  auto load = [&](int id, int marker, InputKind kind, InputFrame frame, Vec3 direction) {
    InputRow in;
    in.id = id;
    in.name = "load " + std::to_string(id);
    in.marker = marker;
    in.kind = kind;
    in.frame = frame;
    in.direction = direction;
    p.inputs.push_back(in);
  };
  load(1, 12, InputKind::Force, InputFrame::Global, Vec3(0.2, -0.3, 1.0));
  load(2, 14, InputKind::Force, InputFrame::Marker, Vec3(0.0, 0.6, -0.8));
  load(3, 10, InputKind::Torque, InputFrame::Marker, Vec3(1.0, 0.0, 0.0));
  load(4, 13, InputKind::Torque, InputFrame::Global, Vec3(0.3, 1.0, -0.2));
  load(5, 21, InputKind::Force, InputFrame::Marker, Vec3(0.0, 0.0, 1.0));
  u.resize(5);
  u << 150.0, -80.0, 12.0, -7.0, 30.0;
  return p;
}

}  // namespace

class TestFlexibleRows : public QObject {
  Q_OBJECT
 private slots:
  // Exp against Eigen's angle-axis rotation; d(Jl(phi) y)/d phi against differences, below and
  // above the series' limit (a = 0.1) and at the limit.
  void rotationMaps() {
    for (double a : {1e-5, 0.03, 0.0999999, 0.1, 0.4, 1.3}) {
      const Vec3 phi = a * Vec3(0.3, -0.8, 0.5).normalized();
      const Mat3 ref = Eigen::AngleAxisd(a, phi.normalized()).toRotationMatrix();
      QVERIFY2((so3::exp(phi) - ref).norm() < 1e-15, qPrintable(QString::number(a)));
      // Exp(phi + dphi) = Exp(Jl dphi) Exp(phi) to first order.
      const Vec3 dphi = 1e-7 * Vec3(0.2, 0.5, -0.4);
      const Mat3 lhs = so3::exp(phi + dphi) * so3::exp(phi).transpose();
      const Vec3 rotation(lhs(2, 1) - lhs(1, 2), lhs(0, 2) - lhs(2, 0), lhs(1, 0) - lhs(0, 1));
      QVERIFY((0.5 * rotation - so3::leftJacobian(phi) * dphi).norm() < 1e-13);
      const Vec3 y(0.7, -0.2, 1.1);
      const MatX fd = test::centralDifference(
          [&](const VecX& x) { return VecX(so3::leftJacobian(Vec3(x)) * y); }, VecX(phi), 1e-6);
      const double e = (MatX(so3::leftJacobianTimesPartial(phi, y)) - fd).cwiseAbs().maxCoeff();
      QVERIFY2(e < 1e-9, qPrintable(QString("a = %1: %2").arg(a).arg(e)));
    }
  }

  // The model: the beams' mass properties on the frame, the modal slots after the project's
  // bodies (mass 1, inertia I), every marker on a node, the flexible body's slots coupled.
  void modelCompiles() {
    const auto m = SuspensionModel::build(test::flexibleBar(8));
    QCOMPARE(int(m->flexibleBodies.size()), 1);
    const ModelFlexibleBody& f = m->flexibleBodies[0];
    QVERIFY(f.modes() > 8);  // fixed-interface modes plus the interface's elastic ones
    QCOMPARE(f.modalSlots, (f.modes() + 5) / 6);
    QString freq;
    for (int k = 0; k < f.modes(); ++k) freq += QString(" %1").arg(f.modal.frequencies[k], 0, 'f', 0);
    qInfo("%d modes, mass %.3f kg, frequencies [Hz]:%s", f.modes(), f.modal.mass, qPrintable(freq));
    QCOMPARE(m->nFreeBodies(), 2 + f.modalSlots);
    const ModelBody& bar = m->bodies[f.body];
    QVERIFY(std::abs(bar.mass - f.modal.mass) == 0.0 && bar.mass > 1.0);
    for (int k = 0; k < f.modalSlots; ++k) {
      const ModelBody& slot = m->bodies[m->freeBodies[f.firstModalSlot + k]];
      QVERIFY(slot.modal && slot.mass == 1.0 && slot.inertia == Mat3::Identity());
    }
    QCOMPARE(int(f.markers.size()), 5);
    for (int mk : f.markers) {
      const ModelMarker& mm = m->markers[mk];
      QVERIFY(mm.flexible == 0 && mm.node >= 0);
      QVERIFY((mm.shape.position - mm.s).norm() < 1e-14);
    }
    for (int a : f.stateSlots())
      for (int b : f.stateSlots()) QVERIFY(m->pattern.find(a, b) >= 0);
    QVERIFY(m->bodyById(1).value == f.body);
  }

  // The markers on nodes: their velocity is the rate of their position and their angular
  // velocity that of their orientation along the motion r' = K v (central differences in time).
  void markerRatesAreTheRatesOfThePose() {
    const auto m = SuspensionModel::build(test::flexibleBar(6));
    const State s = movedState(*m, 5.0);
    Workspace ws(*m);
    linearize(*m, s, VecX::Zero(0), ws);
    VecX rDot(m->nDof()), h(m->nDof());
    Workspace tmp(*m);
    evaluateRhs(*m, s, VecX::Zero(0), VecX::Zero(0), tmp, h, rDot);
    const double dt = 1e-6;
    Workspace plus(*m), minus(*m);
    linearize(*m, State{0.0, s.r + dt * rDot, s.v}, VecX::Zero(0), plus);
    linearize(*m, State{0.0, s.r - dt * rDot, s.v}, VecX::Zero(0), minus);
    for (int mk : m->flexibleBodies[0].markers) {
      const Vec3 v = (plus.markers[mk].p - minus.markers[mk].p) / (2 * dt);
      const Mat3 dR = (plus.markers[mk].R - minus.markers[mk].R) / (2 * dt) * ws.markers[mk].R.transpose();
      const Vec3 w(dR(2, 1), dR(0, 2), dR(1, 0));
      QVERIFY2((v - ws.markers[mk].v).norm() < 1e-8 * (1.0 + v.norm()), qPrintable(QString("marker %1 v").arg(mk)));
      QVERIFY2((w - ws.markers[mk].w).norm() < 1e-7 * (1.0 + w.norm()), qPrintable(QString("marker %1 w").arg(mk)));
      QVERIFY(ws.flexibleMarkers[mk].phi.norm() > 1e-5);  // the nodes do turn
    }
  }

  // J_r and J_v of a model with a flexible body (bushings and P2P elements on both sides, an
  // offset marker, turned markers and frame) against central differences of h, at a state where
  // the frame, the modes and every rate move. h is quadratic in v, so the differences in v are
  // exact but for round-off: a large step (1e-4) keeps that small.
  void jacobians_data() {
    QTest::addColumn<int>("modes");
    QTest::addColumn<double>("scale");
    QTest::newRow("2 fixed-interface modes") << 2 << 1.0;
    QTest::newRow("8 fixed-interface modes") << 8 << 1.0;
    QTest::newRow("8 modes, large motion") << 8 << 20.0;
  }
  void jacobians() {
    QFETCH(int, modes);
    QFETCH(double, scale);
    const auto m = SuspensionModel::build(test::flexibleBar(modes));
    const State s = movedState(*m, scale);
    Workspace ws(*m);
    linearize(*m, s, VecX::Zero(0), ws);
    const MatX Jr = blockToDense(m->pattern, ws.Jr);
    const MatX Jv = blockToDense(m->pattern, ws.Jv);
    const MatX fdR = test::centralDifference([&](const VecX& r) { return hAt(*m, State{0.0, r, s.v}); }, s.r, 1e-7);
    const MatX fdV = test::centralDifference([&](const VecX& v) { return hAt(*m, State{0.0, s.r, v}); }, s.v, 1e-4);
    const double eR = test::blockRelativeError(Jr, fdR, 3, 3);
    const double eV = test::blockRelativeError(Jv, fdV, 3, 3);
    qInfo("%d modes: relative errors J_r %.2e, J_v %.2e", m->flexibleBodies[0].modes(), eR, eV);
    QVERIFY2(eR <= 1e-6, qPrintable(QString("J_r error %1").arg(eR)));
    QVERIFY2(eV <= 1e-6, qPrintable(QString("J_v error %1").arg(eV)));
    QVERIFY(!ws.h.tail(6 * m->flexibleBodies[0].modalSlots).isZero(0.0));
  }

  // Force and torque inputs on the bar: J_r, J_v and J_u against central differences (the loads'
  // modal forces and their columns through M0 M(q)^-1), and the values-only pass equal to the
  // full pass with them.
  void loadsOnAFlexibleBody() {
    VecX u;
    const auto m = SuspensionModel::build(loadedBar(u));
    const State s = movedState(*m, 1.0);
    Workspace ws(*m);
    linearize(*m, s, u, ws);
    QVERIFY((ws.h - hAt(*m, s)).norm() > 100.0);  // the loads act
    const MatX Jr = blockToDense(m->pattern, ws.Jr);
    const MatX Jv = blockToDense(m->pattern, ws.Jv);
    const MatX fdR = test::centralDifference([&](const VecX& r) { return hAt(*m, State{0.0, r, s.v}, u); }, s.r, 1e-7);
    const MatX fdV = test::centralDifference([&](const VecX& v) { return hAt(*m, State{0.0, s.r, v}, u); }, s.v, 1e-4);
    const MatX fdU = test::centralDifference([&](const VecX& x) { return hAt(*m, s, x); }, u, 1e-2);
    const MatX Ju = inputMatrix(*m, ws.Ju);
    const double eR = test::blockRelativeError(Jr, fdR, 3, 3);
    const double eV = test::blockRelativeError(Jv, fdV, 3, 3);
    const double eU = (Ju - fdU).norm() / fdU.norm();
    qInfo("loads on the bar: relative errors J_r %.2e, J_v %.2e, J_u %.2e", eR, eV, eU);
    QVERIFY2(eR <= 1e-6, qPrintable(QString("J_r error %1").arg(eR)));
    QVERIFY2(eV <= 1e-6, qPrintable(QString("J_v error %1").arg(eV)));
    QVERIFY2(eU <= 1e-8, qPrintable(QString("J_u error %1").arg(eU)));
    // Every load reaches the modal rows (a load at a node bends the bar).
    const ModelFlexibleBody& f = m->flexibleBodies[0];
    for (int k = 0; k < 4; ++k) QVERIFY(!Ju.col(k).segment(6 * f.firstModalSlot, f.modes()).isZero(1e-9));
    VecX h = VecX::Constant(m->nDof(), std::nan("")), rDot = h;
    Workspace values(*m);
    evaluateRhs(*m, s, u, VecX::Zero(u.size()), values, h, rDot);
    QVERIFY(h == ws.h);
  }

  // A rig body moved by motion inputs (a translation and a rotation) joined to the bar by a
  // bushing: J_r, J_v, J_u and J_udot against central differences.
  void drivenBodyJoinedToAFlexibleBody() {
    Project p = test::flexibleBar(8);
    test::addDrivenRig(p, Vec3(0.1, 0.0, 1.0), Vec3(0.1, 0.0, 0.2));
    BushingRow c = p.bushings.back();  // and one the other way round
    c.id = 6;
    c.name = "bar to rig";
    c.markerI = 30;
    c.markerJ = 13;
    p.bushings.push_back(c);
    InputRow turn = p.inputs.back();
    turn.id = 2;
    turn.name = "turn";
    turn.kind = InputKind::Rotation;
    turn.frame = InputFrame::Marker;
    turn.direction = Vec3::UnitX();
    p.inputs.push_back(turn);
    const auto m = SuspensionModel::build(p);
    const State s = movedState(*m, 1.0);
    const VecX u = Eigen::Vector2d(4e-3, 0.02), uDot = Eigen::Vector2d(0.3, -1.5);
    auto h = [&](const State& x, const VecX& a, const VecX& aDot) {
      Workspace w(*m);
      linearize(*m, x, a, aDot, w);
      return VecX(w.h);
    };
    Workspace ws(*m);
    linearize(*m, s, u, uDot, ws);
    const MatX fdR = test::centralDifference([&](const VecX& r) { return h(State{0.0, r, s.v}, u, uDot); }, s.r, 1e-7);
    const MatX fdV = test::centralDifference([&](const VecX& v) { return h(State{0.0, s.r, v}, u, uDot); }, s.v, 1e-4);
    const MatX fdU = test::centralDifference([&](const VecX& x) { return h(s, x, uDot); }, u, 1e-7);
    const MatX fdUd = test::centralDifference([&](const VecX& x) { return h(s, u, x); }, uDot, 1e-4);
    const double eR = test::blockRelativeError(blockToDense(m->pattern, ws.Jr), fdR, 3, 3);
    const double eV = test::blockRelativeError(blockToDense(m->pattern, ws.Jv), fdV, 3, 3);
    const MatX Ju = inputMatrix(*m, ws.Ju), Jud = inputMatrix(*m, ws.Judot);
    const double eU = (Ju - fdU).norm() / fdU.norm(), eUd = (Jud - fdUd).norm() / fdUd.norm();
    qInfo("rig body on the bar: relative errors J_r %.2e, J_v %.2e, J_u %.2e, J_udot %.2e", eR, eV, eU, eUd);
    QVERIFY2(eR <= 1e-6, qPrintable(QString("J_r error %1").arg(eR)));
    QVERIFY2(eV <= 1e-6, qPrintable(QString("J_v error %1").arg(eV)));
    QVERIFY2(eU <= 1e-6, qPrintable(QString("J_u error %1").arg(eU)));
    QVERIFY2(eUd <= 1e-6, qPrintable(QString("J_udot error %1").arg(eUd)));
    const ModelFlexibleBody& f = m->flexibleBodies[0];
    for (int k = 0; k < 2; ++k) QVERIFY(!Ju.col(k).segment(6 * f.firstModalSlot, f.modes()).isZero(1e-6));
  }

  // The values-only pass gives the full pass's h and wrenches bit for bit.
  void valuesOnlyPassEqualsTheFullPass() {
    const auto m = SuspensionModel::build(test::flexibleBar(8, true));
    const State s = movedState(*m, 3.0);
    Workspace full(*m), values(*m);
    linearize(*m, s, VecX::Zero(0), full);
    VecX h = VecX::Constant(m->nDof(), std::nan("")), rDot = h;
    evaluateRhs(*m, s, VecX::Zero(0), VecX::Zero(0), values, h, rDot);
    QVERIFY(h == full.h);
    for (int l = 0; l < m->nFreeBodies(); ++l) QVERIFY(values.wrench[l] == full.wrench[l]);
    const ModelFlexibleBody& f = m->flexibleBodies[0];
    QVERIFY(rDot.segment(6 * f.firstModalSlot, 6 * f.modalSlots) == s.v.segment(6 * f.firstModalSlot, 6 * f.modalSlots));
  }
};

QTEST_APPLESS_MAIN(TestFlexibleRows)
#include "tst_flexible_rows.moc"
