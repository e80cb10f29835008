// SPDX-License-Identifier: GPL-3.0-or-later
// Static equilibrium against closed-form static deflections (DESIGN.md section 7), on a double
// wishbone corner with ideal joints (stiff bushings) far from its modelled pose against a damped
// dynamic settle, and the messages when there is no equilibrium.
#include <QtTest>

#include <cmath>

#include "engine/analysis/equilibrium.h"
#include "engine/analysis/simulation.h"
#include "engine/core/error.h"
#include "engine/model/project_io.h"
#include "support/test_models.h"

using namespace ek;

namespace {

/// The quarter double wishbone with its joints made ideal: every translational stiffness k,
/// the wheel bearing's tilt stiffness kr, all other rotations free (ball joints; two pivots
/// of a wishbone form its hinge). A constant vertical wheel force fz, no stops when asked; with
/// `damped`, every bushing damps with a time constant of 10 ms (for the dynamic settle).
Project idealJointCorner(double k, double kr, double fz, bool stops, bool damped) {
  Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/quarter_double_wishbone.json");
  for (BushingRow& b : p.bushings) {
    const bool bearing = b.name.find("bearing") != std::string::npos;
    for (int d = 0; d < 6; ++d) {
      const double stiffness = d < 3 ? k : (bearing && d > 3 ? kr : 0.0);
      b.directions[d].stiffness = LawRow{stiffness, {}};
      b.directions[d].damping = LawRow{damped ? 1e-2 * stiffness : 0.0, {}};
    }
  }
  if (!stops) std::erase_if(p.p2ps, [](const P2PRow& e) { return e.name.find("stop") != std::string::npos; });
  LoadCaseRow lc;
  lc.name = "corner";
  lc.duration = 8.0;
  lc.initialState = InitialState::AsModelled;
  SignalRow f;
  f.type = SignalType::Constant;
  f.value = fz;
  lc.drives.push_back({2, f});  // input 2: Fz at the wheel centre
  p.loadCases = {lc};
  return p;
}

}  // namespace

class TestEquilibrium : public QObject {
  Q_OBJECT
 private slots:
  // Joints of 1e5 to 1e10 N/m (rotational 1e4 to 1e9 N m/rad), equilibrium 0.1 m (bump stop
  // on) and about 0.15 m (no stops) above the modelled pose: the equilibrium converges and is
  // the pose a damped dynamic settle (LSRT2, 8 s) ends in.
  void idealJointsFarFromTheModelledPose_data() {
    QTest::addColumn<double>("k");
    QTest::addColumn<double>("fz");
    QTest::addColumn<bool>("stops");
    for (double k : {1e5, 1e6, 1e7, 1e8, 1e9, 1e10}) {
      QTest::addRow("k %.0e, 0.1 m", k) << k << 8000.0 << true;
      // The softest joints add 0.1 m of their own compliance at 8.5 kN: less load for them.
      QTest::addRow("k %.0e, 0.15 m", k) << k << (k < 1e6 ? 6500.0 : 8500.0) << false;
    }
  }
  void idealJointsFarFromTheModelledPose() {
    QFETCH(double, k);
    QFETCH(double, fz);
    QFETCH(bool, stops);
    const auto model = SuspensionModel::build(idealJointCorner(k, k / 10, fz, stops, false));
    State s;
    model->initialState(s.r, s.v);
    const double z0 = s.r[2];  // wheel mount (body 1, the first free body)
    VecX u = VecX::Zero(model->nInputs());
    u[model->inputById(2)] = fz;
    Workspace ws(*model);
    const EquilibriumResult eq = solveEquilibrium(*model, u, s, ws);
    const double travel = s.r[2] - z0;
    qInfo("k = %.0e N/m: %d iterations, residual %.1e, wheel mount %.4f m above the modelled pose", k, eq.iterations,
          eq.residual, travel);
    // At least the travel of ideal joints (0.099 m, 0.148 m); softer joints add their compliance.
    QVERIFY(travel > (stops ? 0.098 : 0.147));
    // The damped dynamic settle from the modelled pose.
    const auto damped = SuspensionModel::build(idealJointCorner(k, k / 10, fz, stops, true));
    Simulation sim(damped, "corner", RunOptions{});
    sim.run();
    double worst = 0.0;
    for (int l = 0; l < model->nFreeBodies(); ++l) {
      const ModelBody& b = model->bodies[model->freeBodies[l]];
      if (b.name.find("wheel left") == 0) continue;  // its spin about the axle is free
      worst = std::max(worst, (sim.state().r.segment<3>(6 * l) - s.r.segment<3>(6 * l)).norm());
    }
    qInfo("  settled pose differs by %.2e m (speed left %.1e m/s)", worst, sim.state().v.norm());
    QVERIFY2(worst < 1e-5, qPrintable(QString("settle and equilibrium differ by %1 m").arg(worst)));
  }

  // A body on a bushing without stiffness has no equilibrium: the message names the body, the
  // element and the cause.
  void noEquilibriumNamesBodyElementAndCause() {
    Project p = test::singleBushing(2.0, Vec3(0.01, 0.01, 0.01), 0.0, 0.0);
    p.bodies[1].name = "carrier";
    p.bushings[0].name = "loose";
    const auto model = SuspensionModel::build(p);
    State s;
    model->initialState(s.r, s.v);
    Workspace ws(*model);
    try {
      solveEquilibrium(*model, VecX::Zero(0), s, ws);
      QFAIL("no error");
    } catch (const SimulationError& e) {
      const QString msg = e.what();
      qInfo("%s", e.what());
      QVERIFY2(msg.contains("body 1 ('carrier')") && msg.contains("bushing 1 ('loose')") &&
                   msg.contains("likely cause: an element on it has no stiffness in any direction"),
               e.what());
    }
  }

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
