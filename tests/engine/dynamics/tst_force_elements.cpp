// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 3: bushing and P2P wrenches with their partials, per element, against finite
// differences at random states in the nonlinear curve ranges; hand-derived fixtures for the
// sign conventions.
#include <QtTest>

#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"
#include "support/fd.h"
#include "support/test_models.h"

using namespace ek;

namespace {

enum class Kind { Bushing, P2P };

VecX wrenchOf(const SuspensionModel& m, const State& s, Kind kind, std::size_t e) {
  Workspace ws(m);
  calcBodyKinematics(m, s, ws);
  calcMarkerKinematics(m, ws);
  calcBushings(m, ws);
  calcP2Ps(m, ws);
  const ElementWrench& w = kind == Kind::Bushing ? ws.bushings[e].wrench : ws.p2ps[e].wrench;
  VecX out(6);
  out << w.F, w.tau;
  return out;
}

/// Analytic partials of one element's wrench w.r.t. (r, v) of all bodies, from its sides' blocks.
void analytic(const SuspensionModel& m, const Workspace& ws, const ElementWrench& w, MarkerIndex i, MarkerIndex j,
              MatX& dR, MatX& dV) {
  dR = MatX::Zero(6, m.nDof());
  dV = MatX::Zero(6, m.nDof());
  for (auto [mi, sideA] : {std::pair{i, true}, std::pair{j, false}}) {
    const int l = ws.markers[mi.value].state;
    if (l < 0) continue;
    const Mat6x12 d = sidePartials(w, sideA);
    const Mat3& RT = ws.bodies[m.freeBodies[l]].RT;
    dR.middleCols<3>(6 * l) += d.middleCols<3>(0);
    dR.middleCols<3>(6 * l + 3) += d.middleCols<3>(3) * RT;
    dV.middleCols<6>(6 * l) += d.rightCols<6>();
  }
}

/// Every other bushing with constant coefficients only (the element kernel's vector path for the
/// laws); the others keep their curves (its lane-by-lane path), so batches mix both.
void withLinearLaws(Project& p) {
  for (std::size_t e = 0; e < p.bushings.size(); e += 2)
    for (int d = 0; d < 6; ++d) {
      LawRow& k = p.bushings[e].directions[d].stiffness;
      LawRow& c = p.bushings[e].directions[d].damping;
      if (k.curve) k.curve.reset(), k.coefficient = d < 3 ? 3e5 : 4e3;
      if (c.curve) c.curve.reset(), c.coefficient = d < 3 ? 700.0 : 3.0;
    }
}

}  // namespace

class TestForceElements : public QObject {
  Q_OBJECT
 private slots:
  void partials_data() {
    QTest::addColumn<unsigned>("seed");
    QTest::addColumn<bool>("ground");
    QTest::addColumn<bool>("someLinear");
    QTest::newRow("grounded A") << 41u << true << false;
    QTest::newRow("grounded B") << 43u << true << false;
    QTest::newRow("free floating") << 47u << false << false;
    QTest::newRow("linear and curve laws in a batch") << 53u << true << true;
  }
  void partials() {
    QFETCH(unsigned, seed);
    QFETCH(bool, ground);
    QFETCH(bool, someLinear);
    Project p = test::randomProject(seed, 4, 8, 4, ground);
    if (someLinear) withLinearLaws(p);
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    Workspace ws(*m);
    ws.keepSidePartials = true;
    calcBodyKinematics(*m, s, ws);
    calcMarkerKinematics(*m, ws);
    calcBushings(*m, ws);
    calcP2Ps(*m, ws);
    double worst = 0.0;
    auto check = [&](Kind kind, std::size_t e, const ElementWrench& w, MarkerIndex i, MarkerIndex j) {
      MatX aR, aV;
      analytic(*m, ws, w, i, j, aR, aV);
      const MatX fR = test::centralDifference([&](const VecX& r) { return wrenchOf(*m, State{0, r, s.v}, kind, e); },
                                              s.r, 1e-6);
      const MatX fV = test::centralDifference([&](const VecX& v) { return wrenchOf(*m, State{0, s.r, v}, kind, e); },
                                              s.v, 1e-5);
      const double eR = test::blockRelativeError(aR, fR, 3, 3), eV = test::blockRelativeError(aV, fV, 3, 3);
      worst = std::max({worst, eR, eV});
      QVERIFY2(eR <= 1e-6 && eV <= 1e-6, qPrintable(QString("%1 %2: dW/dr %3, dW/dv %4")
                                                      .arg(kind == Kind::Bushing ? "bushing" : "p2p")
                                                      .arg(e).arg(eR).arg(eV)));
    };
    for (std::size_t e = 0; e < m->bushings.size(); ++e)
      check(Kind::Bushing, e, ws.bushings[e].wrench, m->bushings[e].i, m->bushings[e].j);
    for (std::size_t e = 0; e < m->p2ps.size(); ++e)
      check(Kind::P2P, e, ws.p2ps[e].wrench, m->p2ps[e].i, m->p2ps[e].j);
    qInfo("worst relative error of element partials: %.2e", worst);
  }

