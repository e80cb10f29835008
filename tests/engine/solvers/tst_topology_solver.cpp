// SPDX-License-Identifier: GPL-3.0-or-later
// The topology solver against dense LU: relative residual <= 1e-12 on the shipped axles and on
// random topologies; fill-in and the elimination order; the parallel factorization and split
// solve give the serial results bit for bit on any number of threads.
#include <QtTest>

#include <set>

#include "engine/core/error.h"
#include "engine/dynamics/linearize.h"
#include "engine/integrators/lsrt2.h"
#include "engine/model/project_io.h"
#include "engine/solvers/klu_solver.h"
#include "engine/solvers/topology_solver.h"
#include "support/test_models.h"

using namespace ek;

namespace {

/// A of paper 003 eq. (19) at the model's initial state, as LSRT2 assembles it.
std::vector<Mat6> coefficientMatrix(const SuspensionModel& m, double dt) {
  State s;
  m.initialState(s.r, s.v);
  Workspace ws(m);
  linearize(m, s, VecX::Zero(m.nInputs()), ws);
  const double hg = dt * Lsrt2::kGamma;
  std::vector<Mat6> A(m.pattern.nBlocks());
  for (int l = 0; l < m.nFreeBodies(); ++l)
    for (int b = m.pattern.rowStart[l]; b < m.pattern.rowStart[l + 1]; ++b) {
      const int c = m.pattern.col[b];
      Mat6 K = Mat6::Identity();
      K.bottomRightCorner<3, 3>() = ws.Kinv[c];
      A[b] = -hg * ws.Jv[b] - hg * hg * ws.Jr[b] * K;
    }
  for (int l = 0; l < m.nFreeBodies(); ++l) {
    const ModelBody& body = m.bodies[m.freeBodies[l]];
    A[m.pattern.diag[l]].topLeftCorner<3, 3>().diagonal().array() += body.mass;
    A[m.pattern.diag[l]].bottomRightCorner<3, 3>() += body.inertia;
  }
  return A;
}

double residual(const SuspensionModel& m, LinearSolver& solver, const std::vector<Mat6>& A) {
  solver.factorize(A);
  const VecX b = VecX::Random(m.nDof());
  VecX x(m.nDof());
  solver.solve(b, x);
  const MatX D = blockToDense(m.pattern, A);
  return (D * x - b).norm() / (D.norm() * x.norm());
}

}  // namespace

