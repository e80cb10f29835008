// SPDX-License-Identifier: GPL-3.0-or-later
// BDF2 with a fixed number of Newton iterations (paper 004): second order on a smooth nonlinear
// problem (also with the Jacobian of every 4th step), L-stable damping of a stiff oscillator, and
// the same cost in every step.
#include <QtTest>

#include <cmath>

#include "engine/analysis/simulation.h"
#include "engine/integrators/bdf2.h"
#include "engine/model/project_io.h"
#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

double errorAt(double dt, int linEvery, const State& ref) { return test::spinningBodyErrors("bdf2", dt, linEvery, ref).r; }

}  // namespace

class TestBdf2 : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { ref_ = test::spinningBodyReference(); }

  void secondOrder() {
    for (int linEvery : {1, 4}) {
      const double e2 = errorAt(2e-3, linEvery, ref_), e1 = errorAt(1e-3, linEvery, ref_),
                   e05 = errorAt(5e-4, linEvery, ref_);
      qInfo("lin-every %d: errors in r %.3e %.3e %.3e (orders %.2f %.2f)", linEvery, e2, e1, e05, std::log2(e2 / e1),
            std::log2(e1 / e05));
      QVERIFY(std::log2(e1 / e05) > 1.8 && std::log2(e1 / e05) < 2.3);
    }
  }

  // Every step costs the same: 2 right-hand side evaluations (the linearization at the predictor
  // counting as one) and 2 solves, one factorization per linearization; at rest and across the
  // LC1 load step of the double wishbone. The first step adds the evaluation for y_-1.
  void costPerStepDoesNotDependOnTheState() {
    const std::string dw = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json";
    for (int linEvery : {1, 3}) {
      // At rest, and over the load step at 5 s.
      const test::StepCounts rest = test::countsOnLc1<Bdf2>(dw, "bdf2", linEvery, 1.0, 30);
      const test::StepCounts step = test::countsOnLc1<Bdf2>(dw, "bdf2", linEvery, 4.995, 30);
      QCOMPARE(rest.evaluations, 30LL * 2 + 1);
      QCOMPARE(rest.factorizations, 30LL / linEvery);
      QCOMPARE(rest.solves, 30LL * 2);
      QVERIFY(step == rest);
    }
  }

  // L-stable: on the stiff oscillator (omega dt = 15.8 at 5 ms) bounded by the start and decaying.
  void stiffOscillatorBoundedAndDecays() {
    for (const char* method : {"bdf2"}) {
      const test::StiffDecay d = test::stiffOscillatorDecay(method);
      qInfo("%s: max |x| %.3e, |x| after 5 steps %.3e, final %.3e", method, d.maxAbs, d.after5, d.final);
      QVERIFY(d.maxAbs <= 1e-3 * (1 + 1e-12));
      QVERIFY(d.after5 < 1e-4);
      QVERIFY(d.final < 1e-12);
    }
  }

 private:
  State ref_;
};

QTEST_GUILESS_MAIN(TestBdf2)
#include "tst_bdf2.moc"