  // A bushing's results do not depend on the batch it is computed in: alone, or with the others
  // in the serial order (linear and curve laws mixed), bit for bit.
  void resultsDoNotDependOnTheBatch() {
    Project p = test::randomProject(59, 5, 11, 0, true);
    withLinearLaws(p);
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    for (int i = 0; i < s.v.size(); ++i) s.v[i] = 0.05 * std::sin(1.0 + i);
    Workspace all(*m), one(*m);
    for (Workspace* ws : {&all, &one}) {
      calcBodyKinematics(*m, s, *ws);
      calcMarkerKinematics(*m, *ws);
    }
    calcBushings(*m, all);
    int linear = 0;
    for (std::size_t e = 0; e < m->bushings.size(); ++e) {
      linear += !m->bushings[e].nonlinear;
      calcBushingList(*m, one, {static_cast<int>(e)});
      const BushingResult &a = all.bushings[e], &b = one.bushings[e];
      QVERIFY2(a.deflection == b.deflection && a.rate == b.rate && a.force == b.force, qPrintable(QString::number(e)));
      QVERIFY(a.wrench.F == b.wrench.F && a.wrench.tau == b.wrench.tau);
      // The halves the scatter reads: those in the rows of a free body.
      const bool freeI = one.markers[m->bushings[e].i.value].state >= 0;
      const bool freeJ = one.markers[m->bushings[e].j.value].state >= 0;
      if (freeI) QVERIFY(a.wrench.aa.r == b.wrench.aa.r && a.wrench.aa.v == b.wrench.aa.v);
      if (freeI && freeJ) QVERIFY(a.wrench.ab.r == b.wrench.ab.r && a.wrench.ba.v == b.wrench.ba.v);
      if (freeJ) QVERIFY(a.wrench.bb.r == b.wrench.bb.r && a.wrench.bb.v == b.wrench.bb.v);
    }
    QVERIFY(linear >= 3 && linear < static_cast<int>(m->bushings.size()));
  }

  // Hand-derived: a linear bushing displaced by d along J's x reacts with -k d on I.
  void bushingSignConvention() {
    Project p = test::singleBushing(1.0, Vec3(0.01, 0.01, 0.01), 1e5, 100.0);
    p.bushings[0].directions[0].preload = 30.0;
    p.bodies[1].position = Vec3(0.002, -0.001, 0.0);
    p.bodies[1].orientation = Vec3(0.0, 0.0, 0.05);  // roll 0.05 rad about x
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    Workspace ws(*m);
    calcBodyKinematics(*m, s, ws);
    calcMarkerKinematics(*m, ws);
    calcBushings(*m, ws);
    const BushingResult& b = ws.bushings[0];
    QVERIFY(std::abs(b.deflection[0] - 0.002) < 1e-15);
    QVERIFY(std::abs(b.deflection[3] - 0.05) < 1e-15);
    QVERIFY(std::abs(b.force[0] - (30.0 - 1e5 * 0.002)) < 1e-9);
    QVERIFY(std::abs(b.force[1] - 100.0) < 1e-9);
    QVERIFY(std::abs(b.force[3] + 100.0 * 0.05) < 1e-12);
    QVERIFY(std::abs(b.wrench.tau.x() + 5.0) < 1e-12);  // pure roll: torque -kr phi about x
  }

  // Hand-derived: P2P tension from spring, preload and engaged stops.
  void p2pTensionAndStops() {
    Project p = test::singleBushing(1.0, Vec3(0.01, 0.01, 0.01), 0.0, 0.0);
    p.bushings.clear();
    p.markers.push_back({3, "top", 0, Vec3(0, 0, 0.5), Vec3::Zero()});
    P2PRow e;
    e.id = 1;
    e.markerI = 2;
    e.markerJ = 3;
    e.freeLength = 0.45;
    e.preload = 10.0;
    e.spring.coefficient = 1000.0;
    e.bumpStop = StopRow{0.02, LawRow{5e4, std::nullopt}};
    e.reboundStop = StopRow{0.03, LawRow{8e4, std::nullopt}};
    p.p2ps = {e};
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    auto tension = [&](double z) {
      State t = s;
      t.r[2] = z;
      Workspace ws(*m);
      calcBodyKinematics(*m, t, ws);
      calcMarkerKinematics(*m, ws);
      calcP2Ps(*m, ws);
      return ws.p2ps[0].tension;
    };
    // Length 0.5 - z. Extension 0.05 - z.
    QVERIFY(std::abs(tension(0.05) - 10.0) < 1e-9);                             // at free length
    QVERIFY(std::abs(tension(0.04) - (10.0 + 10.0)) < 1e-9);                   // +0.01 extension
    QVERIFY(std::abs(tension(0.0) - (10.0 + 50.0 + 8e4 * 0.02)) < 1e-9);      // rebound stop engaged
    QVERIFY(std::abs(tension(0.08) - (10.0 - 30.0 - 5e4 * 0.01)) < 1e-9);     // bump stop engaged
  }
};

QTEST_APPLESS_MAIN(TestForceElements)
#include "tst_force_elements.moc"
