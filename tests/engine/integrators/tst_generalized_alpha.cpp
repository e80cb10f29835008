// SPDX-License-Identifier: GPL-3.0-or-later
// Generalized-alpha (Chung-Hulbert / Arnold-Bruls, rotations on the rotation group): second order
// on a smooth nonlinear problem, also with the iteration matrix of the first step only (paper
// 002); a stiff oscillator step by step as the scheme's recurrence, its high frequency damped;
// the same cost in every step.
#include <QtTest>

#include <cmath>

#include "engine/analysis/simulation.h"
#include "engine/integrators/generalized_alpha.h"
#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

double errorAt(const std::string& method, double dt, const State& ref) {
  return test::spinningBodyErrors(method, dt, 1, ref).r;
}

}  // namespace

class TestGeneralizedAlpha : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { ref_ = test::spinningBodyReference(); }

  void secondOrder() {
    for (const char* method : {"galpha", "galpha-frozen"}) {
      const double e2 = errorAt(method, 2e-3, ref_), e1 = errorAt(method, 1e-3, ref_), e05 = errorAt(method, 5e-4, ref_);
      qInfo("%s: errors in r %.3e %.3e %.3e (orders %.2f %.2f)", method, e2, e1, e05, std::log2(e2 / e1),
            std::log2(e1 / e05));
      QVERIFY2(std::log2(e1 / e05) > 1.8 && std::log2(e1 / e05) < 2.3, method);
    }
  }

  // A stiff undamped oscillator (k = 1e10 N/m on 1 kg, omega h = 100 at 1 ms): the engine's
  // samples are those of the scheme's scalar recurrence for q'' = -omega^2 q (the Newton
  // iterations solve the linear problem exactly), and the high frequency is damped (the
  // trapezoidal rule, rho_inf = 1, would keep the amplitude).
  void stiffOscillatorFollowsTheSchemeAndIsDamped() {
    Project p = test::singleBushing(1.0, Vec3(1.0, 1.0, 1.0), 1e10, 1e10);
    p.gravity.setZero();
    p.bodies[1].position = Vec3(1e-3, 0.0, 0.0);  // 1 mm off the bushing's rest position
    p.outputs.push_back({"x", OutputQuantity::MarkerPosition, 2, "x"});
    test::addFreeLoadCase(p, 0.03);
    RunOptions o;
    o.integrator = "galpha";
    const auto sim = test::runProject(p, "free", o);
    QCOMPARE(QString::fromStdString(sim->results().channels()[0].name), QString("x"));
    const std::vector<double> x = sim->results().series(0);
    // The recurrence, rho_inf = 0.9.
    const double rho = 0.9, am = (2 * rho - 1) / (rho + 1), af = rho / (rho + 1), g = 0.5 + af - am,
                 b = 0.25 * (g + 0.5) * (g + 0.5), h = 1e-3, w2 = 1e10;
    double q = 1e-3, v = 0.0, qdd = -w2 * q, a = qdd, worst = 0.0;
    for (std::size_t k = 1; k < x.size(); ++k) {
      const double c0 = q + h * v + h * h * (0.5 - b) * a, c1 = h * h * b;
      const double an = -(w2 * c0 + (am * a - af * qdd) / (1 - af)) / ((1 - am) / (1 - af) + w2 * c1);
      const double qn = c0 + c1 * an, vn = v + h * (1 - g) * a + h * g * an;
      qdd = ((1 - am) * an + am * a - af * qdd) / (1 - af);
      q = qn, v = vn, a = an;
      worst = std::max(worst, std::abs(x[k] - q));
    }
    qInfo("largest difference to the recurrence over %zu steps: %.3e m; |x| %.3e -> %.3e", x.size() - 1, worst,
          std::abs(x[0]), std::abs(x.back()));
    QVERIFY(worst < 1e-12);
    QVERIFY(std::abs(x.back()) < 0.5 * std::abs(x[0]));
  }

  void costPerStepDoesNotDependOnTheState() {
    const std::string dw = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json";
    for (int linEvery : {1, 3}) {
      const test::StepCounts rest = test::countsOnLc1<GeneralizedAlpha>(dw, "galpha", linEvery, 1.0, 30);
      const test::StepCounts step = test::countsOnLc1<GeneralizedAlpha>(dw, "galpha", linEvery, 4.995, 30);
      QCOMPARE(rest.evaluations, 30LL * 2 + 1);
      QCOMPARE(rest.factorizations, 30LL / linEvery);
      QCOMPARE(rest.solves, 30LL * 2);
      QVERIFY(step == rest);
    }
    const test::StepCounts frozen = test::countsOnLc1<GeneralizedAlpha>(dw, "galpha-frozen", 1, 4.995, 30);
    QCOMPARE(frozen.factorizations, 1LL);
    QCOMPARE(frozen.evaluations, 30LL * 2 + 1);
  }

 private:
  State ref_;
};

QTEST_GUILESS_MAIN(TestGeneralizedAlpha)
#include "tst_generalized_alpha.moc"
