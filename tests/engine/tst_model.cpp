// SPDX-License-Identifier: GPL-3.0-or-later
// Bad input: every class gets its own clear error naming file, table, row and field
// (files in tests/data/bad_input/), and the compiled model's topology and frames.
#include <QtTest>

#include "engine/error.h"
#include "engine/model.h"
#include "engine/project_io.h"

using namespace ek;

namespace {
const std::string kData = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/";
}

class TestModel : public QObject {
  Q_OBJECT
 private slots:
  void validProjectLoads() {
    const auto m = SuspensionModel::build(readProject(kData + "minimal_valid.json"));
    QCOMPARE(m->nFreeBodies(), 1);
    QCOMPARE(m->nDof(), 6);
    QCOMPARE(m->pattern.nBlocks(), 1);
  }

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

  void missingFileIsAnError() {
    QVERIFY_THROWS_EXCEPTION(ModelError, readProject(kData + "does_not_exist.json"));
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

  void centreOfMassFrame() {
    // The body frame origin differs from the centre of mass: markers are re-expressed about the
    // centre of mass and the state starts at the centre of mass.
    Project p = readProject(kData + "minimal_valid.json");
    p.bodies[1].com = Vec3(0.1, 0.0, 0.0);
    p.bodies[1].orientation = Vec3(M_PI / 2, 0.0, 0.0);
    p.bodies[1].position = Vec3(1.0, 2.0, 3.0);
    const auto m = SuspensionModel::build(p);
    VecX r, v;
    m->initialState(r, v);
    QVERIFY((r.head<3>() - Vec3(1.0, 2.1, 3.0)).norm() < 1e-12);
    QVERIFY((m->markers[1].s - Vec3(-0.1, 0.0, 0.0)).norm() < 1e-15);
  }

  void blockPatternFollowsTopology() {
    // Three bodies in a chain (1-2, 2-3) and body 3 to ground: blocks 11 12 21 22 23 32 33.
    Project p = readProject(kData + "minimal_valid.json");
    for (int id : {2, 3}) {
      BodyRow b = p.bodies[1];
      b.id = id;
      p.bodies.push_back(b);
      p.markers.push_back({10 + id, "m", id, Vec3::Zero(), Vec3::Zero()});
    }
    p.markers.push_back({20, "m", 1, Vec3::Zero(), Vec3::Zero()});
    p.markers.push_back({21, "m", 2, Vec3::Zero(), Vec3::Zero()});
    BushingRow b = p.bushings[0];
    b.id = 2, b.markerI = 20, b.markerJ = 12;
    p.bushings.push_back(b);
    b.id = 3, b.markerI = 21, b.markerJ = 13;
    p.bushings.push_back(b);
    b.id = 4, b.markerI = 13, b.markerJ = 1;
    p.bushings.push_back(b);
    const auto m = SuspensionModel::build(p);
    QCOMPARE(m->pattern.nBlocks(), 7);
    QVERIFY(m->pattern.find(0, 2) < 0);
    QVERIFY(m->pattern.find(1, 2) >= 0);
    QVERIFY(m->pattern.find(2, 1) >= 0);
  }
};

QTEST_APPLESS_MAIN(TestModel)
#include "tst_model.moc"
