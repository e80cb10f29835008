// SPDX-License-Identifier: GPL-3.0-or-later
// Bad input: every class gets its own clear error naming file, table, row and field
// (files in tests/data/bad_input/); projects edited in memory are checked too.
#include <QtTest>

#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "engine/model/validate.h"

using namespace ek;

namespace {
const std::string kData = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/";
}

class TestValidate : public QObject {
  Q_OBJECT
 private slots:
  void badInput_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("table");
    QTest::addColumn<QString>("row");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("says");
    QTest::newRow("malformed JSON") << "malformed" << "" << "" << "" << "malformed JSON at line 6, column 19";
    QTest::newRow("NaN literal") << "nan_literal" << "" << "" << "" << "malformed JSON at line 20, column 20";
    QTest::newRow("infinite number") << "infinite_value" << "" << "" << "" << "line 61, column 9: number '1e999' is out of range";
    QTest::newRow("duplicate id") << "duplicate_id" << "markers" << "id 2" << "id" << "duplicate id 2";
    QTest::newRow("missing body") << "missing_body" << "markers" << "id 2" << "body" << "body 7 does not exist";
    QTest::newRow("missing marker") << "missing_marker" << "bushings" << "id 1" << "marker_j" << "marker 42 does not exist";
    QTest::newRow("missing curve") << "missing_curve" << "bushings" << "id 1" << "z.stiffness [N/m]" << "curve 9 does not exist";
    QTest::newRow("both markers on one body") << "same_body" << "p2p elements" << "id 1" << "marker_j" << "are on body 0";
    QTest::newRow("non-positive mass") << "nonpositive_mass" << "bodies" << "id 1" << "mass [kg]" << "mass must be positive";
    QTest::newRow("inertia not positive definite") << "inertia_not_pd" << "bodies" << "id 1" << "inertia [kg m^2]" << "not positive definite";
    QTest::newRow("inertia triangle inequality") << "inertia_triangle" << "bodies" << "id 1" << "inertia [kg m^2]" << "triangle inequality";
    QTest::newRow("curve with one point") << "curve_one_point" << "curves" << "id 1" << "points" << "at least 2 points";
    QTest::newRow("curve abscissae not increasing") << "curve_not_increasing" << "curves" << "id 1" << "points" << "increase strictly";
    QTest::newRow("unknown field") << "unknown_field" << "bushings" << "id 1" << "x.stifness [N/m]" << "unknown field";
    QTest::newRow("load case names unknown input") << "unknown_input" << "load cases" << "'push'" << "signals[1].input" << "input 5 does not exist";
  }
  void badInput() {
    QFETCH(QString, file);
    QFETCH(QString, table);
    QFETCH(QString, row);
    QFETCH(QString, field);
    QFETCH(QString, says);
    const std::string path = kData + "bad_input/" + file.toStdString() + ".json";
    try {
      (void)SuspensionModel::build(readProject(path));
      QFAIL("no error");
    } catch (const ModelError& e) {
      const QString msg = QString::fromStdString(e.what());
      qInfo("%s", e.what());
      QCOMPARE(QString::fromStdString(e.where().file), QString::fromStdString(path));
      QCOMPARE(QString::fromStdString(e.where().table), table);
      QCOMPARE(QString::fromStdString(e.where().row), row);
      QCOMPARE(QString::fromStdString(e.where().field), field);
      QVERIFY2(msg.contains(says), qPrintable(msg));
      QVERIFY(msg.startsWith(QString::fromStdString(path)));
    }
  }
  void programmaticNaNIsRejected() {
    Project p = readProject(kData + "minimal_valid.json");
    p.bushings[0].directions[4].damping.coefficient = std::numeric_limits<double>::quiet_NaN();
    try {
      validate(p);
      QFAIL("no error");
    } catch (const ModelError& e) {
      QCOMPARE(QString::fromStdString(e.where().field), QString("ry.damping [N m s/rad]"));
    }
  }
  void signalParametersAreValidated() {
    Project p = readProject(kData + "minimal_valid.json");
    p.loadCases[0].drives[0].signal.type = SignalType::Ramp;  // t0 = 0.1, t1 = 0
    try {
      validate(p);
      QFAIL("no error");
    } catch (const ModelError& e) {
      QCOMPARE(QString::fromStdString(e.where().field), QString("signals[0].end [s]"));
    }
    p = readProject(kData + "minimal_valid.json");
    p.loadCases[0].duration = 0.0;
    QVERIFY_THROWS_EXCEPTION(ModelError, validate(p));
  }
};

QTEST_APPLESS_MAIN(TestValidate)
#include "tst_validate.moc"
