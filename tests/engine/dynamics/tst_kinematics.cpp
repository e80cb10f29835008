// SPDX-License-Identifier: GPL-3.0-or-later
// Stages 1-2: body and marker kinematics and the marker partials, against finite differences.
#include <QtTest>

#include "engine/core/rotation.h"
#include "engine/dynamics/kinematics.h"
#include "support/fd.h"
#include "support/test_models.h"

using namespace ek;

class TestKinematics : public QObject {
  Q_OBJECT
 private slots:
  void markerPartials() {
    const auto m = SuspensionModel::build(test::randomProject(31, 4, 5, 2));
    State s;
    m->initialState(s.r, s.v);
    Workspace ws(*m);
    calcBodyKinematics(*m, s, ws);
    calcMarkerKinematics(*m, ws);
    // Marker quantities (p, v, w) as a function of the state.
    auto markerQuantities = [&](const State& st, int k) {
      Workspace w(*m);
      calcBodyKinematics(*m, st, w);
      calcMarkerKinematics(*m, w);
      VecX out(9);
      out << w.markers[k].p, w.markers[k].v, w.markers[k].w;
      return out;
    };
    int checked = 0;
    for (std::size_t k = 0; k < m->markers.size(); ++k) {
      const MarkerKinematics& mk = ws.markers[k];
      if (mk.state < 0) continue;
      const int l = mk.state;
      const Mat3& RT = ws.bodies[m->freeBodies[l]].RT;
      const MarkerPartials mp = ek::markerPartials(mk, ws.bodies[m->freeBodies[l]]);
      const MatX fdR = test::centralDifference(
          [&](const VecX& r) { return markerQuantities(State{0, r, s.v}, static_cast<int>(k)); }, s.r, 1e-6);
      const MatX fdV = test::centralDifference(
          [&](const VecX& v) { return markerQuantities(State{0, s.r, v}, static_cast<int>(k)); }, s.v, 1e-6);
      MatX aR = MatX::Zero(9, 6), aV = MatX::Zero(9, 6);
      aR.block<3, 3>(0, 0) = Mat3::Identity();
      aR.block<3, 3>(0, 3) = mp.dp_dth * RT;
      aR.block<3, 3>(3, 3) = mp.dv_dth * RT;
      aR.block<3, 3>(6, 3) = mp.dw_dth * RT;
      aV.block<3, 3>(3, 0) = Mat3::Identity();
      aV.block<3, 3>(3, 3) = mp.dv_dw;
      aV.block<3, 3>(6, 3) = mp.dw_dw;
      const double eR = test::blockRelativeError(aR, fdR.middleCols<6>(6 * l), 3, 3);
      const double eV = test::blockRelativeError(aV, fdV.middleCols<6>(6 * l), 3, 3);
      QVERIFY2(eR < 1e-6, qPrintable(QString("marker %1 position partials %2").arg(k).arg(eR)));
      QVERIFY2(eV < 1e-6, qPrintable(QString("marker %1 velocity partials %2").arg(k).arg(eV)));
      // Columns of other bodies are zero.
      QVERIFY(fdR.norm() - fdR.middleCols<6>(6 * l).norm() < 1e-9 * fdR.norm());
      ++checked;
    }
    QVERIFY(checked > 10);
  }

  void bodyKinematicsOfState() {
    const auto m = SuspensionModel::build(test::randomProject(2, 3, 2, 1));
    State s;
    m->initialState(s.r, s.v);
    Workspace ws(*m);
    calcBodyKinematics(*m, s, ws);
    for (int l = 0; l < m->nFreeBodies(); ++l) {
      const BodyKinematics& b = ws.bodies[m->freeBodies[l]];
      QVERIFY((b.R - rotation::matrix(s.r.segment<3>(6 * l + 3))).norm() < 1e-15);
      QVERIFY((b.w_W - b.R * s.v.segment<3>(6 * l + 3)).norm() < 1e-14);
      QVERIFY((b.Tinv * rotation::rateToBody(b.angles) - Mat3::Identity()).norm() < 1e-12);
    }
  }
};

QTEST_APPLESS_MAIN(TestKinematics)
#include "tst_kinematics.moc"
