// SPDX-License-Identifier: GPL-3.0-or-later
// The W-methods (linear-implicit Euler, ROS34PW2): the tableau's order conditions and
// L-stability, the convergence order on a smooth nonlinear problem with the Jacobian fresh and
// outdated (--lin-every), the right-hand side without partials equal to the linearization's, and
// the cost per step (evaluations, factorizations, solves) independent of the state.
#include <QtTest>

#include <cmath>
#include <complex>

#include "engine/analysis/simulation.h"
#include "engine/dynamics/linearize.h"
#include "engine/model/project_io.h"
#include "engine/integrators/rosenbrock_w.h"
#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

using Errors = test::StateErrors;

Errors errorsAt(const std::string& method, double dt, int linEvery, const State& ref) {
  return test::spinningBodyErrors(method, dt, linEvery, ref);
}

double order(const Errors& coarse, const Errors& fine) { return std::log2(coarse.r / fine.r); }

}  // namespace

class TestRosenbrockW : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { ref_ = test::spinningBodyReference(); }

  void rhsEqualsTheLinearizations() {
    for (unsigned seed : {3u, 11u}) {
      const Project p = test::randomProject(seed, 4, 5, 3);
      const auto model = SuspensionModel::build(p);
      Workspace ws(*model), ws2(*model);
      State s;
      model->initialState(s.r, s.v);
      const VecX u = VecX::Random(model->nInputs()), ud = VecX::Zero(model->nInputs());
      linearize(*model, s, u, ud, ws);
      VecX h(model->nDof()), rDot(model->nDof());
      evaluateRhs(*model, s, u, ud, ws2, h, rDot);
      QVERIFY((h - ws.h).cwiseAbs().maxCoeff() <= 1e-14 * ws.h.cwiseAbs().maxCoeff());
      for (int l = 0; l < model->nFreeBodies(); ++l) {
        QCOMPARE((rDot.segment<3>(6 * l) - s.v.segment<3>(6 * l)).norm(), 0.0);
        QVERIFY((rDot.segment<3>(6 * l + 3) - ws.Kinv[l] * s.v.segment<3>(6 * l + 3)).norm() <=
                1e-15 * (1 + s.v.norm()));
      }
    }
  }

  // The classical order conditions of a Rosenbrock method up to the method's order, the W-method
  // conditions of order 2, the embedded solution's order 2, L-stability.
  void tableauOrderConditionsAndLStability() {
    for (const WTableau* t : {&linearImplicitEulerTableau(), &ros34pw2Tableau()}) {
      const int s = t->stages;
      auto al = [&](int i, int j) { return t->alpha[i * s + j]; };
      auto be = [&](int i, int j) { return t->alpha[i * s + j] + (j < i ? t->gammas[i * s + j] : 0.0); };
      std::vector<double> ai(s, 0.0), bi(s, 0.0);
      for (int i = 0; i < s; ++i)
        for (int j = 0; j < i; ++j) ai[i] += al(i, j), bi[i] += be(i, j);
      auto sum = [&](const std::vector<double>& w, auto f) {
        double x = 0.0;
        for (int i = 0; i < s; ++i) x += w[i] * f(i);
        return x;
      };
      const double g = t->gamma;
      QVERIFY(std::abs(sum(t->b, [](int) { return 1.0; }) - 1.0) < 1e-14);
      if (t->order >= 2) {
        QVERIFY(std::abs(sum(t->b, [&](int i) { return ai[i]; }) - 0.5) < 1e-14);  // W: alpha alone
        QVERIFY(std::abs(sum(t->b, [&](int i) { return bi[i]; }) - (0.5 - g)) < 1e-14);
      }
      if (t->order >= 3) {
        QVERIFY(std::abs(sum(t->b, [&](int i) { return ai[i] * ai[i]; }) - 1.0 / 3.0) < 1e-14);
        const double tree = sum(t->b, [&](int i) {
          double x = 0.0;
          for (int j = 0; j < i; ++j) x += be(i, j) * bi[j];
          return x;
        });
        QVERIFY(std::abs(tree - (1.0 / 6.0 - g + g * g)) < 1e-14);
      }
      if (!t->bHat.empty()) {
        QVERIFY(std::abs(sum(t->bHat, [](int) { return 1.0; }) - 1.0) < 1e-14);
        QVERIFY(std::abs(sum(t->bHat, [&](int i) { return ai[i]; }) - 0.5) < 1e-14);
        QVERIFY(std::abs(sum(t->bHat, [&](int i) { return bi[i]; }) - (0.5 - g)) < 1e-14);
      }
      // Stability function R(z) = 1 + z b^T (I - z B)^-1 1, B = alpha + Gamma.
      auto R = [&](std::complex<double> z) {
        std::vector<std::complex<double>> k(s);
        for (int i = 0; i < s; ++i) {
          std::complex<double> rhs = 1.0;
          for (int j = 0; j < i; ++j) rhs += z * be(i, j) * k[j];
          k[i] = rhs / (1.0 - z * g);
        }
        std::complex<double> r = 1.0;
        for (int i = 0; i < s; ++i) r += z * t->b[i] * k[i];
        return r;
      };
      QVERIFY2(std::abs(R(-1e8)) < 1e-6, qPrintable(QString::fromStdString(t->name)));  // L-stable: R(-inf) = 0
      for (double x : {-1e3, -10.0, -1.0, -0.1, 0.0})
        for (double y : {0.0, 0.1, 1.0, 10.0, 1e3, 1e6})
          QVERIFY2(std::abs(R({x, y})) <= 1.0 + 1e-12, qPrintable(QString::fromStdString(t->name + " |R| > 1")));
    }
  }

  void ros34pw2IsThirdOrder() {
    const Errors e4 = errorsAt("ros34pw2", 4e-3, 1, ref_), e2 = errorsAt("ros34pw2", 2e-3, 1, ref_),
                 e1 = errorsAt("ros34pw2", 1e-3, 1, ref_);
    qInfo("ros34pw2 errors in r: %.3e %.3e %.3e, in v: %.3e %.3e %.3e", e4.r, e2.r, e1.r, e4.v, e2.v, e1.v);
    QVERIFY2(order(e2, e1) > 2.8 && order(e2, e1) < 3.3, qPrintable(QString("order %1").arg(order(e2, e1))));
    QVERIFY(std::log2(e2.v / e1.v) > 2.8);
  }

  // A W-method keeps its order with any J: linearized every 2nd and 5th step, and with the papers' frozen
  // kinematics (N = d(Kv)/dr left out, which makes LSRT2 first order for rotating bodies).
  void ros34pw2KeepsItsOrderWithAnOutdatedJacobian() {
    for (int linEvery : {2, 5}) {
      const Errors a2 = errorsAt("ros34pw2", 2e-3, linEvery, ref_), a1 = errorsAt("ros34pw2", 1e-3, linEvery, ref_);
      qInfo("lin-every %d: %.3e %.3e (order %.2f)", linEvery, a2.r, a1.r, order(a2, a1));
      QVERIFY2(order(a2, a1) > 2.8 && order(a2, a1) < 3.2, qPrintable(QString("order %1").arg(order(a2, a1))));
    }
    RunOptions o;
    o.integrator = "ros34pw2";
    o.kinematicsDerivative = false;
    Errors f[2];
    for (int k = 0; k < 2; ++k) {
      o.dt = k == 0 ? 2e-3 : 1e-3;
      const auto sim = test::runProject(test::spinningBody(), "free", o);
      f[k] = {(sim->state().r - ref_.r).norm(), (sim->state().v - ref_.v).norm()};
    }
    qInfo("frozen kinematics: %.3e %.3e (order %.2f)", f[0].r, f[1].r, order(f[0], f[1]));
    QVERIFY2(order(f[0], f[1]) > 2.7, qPrintable(QString("order %1").arg(order(f[0], f[1]))));
  }

  void linearImplicitEulerIsFirstOrder() {
    const Errors e1 = errorsAt("lie", 5e-4, 1, ref_), e2 = errorsAt("lie", 2.5e-4, 1, ref_);
    qInfo("lie errors in r: %.3e %.3e (order %.2f)", e1.r, e2.r, order(e1, e2));
    QVERIFY(order(e1, e2) > 0.85 && order(e1, e2) < 1.3);
  }

  // The embedded estimate of ROS34PW2 is the local error of its second-order solution: it
  // scales as h^3 (one step from the same state at 2 and 1 ms) and exceeds the error of the
  // third-order solution that the step keeps (against a 10 us run over the same step).
  void embeddedEstimateIsTheSecondOrderLocalError() {
    double estimate[2];
    for (int k = 0; k < 2; ++k) {
      RunOptions o;
      o.integrator = "ros34pw2";
      o.dt = o.duration = k == 0 ? 2e-3 : 1e-3;
      const auto one = test::runProject(test::spinningBody(), "free", o);
      o.dt = 1e-5;
      const auto fine = test::runProject(test::spinningBody(), "free", o);
      const double trueError = (one->state().r - fine->state().r).cwiseAbs().maxCoeff();
      const LocalErrorEstimate* e = one->integrator().localError();
      QVERIFY(e);
      estimate[k] = std::max(e->position, e->angle);
      qInfo("one step of %g ms: estimate %.3e, error of the third-order solution %.3e", 1e3 * o.duration, estimate[k],
            trueError);
      QVERIFY(estimate[k] > 2.0 * trueError);
    }
    const double ratio = estimate[0] / estimate[1];
    qInfo("ratio %.2f (h^3: 8)", ratio);
    QVERIFY(ratio > 6.0 && ratio < 10.0);
  }

  // Every step costs the same: per step one linearization (or one evaluation), s - 1 further
  // right-hand side evaluations and s solves, one factorization per linearization, whatever the
  // state (the quiet start and the step load of LC1 on the double wishbone).
  void costPerStepDoesNotDependOnTheState() {
    const std::string dw = std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json";
    for (int linEvery : {1, 3}) {
      // At rest, and over the load step at 5 s.
      const test::StepCounts rest = test::countsOnLc1<RosenbrockW>(dw, "ros34pw2", linEvery, 1.0, 30);
      const test::StepCounts step = test::countsOnLc1<RosenbrockW>(dw, "ros34pw2", linEvery, 4.995, 30);
      QCOMPARE(rest.evaluations, 30LL * 4);
      QCOMPARE(rest.factorizations, 30LL / linEvery);
      QCOMPARE(rest.solves, 30LL * 4);
      QVERIFY(step == rest);
    }
  }

  // L-stable: on the stiff oscillator (omega dt = 15.8 at 5 ms) bounded by the start and decaying.
  void stiffOscillatorBoundedAndDecays() {
    for (const char* method : {"ros34pw2", "lie"}) {
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

QTEST_GUILESS_MAIN(TestRosenbrockW)
#include "tst_rosenbrock_w.moc"
