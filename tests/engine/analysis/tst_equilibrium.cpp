// SPDX-License-Identifier: GPL-3.0-or-later
// Static equilibrium against closed-form static deflections (DESIGN.md section 7).
#include <QtTest>

#include <cmath>

#include "engine/analysis/simulation.h"
#include "support/test_models.h"

using namespace ek;

class TestEquilibrium : public QObject {
  Q_OBJECT
 private slots:
  void staticDeflectionTranslational() {
    Project p = test::singleBushing(2.0, Vec3(0.01, 0.01, 0.01), 2e5, 50.0);
    LoadCaseRow lc;
    lc.name = "static";
    lc.duration = 0.01;
    p.loadCases.push_back(lc);
    Simulation sim(SuspensionModel::build(p), "static", RunOptions{});
    sim.initialize();
    const double z = sim.state().r[2], exact = -2.0 * 9.81 / 2e5;
    qInfo("static deflection %.10e m, m g / k = %.10e m, relative error %.2e", z, exact, std::abs(z / exact - 1));
    QVERIFY(std::abs(z / exact - 1) < 1e-6);
  }
  void staticDeflectionRotational() {
    // Centre of mass 0.2 m from the bushing along y: -kr phi - m g L cos(phi) = 0.
    const double m = 2.0, L = 0.2, kr = 500.0, g = 9.81;
    Project p = test::singleBushing(m, Vec3(0.05, 0.04, 0.03), 1e6, kr);
    p.bodies[1].com = Vec3(0, L, 0);
    LoadCaseRow lc;
    lc.name = "static";
    lc.duration = 0.01;
    p.loadCases.push_back(lc);
    Simulation sim(SuspensionModel::build(p), "static", RunOptions{});
    sim.initialize();
    double phi = 0.0;
    for (int k = 0; k < 50; ++k) phi -= (-kr * phi - m * g * L * std::cos(phi)) / (-kr + m * g * L * std::sin(phi));
    const double got = sim.state().r[5];
    qInfo("static roll %.10e rad, exact %.10e rad, relative error %.2e", got, phi, std::abs(got / phi - 1));
    QVERIFY(std::abs(got / phi - 1) < 1e-6);
  }
};

QTEST_APPLESS_MAIN(TestEquilibrium)
#include "tst_equilibrium.moc"
