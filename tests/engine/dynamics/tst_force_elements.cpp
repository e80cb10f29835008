// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 3: bushing and P2P wrenches with their partials, per element: the scalar instantiation of
// the force laws against finite differences at random states in the nonlinear curve ranges, the
// lane kernels against the scalar instantiation; hand-derived fixtures for the sign conventions.
#include <QtTest>

#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"
#include "support/fd.h"
#include "support/test_models.h"

using namespace ek;

namespace {

enum class Kind { Bushing, P2P };

/// Element e's wrench at s, by the scalar instantiation of the laws.
VecX wrenchOf(const SuspensionModel& m, const State& s, Kind kind, std::size_t e) {
  Workspace ws(m);
  calcBodyKinematics(m, s, ws);
  calcMarkerKinematics(m, ws);
  if (kind == Kind::Bushing) calcBushingScalar(m, ws, static_cast<int>(e));
  else calcP2PScalar(m, ws, static_cast<int>(e));
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
    calcBodyKinematics(*m, s, ws);
    calcMarkerKinematics(*m, ws);
    for (std::size_t e = 0; e < m->bushings.size(); ++e) calcBushingScalar(*m, ws, static_cast<int>(e));
    for (std::size_t e = 0; e < m->p2ps.size(); ++e) calcP2PScalar(*m, ws, static_cast<int>(e));
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

  // The lane kernels are the scalar instantiation of the same laws, kLanes at a time: every value,
  // side partial, row block and branch coupling equal to round-off (the compiler fuses
  // multiply-adds of scalar and vector code in different places, so not always to the last bit),
  // with curves, constant laws, Maxwell branches (eliminated with a stage gain), grounded and
  // free-floating sides, P2P stops.
  void lanesEqualTheScalarLaws_data() {
    QTest::addColumn<unsigned>("seed");
    QTest::addColumn<bool>("ground");
    QTest::addColumn<bool>("branches");
    QTest::newRow("grounded, curves and constants") << 61u << true << false;
    QTest::newRow("free floating") << 67u << false << false;
    QTest::newRow("Maxwell branches") << 71u << true << true;
  }
  void lanesEqualTheScalarLaws() {
    QFETCH(unsigned, seed);
    QFETCH(bool, ground);
    QFETCH(bool, branches);
    Project p = test::randomProject(seed, 5, 13, 7, ground);
    withLinearLaws(p);
    if (branches) test::addMaxwellBranches(p, seed);
    const auto m = SuspensionModel::build(p);
    State s;
    m->initialState(s.r, s.v);
    for (int i = 0; i < s.v.size(); ++i) s.v[i] = 0.05 * std::sin(1.0 + i);
    const double gain = branches ? 1e-3 * (1.0 - std::sqrt(0.5)) : 0.0;
    Workspace lanes(*m), scalar(*m);
    for (Workspace* ws : {&lanes, &scalar}) {
      if (branches) {
        ws->z = m->relaxedElementStates();
        for (int i = 0; i < ws->z.size(); ++i) ws->z[i] = 1e-4 * std::cos(2.0 + i);
      }
      calcBodyKinematics(*m, s, *ws);
      calcMarkerKinematics(*m, *ws);
    }
    calcBushings(*m, lanes, ElementPass{true, RowBlocks::InElements, gain, true});
    calcP2Ps(*m, lanes, ElementPass{true, RowBlocks::InElements, 0.0, true});
    for (std::size_t e = 0; e < m->bushings.size(); ++e) calcBushingScalar(*m, scalar, static_cast<int>(e), gain);
    for (std::size_t e = 0; e < m->p2ps.size(); ++e) calcP2PScalar(*m, scalar, static_cast<int>(e));
    // The largest difference of a quantity relative to its largest entry, over all quantities.
    double worst = 0.0;
    int quantities = 0, identical = 0;
    auto compare = [&](const auto& a, const auto& b) {
      const double scale = b.cwiseAbs().maxCoeff(), d = (a - b).cwiseAbs().maxCoeff();
      worst = std::max(worst, scale > 0.0 ? d / scale : d);
      ++quantities;
      identical += d == 0.0;
    };
    auto compareWrench = [&](const ElementWrench& a, const ElementWrench& b, MarkerIndex i, MarkerIndex j) {
      QCOMPARE(a.torque, b.torque);
      for (auto [x, y] : {std::pair{&a.F, &b.F}, std::pair{&a.tau, &b.tau}}) compare(*x, *y);
      for (auto [x, y] : {std::pair{&a.Fp, &b.Fp}, std::pair{&a.Fv, &b.Fv}, std::pair{&a.FthA, &b.FthA},
                          std::pair{&a.FwA, &b.FwA}, std::pair{&a.FthB, &b.FthB}, std::pair{&a.FwB, &b.FwB},
                          std::pair{&a.TthA, &b.TthA}, std::pair{&a.TwA, &b.TwA}, std::pair{&a.TthB, &b.TthB},
                          std::pair{&a.TwB, &b.TwB}})
        compare(*x, *y);
      if (lanes.markers[i.value].moves)
        for (auto [x, y] : {std::pair{&a.aa, &b.aa}, std::pair{&a.ba, &b.ba}}) compare(x->r, y->r), compare(x->v, y->v);
      if (lanes.markers[j.value].moves)
        for (auto [x, y] : {std::pair{&a.ab, &b.ab}, std::pair{&a.bb, &b.bb}}) compare(x->r, y->r), compare(x->v, y->v);
    };
    for (std::size_t e = 0; e < m->bushings.size(); ++e) {
      const BushingResult &a = lanes.bushings[e], &b = scalar.bushings[e];
      compare(a.deflection, b.deflection), compare(a.rate, b.rate), compare(a.force, b.force);
      compareWrench(a.wrench, b.wrench, m->bushings[e].i, m->bushings[e].j);
    }
    for (std::size_t e = 0; e < m->p2ps.size(); ++e) {
      const P2PResult &a = lanes.p2ps[e], &b = scalar.p2ps[e];
      QVERIFY2(a.length == b.length && a.rate == b.rate && a.tension == b.tension, qPrintable(QString::number(e)));
      compareWrench(a.wrench, b.wrench, m->p2ps[e].i, m->p2ps[e].j);
    }
    for (std::size_t d = 0; d < m->branchDirections.size(); ++d) {
      const BranchCoupling &a = lanes.branches[d], &b = scalar.branches[d];
      for (auto [x, y] : {std::pair{&a.wA, &b.wA}, std::pair{&a.wB, &b.wB}, std::pair{&a.grA, &b.grA},
                          std::pair{&a.grB, &b.grB}, std::pair{&a.gvA, &b.gvA}, std::pair{&a.gvB, &b.gvB},
                          std::pair{&a.drA, &b.drA}, std::pair{&a.drB, &b.drB}})
        compare(*x, *y);
      QCOMPARE(a.scale, b.scale);
      QCOMPARE(a.scaleSlope, b.scaleSlope);
    }
    qInfo("%d quantities, %d identical to the last bit; largest difference %.2e of the quantity's largest entry",
          quantities, identical, worst);
    QVERIFY(quantities > 300);
    QVERIFY2(worst <= 1e-13, qPrintable(QString::number(worst)));
    QVERIFY(!branches || m->branchDirections.size() >= 3);
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
