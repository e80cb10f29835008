// SPDX-License-Identifier: GPL-3.0-or-later
// The assembled linearization (paper 003 eqs. 8-9) against central finite differences of h:
// J_r, J_v, J_u and N = d(K(r) v)/dr, on random topologies at random non-trivial states.
#include <QtTest>

#include "engine/core/rotation.h"
#include "engine/dynamics/linearize.h"
#include "support/fd.h"
#include "support/test_models.h"

using namespace ek;

namespace {

struct Fixture {
  std::shared_ptr<const SuspensionModel> model;
  State state;
  VecX u;
};

Fixture make(unsigned seed, int nFree, int nB, int nP, bool ground) {
  Fixture f;
  f.model = SuspensionModel::build(test::randomProject(seed, nFree, nB, nP, ground));
  f.model->initialState(f.state.r, f.state.v);
  f.u = VecX::Random(f.model->nInputs()) * 300.0;
  return f;
}

VecX evalH(const SuspensionModel& m, const State& s, const VecX& u) {
  Workspace ws(m);
  linearize(m, s, u, ws);
  return ws.h;
}

}  // namespace

class TestLinearize : public QObject {
  Q_OBJECT
 private slots:
  void jacobians_data() {
    QTest::addColumn<unsigned>("seed");
    QTest::addColumn<int>("nFree");
    QTest::addColumn<int>("nBushings");
    QTest::addColumn<int>("nP2P");
    QTest::addColumn<bool>("ground");
    QTest::newRow("chain of 3, grounded") << 1u << 3 << 4 << 2 << true;
    QTest::newRow("6 bodies, grounded") << 7u << 6 << 9 << 4 << true;
    QTest::newRow("5 bodies, free floating") << 11u << 5 << 6 << 3 << false;
    QTest::newRow("10 bodies, grounded") << 23u << 10 << 16 << 5 << true;
  }
  void jacobians() {
    QFETCH(unsigned, seed);
    QFETCH(int, nFree);
    QFETCH(int, nBushings);
    QFETCH(int, nP2P);
    QFETCH(bool, ground);
    const Fixture f = make(seed, nFree, nBushings, nP2P, ground);
    const SuspensionModel& m = *f.model;
    Workspace ws(m);
    linearize(m, f.state, f.u, ws);

    const MatX Jr = blockToDense(m.pattern, ws.Jr);
    const MatX Jv = blockToDense(m.pattern, ws.Jv);
    const MatX fdR = test::centralDifference(
        [&](const VecX& r) { return evalH(m, State{0.0, r, f.state.v}, f.u); }, f.state.r, 1e-6);
    const MatX fdV = test::centralDifference(
        [&](const VecX& v) { return evalH(m, State{0.0, f.state.r, v}, f.u); }, f.state.v, 1e-5);
    const MatX fdU = test::centralDifference([&](const VecX& u) { return evalH(m, f.state, u); }, f.u, 1e-3);
    const double eR = test::blockRelativeError(Jr, fdR, 3, 3);
    const double eV = test::blockRelativeError(Jv, fdV, 3, 3);
    const double eU = test::blockRelativeError(ws.Ju, fdU, 3, 1);
    qInfo("relative errors: J_r %.2e, J_v %.2e, J_u %.2e", eR, eV, eU);
    QVERIFY2(eR <= 1e-6, qPrintable(QString("J_r error %1").arg(eR)));
    QVERIFY2(eV <= 1e-6, qPrintable(QString("J_v error %1").arg(eV)));
    QVERIFY2(eU <= 1e-6, qPrintable(QString("J_u error %1").arg(eU)));

    // The pattern is complete: blocks outside it are zero in the finite differences too.
    const MatX outside = (fdR - Jr).cwiseAbs();
    QVERIFY(outside.maxCoeff() <= 1e-6 * fdR.cwiseAbs().maxCoeff());
  }

  void kinematicsMatrixDerivative() {
    const Fixture f = make(5, 4, 5, 2, true);
    const SuspensionModel& m = *f.model;
    Workspace ws(m);
    linearize(m, f.state, f.u, ws);
    auto Kv = [&](const VecX& r) {
      VecX out(r.size());
      for (int l = 0; l < m.nFreeBodies(); ++l) {
        out.segment<3>(6 * l) = f.state.v.segment<3>(6 * l);
        out.segment<3>(6 * l + 3) = rotation::bodyToRate(r.segment<3>(6 * l + 3)) * f.state.v.segment<3>(6 * l + 3);
      }
      return out;
    };
    const MatX fd = test::centralDifference(Kv, f.state.r, 1e-6);
    for (int l = 0; l < m.nFreeBodies(); ++l) {
      const Mat3 fdN = fd.block<3, 3>(6 * l + 3, 6 * l + 3);
      const double e = (ws.N[l] - fdN).cwiseAbs().maxCoeff() / fdN.cwiseAbs().maxCoeff();
      QVERIFY2(e <= 1e-6, qPrintable(QString("N of body %1: %2").arg(l).arg(e)));
      QVERIFY((ws.Kinv[l] - rotation::bodyToRate(f.state.r.segment<3>(6 * l + 3))).norm() < 1e-14);
    }
  }

  void gravityAndInputsAreInH() {
    // One free body, no force elements: h = (m g + F, ...) exactly.
    Project p = test::singleBushing(3.0, Vec3(0.1, 0.2, 0.25), 0.0, 0.0);
    p.gravity = Vec3(0, 0, -9.81);
    p.inputs.push_back({1, "F", 2, InputKind::Force, InputFrame::Global, Vec3(1, 0, 0)});
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    Workspace ws(*m);
    VecX u(1);
    u << 250.0;
    linearize(*m, s, u, ws);
    QCOMPARE(ws.h[0], 250.0);
    QCOMPARE(ws.h[2], 3.0 * -9.81);
  }
};

QTEST_APPLESS_MAIN(TestLinearize)
#include "tst_linearize.moc"