class TestTopologySolver : public QObject {
  Q_OBJECT
 private slots:
  void shippedAxles_data() {
    QTest::addColumn<QString>("project");
    QTest::newRow("double wishbone") << "double_wishbone";
    QTest::newRow("multilink") << "multilink";
  }
  void shippedAxles() {
    QFETCH(QString, project);
    const auto m = SuspensionModel::build(
        readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/" + project.toStdString() + ".json"));
    const auto A = coefficientMatrix(*m, 1e-3);
    TopologySolver topo(*m);
    KluSolver klu(*m);
    DenseLuSolver dense(*m);
    const double rt = residual(*m, topo, A), rk = residual(*m, klu, A), rd = residual(*m, dense, A);
    qInfo("relative residuals: topology %.2e, klu %.2e, dense %.2e; %d factor blocks (%d fill), %d block updates",
          rt, rk, rd, topo.factorBlocks(), topo.fillBlocks(), topo.updateOperations());
    QVERIFY(rt <= 1e-12);
    QVERIFY(rk <= 1e-12);
    // The same solution as dense LU.
    const VecX b = VecX::Random(m->nDof());
    VecX xt(m->nDof()), xd(m->nDof());
    topo.solve(b, xt);
    dense.solve(b, xd);
    QVERIFY((xt - xd).norm() <= 1e-10 * xd.norm());
  }

  void randomTopologies() {
    for (unsigned seed = 1; seed <= 25; ++seed) {
      const int nFree = 3 + static_cast<int>(seed % 17);
      const auto m = SuspensionModel::build(test::randomProject(seed, nFree, nFree + 3 + seed % 7, 2 + seed % 4, seed % 5 != 0));
      const auto A = coefficientMatrix(*m, 1e-3);
      TopologySolver topo(*m);
      const double r = residual(*m, topo, A);
      QVERIFY2(r <= 1e-12, qPrintable(QString("seed %1: residual %2").arg(seed).arg(r)));
      QCOMPARE(static_cast<int>(topo.order().size()), m->nFreeBodies());
    }
  }

  // The split: subtrees (here in reverse order, so that no part relies on another's having run;
  // the parallel step's threads: tst_parallel_step), the separator after them; the factor
  // and the solution are those of the serial solver, bit for bit (the same operations in the same
  // order on every block), for the shipped projects and random topologies, on 2 to 4 threads.
  void parallelEqualsSerialBitForBit() {
    std::vector<std::pair<std::string, std::shared_ptr<const SuspensionModel>>> models;
    for (const char* p : {"double_wishbone", "multilink", "full_vehicle"})
      models.push_back({p, SuspensionModel::build(readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/" + p + ".json"))});
    for (unsigned seed = 1; seed <= 12; ++seed) {
      const int nFree = 4 + static_cast<int>(seed % 15);
      models.push_back({"random " + std::to_string(seed),
                        SuspensionModel::build(test::randomProject(seed, nFree, nFree + 3 + seed % 7, 2 + seed % 4, true))});
    }
    for (const auto& [name, m] : models) {
      const auto A = coefficientMatrix(*m, 1e-3);
      const VecX b = VecX::Random(m->nDof());
      TopologySolver serial(*m);
      serial.factorize(A);
      VecX xs(m->nDof());
      serial.solve(b, xs);
      for (int threads : {2, 3, 4}) {
        TopologySolver par(*m);
        par.split(threads);
        QCOMPARE(par.parts(), threads);
        par.factorize(A);
        VecX xp = VecX::Constant(m->nDof(), std::nan(""));
        for (int t = threads - 1; t >= 0; --t) par.forwardSubtrees(t, b);
        par.solveSeparator(b, xp);
        for (int t = threads - 1; t >= 0; --t) par.backSubstituteSubtrees(t, xp);
        QVERIFY2(xp == xs, qPrintable(QString::fromStdString(name) + QString(", %1 threads: max difference %2")
                                          .arg(threads).arg((xp - xs).cwiseAbs().maxCoeff())));
        VecX xq(m->nDof());
        par.solve(b, xq);  // the plain solve on the parallel factor
        QVERIFY(xq == xs);
        // A written into the solver's own blocks and factorized in place: the same factor, with
        // the subtrees one after the other and on the threads.
        for (int s = 0; s < m->pattern.nBlocks(); ++s) *par.blockStorage(s) = A[s];
        par.factorizeInPlace();
        xq.setConstant(std::nan(""));
        par.solve(b, xq);
        QVERIFY(xq == xs);
        for (int s = 0; s < m->pattern.nBlocks(); ++s) *par.blockStorage(s) = A[s];
        for (int t = threads - 1; t >= 0; --t) par.factorizeSubtree(t);
        par.factorizeSeparator();
        xq.setConstant(std::nan(""));
        par.solve(b, xq);
        QVERIFY(xq == xs);
        if (threads == 2) {
          const auto c = par.threadCosts();
          qInfo("%-16s 2 threads: block products %.0f / %.0f on the threads, %.0f on the separator", name.c_str(), c[0],
                c[1], par.separatorCost());
        }
      }
    }
  }

  // The subtrees' thread labels follow a hint (the parallel step's contiguous ranges of bodies):
  // on the full vehicle the front axle's subtree goes to the hint's thread of the front bodies,
  // whichever that is, and the split itself (which bodies share a thread) does not change.
  void threadLabelsFollowTheHint() {
    const auto m = SuspensionModel::build(readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/full_vehicle.json"));
    const int n = m->nFreeBodies();
    std::vector<int> front(n), rear(n);  // thread 0 or 1 for the first half of the bodies
    for (int l = 0; l < n; ++l) front[l] = l < n / 2 ? 0 : 1, rear[l] = 1 - front[l];
    TopologySolver a(*m), b(*m);
    a.split(2, front);
    b.split(2, rear);
    const std::vector<int> ta = a.bodyParts(), tb = b.bodyParts();
    int agreeA = 0, agreeB = 0, subtreeBodies = 0;
    for (int l = 0; l < n; ++l) {
      QCOMPARE(ta[l] < 0, tb[l] < 0);  // the same separator
      if (ta[l] < 0) continue;
      ++subtreeBodies;
      QCOMPARE(tb[l], 1 - ta[l]);  // the same split, labels swapped
      agreeA += ta[l] == front[l];
      agreeB += tb[l] == rear[l];
    }
    QVERIFY2(agreeA >= 0.9 * subtreeBodies && agreeB >= 0.9 * subtreeBodies,
             qPrintable(QString("%1 and %2 of %3 bodies agree").arg(agreeA).arg(agreeB).arg(subtreeBodies)));
    // The factor does not depend on the labels.
    const auto A = coefficientMatrix(*m, 1e-3);
    const VecX rhs = VecX::Random(m->nDof());
    VecX xa(m->nDof()), xb(m->nDof());
    a.factorize(A);
    a.solve(rhs, xa);
    b.factorize(A);
    b.solve(rhs, xb);
    QVERIFY(xa == xb);
  }

  // A chain needs no fill when eliminated from its ends (minimum degree finds that).
  // Pivot blocks are inverted by their 3x3 blocks; where the translational block or its Schur
  // complement is ill-conditioned, by Gauss-Jordan with partial pivoting. The shipped axle's A
  // with the translation and rotation columns of every body swapped (A Q, Q = [[0, I], [I, 0]]
  // per body: as well conditioned as A) has the translation-rotation couplings where the mass
  // was, ill-conditioned at about half the pivots; A with the rotation columns scaled by 1e-9
  // has nearly singular complements at some. Both solve to a relative residual of 1e-12, and a
  // singular A is reported.
  void illConditionedPartsOfPivotBlocks() {
    const auto m = SuspensionModel::build(readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json"));
    const auto A = coefficientMatrix(*m, 1e-3);
    TopologySolver topo(*m);
    const double base = residual(*m, topo, A);
    Mat6 Q = Mat6::Zero();
    Q.topRightCorner<3, 3>().setIdentity();
    Q.bottomLeftCorner<3, 3>().setIdentity();
    Mat6 S = Mat6::Identity();
    S.bottomRightCorner<3, 3>() *= 1e-9;
    for (const Mat6& T : {Q, S}) {
      std::vector<Mat6> B = A;
      for (Mat6& b : B) b = b * T;
      TopologySolver solver(*m);
      const double r = residual(*m, solver, B);
      qInfo("residual %.2e (A itself: %.2e)", r, base);
      QVERIFY2(r <= 1e-12, qPrintable(QString("residual %1").arg(r)));
    }
    std::vector<Mat6> singular = A;
    singular[m->pattern.diag[3]].row(4).setZero();
    for (int s = m->pattern.rowStart[3]; s < m->pattern.rowStart[4]; ++s) singular[s].row(4).setZero();
    TopologySolver solver(*m);
    try {
      solver.factorize(singular);
      QFAIL("a singular A was factorized");
    } catch (const SimulationError& e) {
      QVERIFY2(std::string(e.what()).find("singular") != std::string::npos, e.what());
    }
  }

  // The elimination order is the exact minimum degree (ties by index) of the body graph, as the
  // straightforward O(n^2) elimination on sets computes it; the symbolic factor's blocks and the
  // fill are those of eliminating in that order. Random topologies up to 300 bodies (those without
  // ground: its id is 100).
  void minimumDegreeOrderAndFillAreExact() {
    for (unsigned seed = 1; seed <= 12; ++seed) {
      const int nFree = seed <= 9 ? 5 + static_cast<int>(seed * 7) : 300;
      std::shared_ptr<const SuspensionModel> m;
      try {
        m = SuspensionModel::build(test::randomProject(seed, nFree, nFree + nFree / 2, 3, nFree < 100));
      } catch (const std::exception& e) {
        QFAIL(e.what());
      }
      const BlockPattern& bp = m->pattern;
      const int n = m->nFreeBodies();
      std::vector<std::set<int>> g(n);
      for (int i = 0; i < n; ++i)
        for (int s = bp.rowStart[i]; s < bp.rowStart[i + 1]; ++s)
          if (bp.col[s] != i) g[i].insert(bp.col[s]);
      std::vector<bool> done(n, false);
      std::vector<int> order;
      std::set<std::pair<int, int>> filled;  // (row, column) bodies of L+U
      for (int i = 0; i < n; ++i) {
        filled.insert({i, i});
        for (int j : g[i]) filled.insert({i, j});
      }
      for (int step = 0; step < n; ++step) {
        int best = -1;
        for (int v = 0; v < n; ++v)
          if (!done[v] && (best < 0 || g[v].size() < g[best].size())) best = v;
        order.push_back(best);
        done[best] = true;
        const std::vector<int> nb(g[best].begin(), g[best].end());
        for (int a : nb) {
          g[a].erase(best);
          for (int b : nb)
            if (a != b) g[a].insert(b), filled.insert({a, b});
        }
      }
      TopologySolver topo(*m);
      QCOMPARE(topo.order(), order);
      QCOMPARE(topo.factorBlocks(), static_cast<int>(filled.size()));
      QCOMPARE(topo.fillBlocks(), static_cast<int>(filled.size()) - bp.nBlocks());
      for (int i = 0; i < n; ++i)
        for (int s = topo.factorRowStart()[i]; s < topo.factorRowStart()[i + 1]; ++s)
          QVERIFY(filled.count({order[i], order[topo.factorColumns()[s]]}));
    }
  }

  void chainHasNoFill() {
    const auto m = SuspensionModel::build(test::randomProject(3, 8, 7, 0, false));
    TopologySolver topo(*m);
    QCOMPARE(topo.fillBlocks(), 0);
  }
};

QTEST_APPLESS_MAIN(TestTopologySolver)
#include "tst_topology_solver.moc"
