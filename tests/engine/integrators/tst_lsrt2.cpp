// SPDX-License-Identifier: GPL-3.0-or-later
// LSRT2 (paper 003 eqs. 10-17): order 2 on a smooth nonlinear problem, L-stable damping of a
// stiff oscillator, and the effect of the d(Kv)/dr term for rotating bodies.
#include <QtTest>

#include <cmath>

#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

struct Errors {
  double r, v;
};
Errors errorsAt(double dt, const State& ref, bool kinDeriv) {
  const auto sim = test::runProject(test::spinningBody(), "free", dt, 1, kinDeriv);
  return {(sim->state().r - ref.r).norm(), (sim->state().v - ref.v).norm()};
}

}  // namespace

class TestLsrt2 : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { ref_ = test::runProject(test::spinningBody(), "free", 1e-5)->state(); }

  void secondOrderConvergence() {
    const Errors e4 = errorsAt(4e-3, ref_, true), e2 = errorsAt(2e-3, ref_, true), e1 = errorsAt(1e-3, ref_, true);
    const double orderR = std::log2(e2.r / e1.r), orderV = std::log2(e2.v / e1.v);
    qInfo("errors in r: %.3e %.3e %.3e (ratios %.2f %.2f); in v: %.3e %.3e %.3e (ratios %.2f %.2f)", e4.r, e2.r, e1.r,
          e4.r / e2.r, e2.r / e1.r, e4.v, e2.v, e1.v, e4.v / e2.v, e2.v / e1.v);
    QVERIFY2(orderR > 1.8 && orderR < 2.3, qPrintable(QString("order in r: %1").arg(orderR)));
    QVERIFY2(orderV > 1.8 && orderV < 2.3, qPrintable(QString("order in v: %1").arg(orderV)));
  }

  // The papers' frozen K_lin drops d(K v)/dr: first order once bodies rotate.
  void frozenKinematicsIsFirstOrderForRotation() {
    const Errors e2 = errorsAt(2e-3, ref_, false), e1 = errorsAt(1e-3, ref_, false);
    const Errors n1 = errorsAt(1e-3, ref_, true);
    const double order = std::log2(e2.r / e1.r);
    qInfo("frozen K: errors in r %.3e %.3e (order %.2f); with d(Kv)/dr at 1 ms: %.3e", e2.r, e1.r, order, n1.r);
    QVERIFY(order < 1.5);
    QVERIFY(n1.r < e1.r);
  }

  void stiffOscillatorBoundedAndDecays() {
    const test::StiffDecay d = test::stiffOscillatorDecay("lsrt2");  // omega dt = 15.8 at dt = 5 ms
    qInfo("stiff oscillator: max |x| %.3e, |x| after 5 steps %.3e, final %.3e", d.maxAbs, d.after5, d.final);
    QVERIFY(d.maxAbs <= 1e-3 * (1 + 1e-12));
    QVERIFY(d.after5 < 1e-4);
    QVERIFY(d.final < 1e-12);
  }

  void linearizeEveryNthStepStillConverges() {
    const auto a = test::runProject(test::spinningBody(), "free", 1e-3, 2);
    const auto b = test::runProject(test::spinningBody(), "free", 5e-4, 4);
    const double ea = (a->state().r - ref_.r).norm(), eb = (b->state().r - ref_.r).norm();
    qInfo("linearized every 2 ms: error %.3e at dt = 1 ms, %.3e at dt = 0.5 ms", ea, eb);
    QVERIFY(ea < 1e-3);
    QVERIFY(eb < 1e-3);
  }

 private:
  State ref_;
};

QTEST_APPLESS_MAIN(TestLsrt2)
#include "tst_lsrt2.moc"
