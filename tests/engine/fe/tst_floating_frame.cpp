// SPDX-License-Identifier: GPL-3.0-or-later
// The floating-frame data of a flexible body (engine/fe/floating_frame.h): mass, centre of mass
// and inertia against a bar's closed form, modes that neither move the centre of mass nor carry
// angular momentum at rest, and the inertia invariants against J(q), C(q) evaluated from the
// finite-element model itself.
#include <QtTest>

#include <cmath>
#include <random>

#include "engine/fe/floating_frame.h"
#include "support/beams.h"

using namespace ek;
using namespace ek::fe;

namespace {

using test::steel;
using test::tube;

BeamMesh bentBar(int perSegment) { return test::bentBar(perSegment, steel(), tube(0.022, 0.003)); }

// J(q) and C(q) from the invariants, as the equations of motion take them.
void fromInvariants(const ModalBody& b, const VecX& q, Mat3& J, Mat3X& C) {
  const int n = b.modes();
  J = b.inertia;
  C = Mat3X::Zero(3, n);
  for (int k = 0; k < n; ++k) {
    J += q[k] * (b.G[k] + b.G[k].transpose());
    for (int l = 0; l < n; ++l) J += q[k] * q[l] * b.h(k, l);
    C += q[k] * b.E[k];
  }
}

}  // namespace

class TestFloatingFrame : public QObject {
  Q_OBJECT
 private slots:
  void massCentreAndInertiaOfABar();
  void modesMoveNeitherCentreNorMomentum();
  void invariantsEqualTheFiniteElementModel();
  void pointsFollowTheirNode();
  void badInterfaceIsRefused();
};

void TestFloatingFrame::massCentreAndInertiaOfABar() {
  // A straight tube from (0.2, 0.1, 0) along x: m = rho A L, centre in the middle,
  // I_xx = rho (Iy + Iz) L, I_yy = I_zz = m L^2 / 12 + rho I L.
  BeamMesh mesh;
  const int n = 10;
  const double L = 0.8;
  const BeamSection s = tube(0.03, 0.004);
  for (int i = 0; i <= n; ++i) mesh.nodes.push_back(Vec3(0.2 + L * i / n, 0.1, 0));
  for (int i = 0; i < n; ++i) mesh.elements.push_back({i, i + 1, Vec3::UnitZ(), s, steel()});
  const ModalBody b = floatingFrameBody(mesh, {0, n}, {4, 0.0});
  const double rho = steel().density, m = rho * s.area * L;
  QVERIFY(std::abs(b.mass - m) < 1e-12 * m);
  QVERIFY((b.centre - Vec3(0.2 + L / 2, 0.1, 0)).norm() < 1e-12);
  Mat3 J = Mat3::Zero();
  J(0, 0) = rho * (s.iy + s.iz) * L;
  J(1, 1) = J(2, 2) = m * L * L / 12 + rho * s.iy * L;
  QVERIFY2((b.inertia - J).norm() < 1e-12 * J.norm(), qPrintable(QString::number((b.inertia - J).norm() / J.norm())));
  // Two interface nodes (12 dofs) + 4 fixed-interface modes - 6 rigid motions.
  QCOMPARE(b.modes(), 10);
  QVERIFY(b.frequencies[0] > 0);
}

void TestFloatingFrame::modesMoveNeitherCentreNorMomentum() {
  const BeamMesh mesh = bentBar(6);
  const BeamMatrices fem = assemble(mesh);
  const ModalBody b = floatingFrameBody(mesh, {0, 6, 12, 18}, {6, 0.0});
  QCOMPARE(b.modes(), 24);
  const MatX rigid = rigidBodyModes(b.nodes, b.dofs);
  const MatX coupling = rigid.transpose() * (fem.mass * b.shapes);
  const double scale = std::sqrt(b.mass);  // unit modal mass against the body's
  qInfo("|Rt^T M Phi| = %.2e, |Rrot^T M Phi| = %.2e (of sqrt(m) = %.3f)", coupling.topRows<3>().norm(),
        coupling.bottomRows<3>().norm(), scale);
  QVERIFY(coupling.topRows<3>().norm() < 1e-10 * scale);
  QVERIFY(coupling.bottomRows<3>().norm() < 1e-10 * scale);
  // Mass-normalized and diagonal in the stiffness.
  const MatX MPhi = b.shapes.transpose() * (fem.mass * b.shapes);
  const MatX KPhi = b.shapes.transpose() * (fem.stiffness * b.shapes);
  QVERIFY((MPhi - MatX::Identity(24, 24)).norm() < 1e-9);
  const MatX Lambda = b.stiffness.asDiagonal();
  QVERIFY((KPhi - Lambda).norm() < 1e-9 * b.stiffness.maxCoeff());
}

void TestFloatingFrame::invariantsEqualTheFiniteElementModel() {
  const BeamMesh mesh = bentBar(6);
  const BeamMatrices fem = assemble(mesh);
  const ModalBody b = floatingFrameBody(mesh, {0, 9, 18}, {5, 0.0});
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  double worstJ = 0, worstC = 0, shareJ = 0;
  for (int trial = 0; trial < 5; ++trial) {
    // Modal coordinates of a deformation of some centimetres (unit modal mass: q ~ sqrt(m) x).
    VecX q(b.modes());
    for (int k = 0; k < q.size(); ++k) q[k] = 0.05 * std::sqrt(b.mass) * u(rng);
    Mat3 J, Jd;
    Mat3X C, Cd;
    fromInvariants(b, q, J, C);
    directInertia(b, fem.mass, q, Jd, Cd);
    worstJ = std::max(worstJ, (J - Jd).norm() / Jd.norm());
    worstC = std::max(worstC, (C - Cd).norm() / Cd.norm());
    shareJ = std::max(shareJ, (Jd - b.inertia).norm() / b.inertia.norm());
  }
  qInfo("J(q): %.2e, C(q): %.2e relative to the model; J(q) - J0 is %.1f %% of J0", worstJ, worstC, 100 * shareJ);
  QVERIFY(shareJ > 1e-3);  // the deformation changes the inertia visibly: the check has something to check
  QVERIFY(worstJ < 1e-12);
  QVERIFY(worstC < 1e-12);
}

void TestFloatingFrame::pointsFollowTheirNode() {
  // A point offset from a node moves with the node's translation and rotation:
  // T = T_i - [d]x R_i, the same as the mode shapes at the next node for a rigid segment, to
  // first order; checked against the definition on every mode.
  const BeamMesh mesh = bentBar(4);
  const ModalBody b = floatingFrameBody(mesh, {0, 12}, {3, 0.0});
  const Vec3 d(0.01, -0.02, 0.03);
  const PointShape p = pointShape(b, 5, d);
  QVERIFY((p.position - (b.nodes[5] + d)).norm() < 1e-15);
  for (int k = 0; k < b.modes(); ++k) {
    const Vec3 t = b.translation(5).col(k), r = b.rotation(5).col(k);
    QVERIFY((Vec3(p.translation.col(k)) - (t + r.cross(d))).norm() < 1e-14 * (t.norm() + r.norm()));
    QVERIFY((Vec3(p.rotation.col(k)) - r).norm() == 0);
  }
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pointShape(b, 99, d));
}

void TestFloatingFrame::badInterfaceIsRefused() {
  const BeamMesh mesh = bentBar(2);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, floatingFrameBody(mesh, {0, 42}, {2, 0.0}));
}

QTEST_APPLESS_MAIN(TestFloatingFrame)
#include "tst_floating_frame.moc"
