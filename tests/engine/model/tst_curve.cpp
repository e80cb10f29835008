// SPDX-License-Identifier: GPL-3.0-or-later
// Characteristic curves: interpolation through the points, slope = derivative of the value,
// C1 where the Jacobian needs it, defined extrapolation, no overshoot for pchip.
#include <QtTest>

#include "engine/model/curve.h"

using namespace ek;

namespace {
const std::vector<double> X{-0.05, -0.02, 0.0, 0.01, 0.03, 0.06};
const std::vector<double> Y{-9e4, -2.5e4, 0.0, 1.1e4, 5e4, 2e5};
}  // namespace

class TestCurve : public QObject {
  Q_OBJECT
 private slots:
  void passesThroughPoints_data() {
    QTest::addColumn<int>("interp");
    QTest::newRow("linear") << int(Interpolation::Linear);
    QTest::newRow("pchip") << int(Interpolation::Pchip);
    QTest::newRow("spline") << int(Interpolation::Spline);
  }
  void passesThroughPoints() {
    QFETCH(int, interp);
    const Curve c(X, Y, Interpolation(interp), Extrapolation::Linear);
    for (std::size_t k = 0; k < X.size(); ++k) QVERIFY(std::abs(c.eval(X[k]).y - Y[k]) <= 1e-9 * std::abs(Y[k]) + 1e-9);
  }

  void slopeIsDerivative_data() { passesThroughPoints_data(); }
  void slopeIsDerivative() {
    QFETCH(int, interp);
    const Curve c(X, Y, Interpolation(interp), Extrapolation::Linear);
    const double h = 1e-7;
    for (double x = -0.08; x < 0.09; x += 0.00137) {
      const double fd = (c.eval(x + h).y - c.eval(x - h).y) / (2 * h);
      const double s = c.eval(x).dydx;
      QVERIFY2(std::abs(fd - s) <= 1e-6 * std::max(std::abs(s), 1e4), qPrintable(QString("x %1: %2 vs %3").arg(x).arg(s).arg(fd)));
    }
  }

  // pchip and spline are C1 at the points: the slope from the left equals the slope from the right.
  void smoothAtPoints() {
    for (auto interp : {Interpolation::Pchip, Interpolation::Spline}) {
      const Curve c(X, Y, interp, Extrapolation::Linear);
      for (std::size_t k = 0; k < X.size(); ++k) {
        const double l = c.eval(X[k] - 1e-12).dydx, r = c.eval(X[k] + 1e-12).dydx;
        QVERIFY2(std::abs(l - r) <= 1e-6 * std::max(std::abs(l), 1.0), qPrintable(QString("%1 vs %2").arg(l).arg(r)));
      }
    }
  }

  void pchipDoesNotOvershoot() {
    const Curve c({0.0, 1.0, 2.0, 3.0}, {0.0, 0.0, 1.0, 1.0}, Interpolation::Pchip, Extrapolation::Constant);
    for (double x = 0.0; x <= 3.0; x += 0.01) {
      const CurveValue v = c.eval(x);
      QVERIFY(v.y >= -1e-15 && v.y <= 1.0 + 1e-15);
      QVERIFY(v.dydx >= -1e-12);
    }
  }

  void extrapolation() {
    const Curve lin(X, Y, Interpolation::Pchip, Extrapolation::Linear);
    const CurveValue end = lin.eval(X.back());
    const CurveValue out = lin.eval(X.back() + 0.01);
    QCOMPARE(out.dydx, end.dydx);
    QVERIFY(std::abs(out.y - (end.y + 0.01 * end.dydx)) < 1e-6);
    const Curve con(X, Y, Interpolation::Spline, Extrapolation::Constant);
    QCOMPARE(con.eval(-1.0).y, Y.front());
    QCOMPARE(con.eval(-1.0).dydx, 0.0);
    QCOMPARE(con.eval(1.0).y, Y.back());
  }

  // Defined for every double: NaN gives NaN (it used to index past the arrays), infinities
  // follow the extrapolation rule.
  void definedForEveryDouble_data() { passesThroughPoints_data(); }
  void definedForEveryDouble() {
    QFETCH(int, interp);
    const double inf = std::numeric_limits<double>::infinity();
    for (Extrapolation e : {Extrapolation::Linear, Extrapolation::Constant}) {
      const Curve c(X, Y, Interpolation(interp), e);
      const CurveValue nan = c.eval(std::numeric_limits<double>::quiet_NaN());
      QVERIFY(std::isnan(nan.y) && std::isnan(nan.dydx));
      QCOMPARE(c.eval(inf).y, e == Extrapolation::Constant ? Y.back() : inf);
      QCOMPARE(c.eval(-inf).y, e == Extrapolation::Constant ? Y.front() : -inf);
      QCOMPARE(c.eval(std::numeric_limits<double>::max()).y, e == Extrapolation::Constant ? Y.back() : inf);
    }
  }

  void linearCharacteristic() {
    Characteristic c;
    c.coefficient = 2e5;
    QCOMPARE(c.eval(0.01).y, 2e3);
    QCOMPARE(c.eval(0.01).dydx, 2e5);
  }
};

QTEST_APPLESS_MAIN(TestCurve)
#include "tst_curve.moc"
