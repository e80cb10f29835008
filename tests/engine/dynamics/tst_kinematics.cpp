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

  // The markers in batches of four (calcMarkerKinematics()) equal markerKinematics() one by one to
  // round-off, and each marker's results do not depend on its batch: alone, bit for bit.
  void markerBatchesEqualOneByOne() {
    Project p = test::randomProject(43, 5, 9, 3);
    p.markers[1].orientation = Vec3(0.3, -0.2, 0.1);  // a marker turned against its body
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    for (int i = 0; i < s.v.size(); ++i) s.v[i] = 0.3 * std::cos(1.0 + i);
    Workspace all(*m), one(*m);
    for (Workspace* ws : {&all, &one}) calcBodyKinematics(*m, s, *ws);
    calcMarkerKinematics(*m, all);
    QVERIFY(all.movingMarkers.size() > 8);
    bool turned = false;
    for (int k : all.movingMarkers) {
      turned = turned || !m->markers[k].aligned;
      calcMarkerList(*m, one, &k, 1);
      const MarkerKinematics &a = all.markers[k], &b = one.markers[k];
      QVERIFY2(a.p == b.p && a.v == b.v && a.w == b.w && a.R == b.R && a.rho == b.rho, qPrintable(QString::number(k)));
      MarkerKinematics ref = a;
      markerKinematics(m->markers[k], all.bodies[a.body], ref);
      const double scale = 1.0 + ref.p.norm() + ref.v.norm();
      QVERIFY((a.p - ref.p).norm() <= 1e-15 * scale && (a.v - ref.v).norm() <= 1e-15 * scale);
      QVERIFY((a.R - ref.R).norm() <= 1e-15 && (a.rho - ref.rho).norm() <= 1e-15 * scale && a.w == ref.w);
    }
    QVERIFY(turned);
  }

  // The free bodies, four at a time in lanes, against the scalar maps of rotation.h; a body's
  // results do not depend on its batch (alone, bit for bit).
  void bodyKinematicsOfState() {
    const auto m = SuspensionModel::build(test::randomProject(2, 6, 2, 1));
    State s;
    m->initialState(s.r, s.v);
    for (int i = 0; i < s.v.size(); ++i) s.v[i] = 0.7 * std::sin(3.0 + i);
    Workspace ws(*m), one(*m);
    calcBodyKinematics(*m, s, ws);
    QVERIFY(m->nFreeBodies() > 4);  // a full batch and a part
    for (int l = 0; l < m->nFreeBodies(); ++l) {
      const BodyKinematics& b = ws.bodies[m->freeBodies[l]];
      const Vec3 a = s.r.segment<3>(6 * l + 3), w = s.v.segment<3>(6 * l + 3);
      QVERIFY(b.p == s.r.segment<3>(6 * l) && b.angles == a && b.v == s.v.segment<3>(6 * l) && b.w_B == w);
      QVERIFY((b.R - rotation::matrix(a)).norm() < 1e-15);
      QVERIFY((b.w_W - b.R * w).norm() < 1e-14);
      QVERIFY((b.Tinv - rotation::bodyToRate(a)).norm() < 1e-14 * (1.0 + b.Tinv.norm()));
      QVERIFY((b.Tinv * rotation::rateToBody(b.angles) - Mat3::Identity()).norm() < 1e-12);
      QVERIFY((b.RT - rotation::rateToWorld(rotation::trig(a))).norm() < 1e-15);
      QVERIFY((b.N - rotation::dBodyToRateTimes(a, w)).norm() < 1e-14 * (1.0 + b.N.norm()));
      calcFreeBodyKinematics(*m, s, &l, 1, one);
      const BodyKinematics& c = one.bodies[m->freeBodies[l]];
      QVERIFY(c.R == b.R && c.Tinv == b.Tinv && c.RT == b.RT && c.w_W == b.w_W && c.N == b.N);
    }
  }
};

QTEST_APPLESS_MAIN(TestKinematics)
#include "tst_kinematics.moc"
