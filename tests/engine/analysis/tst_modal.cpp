// SPDX-License-Identifier: GPL-3.0-or-later
// Modal analysis: the undamped eigenfrequencies of a body on a bushing, and a clear error (not
// "-nan") when the linearization is not finite.
#include <QtTest>

#include <cmath>

#include "engine/analysis/modal.h"
#include "engine/core/error.h"
#include "support/test_models.h"

using namespace ek;

class TestModal : public QObject {
  Q_OBJECT
 private slots:
  void singleBodyFrequencies() {
    // m = 2 kg, k = 2e5 N/m in x, y, z: three modes at sqrt(k/m) / 2 pi = 50.33 Hz.
    Project p = test::singleBushing(2.0, Vec3(0.05, 0.04, 0.03), 2e5, 500.0);
    p.gravity.setZero();
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    const ModalReport rep = analyzeModes(*m, s, VecX::Zero(0));
    const double f = std::sqrt(2e5 / 2.0) / (2 * M_PI);
    int found = 0;
    for (double fk : rep.undampedFrequencies) found += std::abs(fk / f - 1) < 1e-9;
    QCOMPARE(found, 3);
    QVERIFY(rep.stiffnessRatio > 1.0);
  }

  void nonFiniteLinearizationIsAnError() {
    Project p = test::singleBushing(2.0, Vec3(0.05, 0.04, 0.03), 2e5, 500.0);
    p.bodies[1].name = "carrier";
    p.inputs.push_back({1, "push", 2, InputKind::Force, InputFrame::Marker, Vec3(1e300, 0, 0)});
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    try {
      analyzeModes(*m, s, VecX::Constant(1, 1e300));
      QFAIL("no error");
    } catch (const SimulationError& e) {
      QVERIFY2(QString(e.what()).contains("not finite (NaN or Inf) in the equations of body 1 ('carrier')"), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestModal)
#include "tst_modal.moc"
