// SPDX-License-Identifier: GPL-3.0-or-later
// The compiled model: topology, block pattern and the centre-of-mass frames.
#include <QtTest>

#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"

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


  void missingFileIsAnError() {
    QVERIFY_THROWS_EXCEPTION(ModelError, readProject(kData + "does_not_exist.json"));
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
