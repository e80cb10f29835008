// SPDX-License-Identifier: GPL-3.0-or-later
// LSRT2 (paper 003 eqs. 10-17): order 2 on a smooth nonlinear problem, L-stable damping of a
// stiff oscillator, and the effect of the d(Kv)/dr term for rotating bodies.
#include <QtTest>

#include <cmath>

#include "engine/dynamics/linearize.h"
#include "engine/integrators/lsrt2.h"
#include "engine/integrators/stage_system.h"
#include "engine/model/signal.h"
#include "engine/solvers/solver_factory.h"
#include "engine/model/project_io.h"
#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

struct Errors {
  double r, v;
};
Errors errorsAt(double dt, const State& ref, bool kinDeriv) {
  const auto sim = test::runProject(test::spinningBody(), "free", dt, 1, kinDeriv);
  return {(sim->state().r - ref.r).norm(), (sim->state().v - ref.v).norm()};
}

/// Velocities of every body, the rotations fast (gyroscopic terms matter).
void spin(State& s) {
  for (int i = 0; i < s.v.size(); ++i) s.v[i] = (i % 6 < 3 ? 0.3 : 4.0) * std::sin(0.7 + i);
}

}  // namespace

class TestLsrt2 : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { ref_ = test::runProject(test::spinningBody(), "free", 1e-5)->state(); }

  // Every method builds its stage matrix A (and LSRT2 its products J_r y + J_v dv) from the
  // world-wrench partials (J_r, J_v folded in); both equal A = M - hg J_v - hg^2 J_r Kt and the
  // products formed from the linearization's J_r, J_v to round-off, on the shipped
  // axle and a random model, with spinning bodies (gyroscopic terms) and torques.
  void stageSystemFromWrenchPartials_data() {
    QTest::addColumn<int>("model");
    QTest::newRow("double wishbone") << 0;
    QTest::newRow("random model") << 1;
  }
  void stageSystemFromWrenchPartials() {
    QFETCH(int, model);
    const auto m = SuspensionModel::build(
        model == 0 ? readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json")
                   : test::randomProject(61, 6, 12, 4, true));
    State s;
    m->initialState(s.r, s.v);
    spin(s);
    for (int i = 0; i < s.r.size(); ++i) s.r[i] += 1e-3 * std::cos(1.3 * i);
    Workspace ws(*m);
    const VecX u = VecX::Constant(m->nInputs(), 0.01);
    linearize(*m, s, u, ws);
    const int nb = m->nFreeBodies();
    const double hg = 1e-3 * 0.2928932188134524;
    std::vector<Mat3> P(nb), Kt(nb), RTKt(nb);
    for (int l = 0; l < nb; ++l) {
      stageKinematics(ws.N[l], ws.Kinv[l], hg, true, P[l], Kt[l]);
      RTKt[l] = ws.bodies[m->freeBodies[l]].RT * Kt[l];
    }
    std::vector<Mat6> A(m->pattern.nBlocks()), Aw(m->pattern.nBlocks());
    std::vector<Mat6*> AwSlots;
    for (Mat6& b : Aw) AwSlots.push_back(&b);
    for (int l = 0; l < nb; ++l) {
      for (int s2 = m->pattern.rowStart[l]; s2 < m->pattern.rowStart[l + 1]; ++s2) {
        Mat6 KtCols = Mat6::Identity();  // diag(I, Kt) of the column's body
        KtCols.bottomRightCorner<3, 3>() = Kt[m->pattern.col[s2]];
        A[s2] = -hg * ws.Jv[s2] - hg * hg * ws.Jr[s2] * KtCols;
      }
      const ModelBody& body = m->bodies[m->freeBodies[l]];
      A[m->pattern.diag[l]].topLeftCorner<3, 3>() += body.mass * Mat3::Identity();
      A[m->pattern.diag[l]].bottomRightCorner<3, 3>() += body.inertia;
      assembleStageMatrixRowFromWrenches(*m, ws, l, hg, hg * hg, RTKt, AwSlots.data());
    }
    double worstA = 0.0;  // Aw has its torque rows in world axes: diag(I, R_l) A
    for (int l = 0; l < nb; ++l)
      for (int s2 = m->pattern.rowStart[l]; s2 < m->pattern.rowStart[l + 1]; ++s2) {
        Mat6 rowsToWorld = Mat6::Identity();
        rowsToWorld.bottomRightCorner<3, 3>() = ws.bodies[m->freeBodies[l]].R;
        const Mat6 ref = rowsToWorld * A[s2];
        worstA = std::max(worstA, (ref - Aw[s2]).norm() / std::max(ref.norm(), 1e-300));
      }
    const VecX y = VecX::Random(m->nDof()), dv = VecX::Random(m->nDof());
    VecX ref = ws.h;
    blockMultiplyAdd(m->pattern, ws.Jr, y, ref);
    VecX refV = ref;
    blockMultiplyAdd(m->pattern, ws.Jv, dv, refV);
    // StageSystem's rows with R_r = 0 and the offsets y, dv: b + J_r y (+ J_v dv) in A's world-
    // torque rows.
    StageSystem sys(*m, makeLinearSolver("topology", *m), true);
    sys.beginAssembly(hg);
    for (int l = 0; l < nb; ++l) sys.bodyOfA(ws, l);
    for (int l = 0; l < nb; ++l) sys.rowOfA(ws, l);
    const VecX zero = VecX::Zero(m->nDof());
    auto products = [&](const VecX* dvOffset) {
      for (int l = 0; l < nb; ++l) sys.stageRow(l, zero, &y);
      for (int l = 0; l < nb; ++l) sys.rhsRow(ws, l, ws.h, dvOffset);
      VecX out = sys.rhs();
      for (int l = 0; l < nb; ++l)  // back to generalized rows
        out.segment<3>(6 * l + 3) = ws.bodies[m->freeBodies[l]].R.transpose() * out.segment<3>(6 * l + 3);
      return out;
    };
    const VecX outR = products(nullptr), out = products(&dv);
    const double eR = (outR - ref).norm() / ref.norm(), eV = (out - refV).norm() / refV.norm();
    qInfo("largest relative difference: A blocks %.1e, J_r y %.1e, J_r y + J_v dv %.1e", worstA, eR, eV);
    QVERIFY2(worstA <= 1e-12 && eR <= 1e-12 && eV <= 1e-12, "A or the stage products differ beyond round-off");
  }

  // After a first stage at the linearization, the second stage takes c (J_r dr1 + J_v dv1)
  // from the first stage's equation, c (M dv1 - q1) / hg: the steps equal those with both
  // products to round-off. The full vehicle (motion inputs: the wheel pads on the bump) and a
  // random model, with spinning bodies (gyroscopic terms).
  void secondStageFromTheFirstStageEquation_data() {
    QTest::addColumn<int>("model");
    QTest::newRow("full vehicle, bump") << 0;
    QTest::newRow("random model") << 1;
  }
  void secondStageFromTheFirstStageEquation() {
    QFETCH(int, model);
    Project p = model == 0 ? readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/full_vehicle.json")
                           : test::randomProject(61, 6, 12, 4, true);
    if (model == 1) test::addFreeLoadCase(p, 1.0);
    const auto m = SuspensionModel::build(p);
    const LoadCaseRow& lc = model == 0 ? p.loadCases.front() : p.loadCases.back();
    const InputSignals inputs(*m, lc);
    State s0;
    m->initialState(s0.r, s0.v);
    spin(s0);
    s0.t = model == 0 ? 0.05 : 0.0;  // the front pads on the bump
    Lsrt2Options on, off;
    off.secondStageFromFirst = false;
    Lsrt2 a(*m, on, makeLinearSolver("topology", *m)), b(*m, off, makeLinearSolver("topology", *m));
    Workspace wa(*m), wb(*m);
    State sa = s0, sb = s0;
    for (int k = 0; k < 20; ++k) {
      a.step(sa, inputs, wa);
      b.step(sb, inputs, wb);
    }
    const double dr = (sa.r - sb.r).norm() / (sb.r - s0.r).norm(), dv = (sa.v - sb.v).norm() / (sb.v - s0.v).norm();
    qInfo("20 steps: relative difference of the changes of r %.1e, of v %.1e", dr, dv);
    QVERIFY2(dr <= 1e-10 && dv <= 1e-10, "the second stage from the first stage's equation differs beyond round-off");
    QVERIFY(dr > 0.0 || dv > 0.0);  // the two paths did run different arithmetic
  }

  void secondOrderConvergence() {
    const Errors e4 = errorsAt(4e-3, ref_, true), e2 = errorsAt(2e-3, ref_, true), e1 = errorsAt(1e-3, ref_, true);
    const double orderR = std::log2(e2.r / e1.r), orderV = std::log2(e2.v / e1.v);
    qInfo("errors in r: %.3e %.3e %.3e (ratios %.2f %.2f); in v: %.3e %.3e %.3e (ratios %.2f %.2f)", e4.r, e2.r, e1.r,
          e4.r / e2.r, e2.r / e1.r, e4.v, e2.v, e1.v, e4.v / e2.v, e2.v / e1.v);
    QVERIFY2(orderR > 1.8 && orderR < 2.3, qPrintable(QString("order in r: %1").arg(orderR)));
    QVERIFY2(orderV > 1.8 && orderV < 2.3, qPrintable(QString("order in v: %1").arg(orderV)));
  }

  // The papers' frozen K_lin drops d(K v)/dr: first order once bodies rotate.
  void frozenKinematicsIsFirstOrderForRotation() {
    const Errors e2 = errorsAt(2e-3, ref_, false), e1 = errorsAt(1e-3, ref_, false);
    const Errors n1 = errorsAt(1e-3, ref_, true);
    const double order = std::log2(e2.r / e1.r);
    qInfo("frozen K: errors in r %.3e %.3e (order %.2f); with d(Kv)/dr at 1 ms: %.3e", e2.r, e1.r, order, n1.r);
    QVERIFY(order < 1.5);
    QVERIFY(n1.r < e1.r);
  }

  void stiffOscillatorBoundedAndDecays() {
    const test::StiffDecay d = test::stiffOscillatorDecay("lsrt2");  // omega dt = 15.8 at dt = 5 ms
    qInfo("stiff oscillator: max |x| %.3e, |x| after 5 steps %.3e, final %.3e", d.maxAbs, d.after5, d.final);
    QVERIFY(d.maxAbs <= 1e-3 * (1 + 1e-12));
    QVERIFY(d.after5 < 1e-4);
    QVERIFY(d.final < 1e-12);
  }

  void linearizeEveryNthStepStillConverges() {
    const auto a = test::runProject(test::spinningBody(), "free", 1e-3, 2);
    const auto b = test::runProject(test::spinningBody(), "free", 5e-4, 4);
    const double ea = (a->state().r - ref_.r).norm(), eb = (b->state().r - ref_.r).norm();
    qInfo("linearized every 2 ms: error %.3e at dt = 1 ms, %.3e at dt = 0.5 ms", ea, eb);
    QVERIFY(ea < 1e-3);
    QVERIFY(eb < 1e-3);
  }

 private:
  State ref_;
};

QTEST_APPLESS_MAIN(TestLsrt2)
#include "tst_lsrt2.moc"
