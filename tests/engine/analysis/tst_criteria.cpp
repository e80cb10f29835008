// SPDX-License-Identifier: GPL-3.0-or-later
// Study building blocks: numeric table cells by path (read, set, errors naming the path), the
// criteria of a sampled channel against closed forms, and the sampling plans (Latin hypercube:
// reproducible, one point per stratum; full factorial).
#include <QtTest>

#include <cmath>
#include <set>

#include "engine/analysis/criteria.h"
#include "engine/model/project_io.h"
#include "engine/model/table_path.h"

using namespace ek;

namespace {
const std::string kRoot = ELASTOKIN_SOURCE_DIR;

QString errorOf(const Project& p, const std::string& path) {
  try {
    (void)tableValue(p, path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}
}  // namespace

class TestCriteria : public QObject {
  Q_OBJECT
 private slots:
  void tableCellsByPath() {
    const Project p = readProject(kRoot + "/projects/double_wishbone_viscoelastic.json");
    QCOMPARE(tableValue(p, "bodies/1/mass [kg]"), 9.0);
    QCOMPARE(tableValue(p, "p2p elements/1/spring [N/m]"), 68000.0);
    QCOMPARE(tableValue(p, "bushings/9/x.damping [N s/m]"), 600.0);
    QCOMPARE(tableValue(p, "bushings/9/x.maxwell[2].damping [N s/m]"), 400.0);
    QCOMPARE(tableValue(p, "load cases/LC1/duration [s]"), 15.0);
    QCOMPARE(tableValue(p, "bodies/1/position [m][2]"), p.bodies[1].position[1]);
    // Set: the copy changes there only; the original is untouched.
    const Project q = withTableValue(p, "bushings/9/x.maxwell[1].stiffness [N/m]", 2e5);
    QCOMPARE(q.bushings[8].directions[0].maxwell[0].stiffness, 2e5);
    QCOMPARE(p.bushings[8].directions[0].maxwell[0].stiffness, 1.5e5);
    Project back = q;
    back.bushings[8].directions[0].maxwell[0].stiffness = 1.5e5;
    QVERIFY(back == p);
    // A curve scale: every y of the curve times the factor.
    const Project s = withTableValue(p, "curves/4/scale", 1.5);
    QCOMPARE(tableValue(p, "curves/4/scale"), 1.0);
    for (std::size_t k = 0; k < p.curves[3].points.size(); ++k) {
      QCOMPARE(s.curves[3].points[k][0], p.curves[3].points[k][0]);
      QCOMPARE(s.curves[3].points[k][1], 1.5 * p.curves[3].points[k][1]);
    }
    // Errors name the path and what is wrong.
    QVERIFY(errorOf(p, "bushing/9/x.damping [N s/m]").contains("no table 'bushing' (tables: bodies, markers, bushings"));
    QVERIFY(errorOf(p, "bushings/99/x.damping [N s/m]").contains("table 'bushings' has no row 99"));
    QVERIFY(errorOf(p, "bushings/9/x.dumping [N s/m]").contains("no field 'dumping [N s/m]'"));
    QVERIFY(errorOf(p, "bushings/9/x.stiffness [N/m]").contains("the law is curve 4, not a number (vary curves/4/scale"));
    QVERIFY(errorOf(p, "bushings/9/x.maxwell[3].damping [N s/m]").contains("no element [3]"));
    QVERIFY(errorOf(p, "bushings/9").contains("a cell path is TABLE/ROW/FIELD"));
    QVERIFY(errorOf(p, "bushings/9/name").contains("the field is not a number"));
    // Left/right twins by name, and several cells at once.
    QCOMPARE(twinPath(p, "bushings/9/x.damping [N s/m]"), std::string("bushings/29/x.damping [N s/m]"));
    QCOMPARE(twinPath(p, "bushings/29/x.damping [N s/m]"), std::string("bushings/9/x.damping [N s/m]"));
    QCOMPARE(twinPath(p, "markers/3/position [m][2]").substr(0, 11), std::string("markers/52/"));
    try {
      (void)twinPath(p, "bushings/41/x.damping [N s/m]");
      QFAIL("the anti-roll bar torsion bushing has no twin");
    } catch (const std::invalid_argument& e) {
      QVERIFY(QString(e.what()).contains("'anti-roll bar torsion' does not say left or right"));
    }
    const Project both = withTableValues(p, {{"bushings/9/x.damping [N s/m]", 700.0}, {"bushings/29/x.damping [N s/m]", 710.0}});
    QCOMPARE(both.bushings[8].directions[0].damping.coefficient, 700.0);
    QCOMPARE(both.bushings[28].directions[0].damping.coefficient, 710.0);
  }

  void criteriaAgainstClosedForms() {
    // y = A sin(w t) over whole periods, sampled finely.
    const double A = 2.0, w = 2 * M_PI * 3.0, T = 2.0;
    std::vector<double> t, y;
    for (int k = 0; k <= 20000; ++k) {
      t.push_back(T * k / 20000.0);
      y.push_back(A * std::sin(w * t.back()));
    }
    Criterion c;
    c.kind = CriterionKind::Rms;
    QVERIFY(std::abs(evaluateCriterion(c, t, y) - A / std::sqrt(2.0)) < 1e-6);
    c.kind = CriterionKind::PeakToPeak;
    QVERIFY(std::abs(evaluateCriterion(c, t, y) - 2 * A) < 1e-4);
    c.kind = CriterionKind::IntegralSquare;
    QVERIFY(std::abs(evaluateCriterion(c, t, y) - A * A * T / 2) < 1e-5);
    // Paper 001: int t^2 y''^2 dt = A^2 w^4 int t^2 sin^2(w t) dt = A^2 w^4 (T^3/6 - T cos(2wT)/(4w^2) + ...).
    c.kind = CriterionKind::WeightedIntegral;
    c.weightPower = 2.0;
    c.derivative = 2;
    const double exact = A * A * std::pow(w, 4) *
                         (T * T * T / 6 - (T * T / (4 * w)) * std::sin(2 * w * T) - (T / (4 * w * w)) * std::cos(2 * w * T) +
                          std::sin(2 * w * T) / (8 * w * w * w));
    const double got = evaluateCriterion(c, t, y);
    qInfo("int t^2 y''^2 dt: %.8g (closed form %.8g), relative error %.2e", got, exact, std::abs(got / exact - 1));
    QVERIFY(std::abs(got / exact - 1) < 1e-4);
    // Paper 001's suspension travel criterion int y^6 dt (p = 0, k = 0, q = 6): sin^6 x = 5/16 -
    // 15/32 cos 2x + 3/16 cos 4x - 1/32 cos 6x.
    c.weightPower = 0.0;
    c.derivative = 0;
    c.exponent = 6.0;
    const double sixth = std::pow(A, 6) * (5.0 / 16 * T - 15.0 / (64 * w) * std::sin(2 * w * T) +
                                           3.0 / (64 * w) * std::sin(4 * w * T) - 1.0 / (192 * w) * std::sin(6 * w * T));
    const double gotSixth = evaluateCriterion(c, t, y);
    qInfo("int y^6 dt: %.8g (closed form %.8g), relative error %.2e", gotSixth, sixth, std::abs(gotSixth / sixth - 1));
    QVERIFY(std::abs(gotSixth / sixth - 1) < 1e-5);
    c.kind = CriterionKind::ValueAt;
    c.time = 1.0 / 12.0;  // a quarter period: the peak
    QVERIFY(std::abs(evaluateCriterion(c, t, y) - A) < 1e-6);
    c.kind = CriterionKind::MaximumAbs;
    c.from = 0.0, c.to = 0.05;
    QVERIFY(std::abs(evaluateCriterion(c, t, y) - A * std::sin(w * 0.05)) < 1e-9);
    // Settling of y = 1 - exp(-t / tau): within 2 % of the range after tau ln 50.
    std::vector<double> ys;
    for (double tk : t) ys.push_back(1.0 - std::exp(-tk / 0.1));
    Criterion s;
    s.kind = CriterionKind::SettlingTime;
    s.band = 0.02;
    const double range = ys.back() - ys.front(), expected = -0.1 * std::log(0.02 * range + std::exp(-T / 0.1));
    QVERIFY2(std::abs(evaluateCriterion(s, t, ys) - expected) < 2e-4, qPrintable(QString::number(evaluateCriterion(s, t, ys))));
    Criterion narrow;
    narrow.from = 0.5, narrow.to = 0.5;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, evaluateCriterion(narrow, t, y));
    CriterionKind k;
    QVERIFY(parseCriterionKind("weighted integral", k) && k == CriterionKind::WeightedIntegral);
    QVERIFY(!parseCriterionKind("mean", k));
  }

  void samplingPlans() {
    const auto a = latinHypercube(64, 3, 42), b = latinHypercube(64, 3, 42), c = latinHypercube(64, 3, 43);
    QVERIFY(a == b);  // reproducible with its seed
    QVERIFY(a != c);
    for (int d = 0; d < 3; ++d) {
      std::set<int> strata;
      for (const auto& p : a) {
        QVERIFY(p[d] >= 0.0 && p[d] < 1.0);
        strata.insert(static_cast<int>(std::floor(p[d] * 64)));
      }
      QCOMPARE(static_cast<int>(strata.size()), 64);  // every stratum exactly once
    }
    // The first point of seed 42 is fixed (mt19937 is standardized): a change of the plan is seen.
    qInfo("seed 42, first point: %.17g %.17g %.17g", a[0][0], a[0][1], a[0][2]);
    const auto f = fullFactorial({3, 2});
    QCOMPARE(f.size(), std::size_t(6));
    QVERIFY((f[0] == std::vector<double>{0.0, 0.0}) && (f[1] == std::vector<double>{0.0, 1.0}) &&
            (f[5] == std::vector<double>{1.0, 1.0}) && (f[2] == std::vector<double>{0.5, 0.0}));
    QVERIFY(fullFactorial({1})[0][0] == 0.5);
  }
};

QTEST_APPLESS_MAIN(TestCriteria)
#include "tst_criteria.moc"
