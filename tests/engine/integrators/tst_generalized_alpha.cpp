// SPDX-License-Identifier: GPL-3.0-or-later
// Generalized-alpha (Chung-Hulbert / Arnold-Bruls, rotations on the rotation group): second order
// on a smooth nonlinear problem, also with the iteration matrix of the first step only (paper
// 002); the stiff oscillator step by step as the scheme's recurrence at two spectral radii;
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

  // The stiff oscillator (k = 1e7 N/m, m = 1 kg, dt = 5 ms: omega h = 15.8) at two spectral
  // radii: the engine's samples are those of the scheme's scalar recurrence for
  // q'' = -omega^2 q (the Newton iterations solve the linear problem exactly), so the damping is
  // the parameters' own; the smaller rho_inf damps faster, and both decay.
  void stiffOscillatorDampsByItsSpectralRadius() {
    double last[2];
    int k = 0;
    for (double rho : {0.9, 0.5}) {
      RunOptions o;
      o.integrator = "galpha";
      o.dt = 5e-3;
      o.rhoInfinity = rho;
      const auto sim = test::runProject(test::stiffOscillator(0.25), "free", o);
      const std::vector<double> x = sim->results().series(0);
      const double am = (2 * rho - 1) / (rho + 1), af = rho / (rho + 1), g = 0.5 + af - am,
                   b = 0.25 * (g + 0.5) * (g + 0.5), h = o.dt, w2 = 1e7;
      double q = 1e-3, v = 0.0, qdd = -w2 * q, a = qdd, worst = 0.0;
      for (std::size_t i = 1; i < x.size(); ++i) {
        const double c0 = q + h * v + h * h * (0.5 - b) * a, c1 = h * h * b;
        const double an = -(w2 * c0 + (am * a - af * qdd) / (1 - af)) / ((1 - am) / (1 - af) + w2 * c1);
        const double qn = c0 + c1 * an, vn = v + h * (1 - g) * a + h * g * an;
        qdd = ((1 - am) * an + am * a - af * qdd) / (1 - af);
        q = qn, v = vn, a = an;
        worst = std::max(worst, std::abs(x[i] - q));
      }
      last[k++] = std::abs(x.back());
      qInfo("rho_inf %.1f: largest difference to the recurrence over %zu steps %.3e m; |x| 1e-3 -> %.3e m", rho,
            x.size() - 1, worst, std::abs(x.back()));
      QVERIFY(worst < 1e-12);
      QVERIFY(std::abs(x.back()) < 0.1 * std::abs(x[0]));
    }
    QVERIFY(last[1] < 0.01 * last[0]);
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
