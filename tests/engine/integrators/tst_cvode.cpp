// SPDX-License-Identifier: GPL-3.0-or-later
// The CVODE reference's two Newton solvers: the sparse (KLU) Jacobian in compressed columns equals
// the dense one entry for entry, its pattern is well formed, and dense and KLU runs agree.
#include <QtTest>

#include <random>

#include "engine/analysis/simulation.h"
#include "engine/integrators/cvode_integrator.h"
#include "engine/model/project_io.h"
#include "engine/model/signal.h"
#include "support/test_models.h"
#include "support/runs.h"

using namespace ek;

namespace {

/// A shipped project, or "flexible_bar" (test::flexibleBar() with 8 modes and gravity, load case
/// "free"), with Maxwell branches when asked.
std::shared_ptr<const SuspensionModel> load(const std::string& name, bool branches = false) {
  Project p;
  if (name == "flexible_bar") {
    p = test::flexibleBar(8, true);
    test::addFreeLoadCase(p, 1.0);
    // Progressive mounts (2e6 N/m at rest), so that their branches scale with the curve's slope.
    p.curves.push_back({1, "progressive mount", "pchip", "linear",
                        {{-2e-3, -6e3}, {-5e-4, -1.05e3}, {0.0, 0.0}, {5e-4, 1.05e3}, {2e-3, 6e3}}});
    for (BushingRow& b : p.bushings)
      if (b.id <= 2)
        for (int d = 0; d < 3; ++d) b.directions[d].stiffness.curve = 1;
  } else {
    p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/" + name + ".json");
  }
  if (branches) test::addMaxwellBranches(p, 5);
  return SuspensionModel::build(p);
}

/// A random state (r, v, z) of the reference's size.
std::vector<double> randomState(const SuspensionModel& m, unsigned seed) {
  const int n = m.nDof(), N = 2 * n + m.nElementStates();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> y(N);
  for (int k = 0; k < N; ++k) y[k] = (k < n ? 0.01 : k < 2 * n ? 0.5 : 1e-3) * d(rng);
  return y;
}

}  // namespace

class TestCvode : public QObject {
  Q_OBJECT
 private slots:
  void sparseJacobianEqualsDense_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("loadCase");
    QTest::newRow("multilink") << "multilink" << "LC1";
    QTest::newRow("full vehicle") << "full_vehicle" << "bump";
    QTest::newRow("double wishbone with Maxwell branches") << "double_wishbone+maxwell" << "LC2";
    QTest::newRow("flexible bar with Maxwell branches") << "flexible_bar+maxwell" << "free";
  }
  void sparseJacobianEqualsDense() {
    QFETCH(QString, project);
    QFETCH(QString, loadCase);
    const bool branches = project.endsWith("+maxwell");
    const auto m = load(project.section('+', 0, 0).toStdString(), branches);
    const LoadCaseRow& lc = *m->loadCase(loadCase.toStdString());
    IntegratorOptions o;
    o.method = "cvode";
    o.cvodeSolver = "klu";
    CvodeIntegrator cv(*m, o, lc);
    InputSignals inputs(*m, lc);
    cv.bindInputs(inputs);

    const int N = 2 * m->nDof() + m->nElementStates();
    QCOMPARE(m->nElementStates() > 0, branches);
    const std::vector<double> y = randomState(*m, 13);

    std::vector<double> dense(std::size_t(N) * N);
    cv.jacobian(0.7, y.data(), dense.data(), N);
    const long nnz = cv.jacobianNonzeros();
    std::vector<sunindextype> colPtr(N + 1, -1), rowIdx(nnz, -1);
    std::vector<double> val(nnz, 0.0);
    cv.sparseJacobian(0.7, y.data(), colPtr.data(), rowIdx.data(), val.data());

    QCOMPARE(long(colPtr[0]), 0L);
    QCOMPARE(long(colPtr[N]), nnz);
    std::vector<double> expanded(std::size_t(N) * N, 0.0);
    for (int j = 0; j < N; ++j) {
      QVERIFY(colPtr[j + 1] >= colPtr[j]);
      for (sunindextype k = colPtr[j]; k < colPtr[j + 1]; ++k) {
        QVERIFY(rowIdx[k] >= 0 && rowIdx[k] < N);
        if (k > colPtr[j]) QVERIFY2(rowIdx[k] > rowIdx[k - 1], "rows ascending, no duplicates");
        expanded[std::size_t(j) * N + rowIdx[k]] = val[k];
      }
    }
    long structuralNonzeros = 0, differences = 0;
    for (std::size_t k = 0; k < dense.size(); ++k) {
      structuralNonzeros += dense[k] != 0.0;
      if (dense[k] != expanded[k] && differences++ < 5)
        qInfo("row %d column %d: dense %.17g sparse %.17g", int(k % N), int(k / N), dense[k], expanded[k]);
    }
    qInfo("%d states: %ld stored entries (%.2f %%), %ld nonzero in the dense Jacobian, %ld differ", N, nnz,
          100.0 * nnz / (double(N) * N), structuralNonzeros, differences);
    QCOMPARE(differences, 0L);
    QVERIFY(structuralNonzeros > N);
  }

  // The reference's Jacobian with Maxwell branches (the z columns -M^-1 k_i W, the z rows G_r,
  // G_v and -k_i / c_i) against central differences of its right-hand side at random states; on
  // the flexible bar the branches of its mounts act on its modes and their rates depend on them
  // (docs/flexible-bodies.md, "Maxwell branches").
  void jacobianWithBranchesMatchesDifferences_data() {
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("loadCase");
    QTest::newRow("double wishbone") << "double_wishbone" << "LC2";
    QTest::newRow("flexible bar") << "flexible_bar" << "free";
  }
  void jacobianWithBranchesMatchesDifferences() {
    QFETCH(QString, project);
    QFETCH(QString, loadCase);
    const auto m = load(project.toStdString(), true);
    const LoadCaseRow& lc = *m->loadCase(loadCase.toStdString());
    IntegratorOptions o;
    o.method = "cvode";
    CvodeIntegrator cv(*m, o, lc);
    InputSignals inputs(*m, lc);
    cv.bindInputs(inputs);
    const int n = m->nDof(), N = 2 * n + m->nElementStates();
    QVERIFY(m->nElementStates() >= 10);
    int scaled = 0;  // directions whose branches follow a curve's slope (the trailing-arm bushings' x)
    for (const auto& dir : m->branchDirections) scaled += dir.scaled;
    QVERIFY(scaled > 0);
    for (unsigned seed : {3u, 4u}) {
      // Near the modelled state (the characteristic curves are smooth pieces there).
      std::vector<double> y = randomState(*m, seed);
      VecX r0, v0;
      m->initialState(r0, v0);
      for (int k = 0; k < n; ++k) y[k] = r0[k] + 0.01 * y[k];
      MatX J(N, N);
      cv.jacobian(0.7, y.data(), J.data(), N);
      VecX fp(N), fm(N);
      double worst = 0.0, worstBranch = 0.0;
      for (int j = 0; j < N; ++j) {
        // Steps 1e-7 on positions; 1e-5 on velocities and branch deflections, on which the
        // right-hand side depends (nearly) linearly, so that round-off stays small.
        const double y0 = y[j], h = std::max(1.0, std::abs(y0)) * (j < n ? 1e-7 : 1e-5);
        y[j] = y0 + h;
        cv.rhs(0.7, y.data(), fp.data());
        y[j] = y0 - h;
        cv.rhs(0.7, y.data(), fm.data());
        y[j] = y0;
        const VecX fd = (fp - fm) / (2 * h);
        const double scale = std::max(J.col(j).cwiseAbs().maxCoeff(), fd.cwiseAbs().maxCoeff());
        if (scale == 0.0) continue;
        const double e = (J.col(j) - fd).cwiseAbs().maxCoeff() / scale;
        if (e > 1e-6) {
          Eigen::Index row;
          (J.col(j) - fd).cwiseAbs().maxCoeff(&row);
          qInfo("column %d row %d: analytic %.10g differences %.10g (scale %.3g)", j, int(row), J(row, j), fd[row], scale);
        }
        worst = std::max(worst, e);
        // The rows of the branch states, over every column.
        const double eb = (J.col(j).tail(N - 2 * n) - fd.tail(N - 2 * n)).cwiseAbs().maxCoeff() / scale;
        worstBranch = std::max(worstBranch, eb);
      }
      qInfo("seed %u, %d states (%d branch deflections): largest column error %.2e, in the branch rows %.2e", seed, N,
            m->nElementStates(), worst, worstBranch);
      QVERIFY(worst <= 1e-6);
      QVERIFY(J.bottomRightCorner(N - 2 * n, N - 2 * n).diagonal().maxCoeff() < 0.0);
    }
  }

  // The same reference with either Newton solver: the runs agree far below the tolerance.
  void denseAndKluRunsAgree() {
    const auto m = load("double_wishbone");
    RunOptions o;
    o.start = 4.95;
    o.duration = 0.15;
    o.integrator = "cvode";
    o.relativeTolerance = 1e-7;
    o.channels = {"wheel centre x left", "trailing arm bushing fx left"};
    o.cvodeSolver = "dense";
    Simulation a(m, "LC1", o);
    a.run();
    o.cvodeSolver = "klu";
    Simulation b(m, "LC1", o);
    b.run();
    QVERIFY(a.integrator().describe().find("dense") != std::string::npos);
    QVERIFY(b.integrator().describe().find("sparse KLU") != std::string::npos);
    QCOMPARE(a.results().size(), b.results().size());
    for (std::size_t c = 0; c < o.channels.size(); ++c) {
      const auto ya = a.results().series(c), yb = b.results().series(c);
      double lo = 1e300, hi = -1e300, worst = 0.0;
      for (std::size_t k = 0; k < ya.size(); ++k) {
        lo = std::min(lo, ya[k]), hi = std::max(hi, ya[k]);
        worst = std::max(worst, std::abs(ya[k] - yb[k]));
      }
      qInfo("%s: dense vs KLU %.2e of the range", o.channels[c].c_str(), worst / (hi - lo));
      QVERIFY(worst <= 1e-6 * (hi - lo));
    }
  }

  // The absolute tolerances follow --rtol: on an undamped oscillator of 1 mm amplitude the
  // reference keeps converging as rtol shrinks (with absolute tolerances fixed at 1e-11 / 1e-9 it
  // stalled: 2.0e-9 m at rtol 1e-11 against 4.3e-9 m at 1e-8; now 6.9e-11 m).
  void referenceConvergesWithRtol() {
    const Project p = test::freeOscillator();
    const auto m = SuspensionModel::build(p);
    const double w = std::sqrt(2e5 / 2.0);
    auto errorAt = [&](double rtol) {
      RunOptions o;
      o.integrator = "cvode";
      o.relativeTolerance = rtol;
      Simulation sim(m, "free", o);
      sim.run();
      double worst = 0.0;
      for (std::size_t k = 0; k < sim.results().size(); ++k)
        worst = std::max(worst, std::abs(sim.results().value(k, 0) - 1e-3 * std::cos(w * sim.results().time(k))));
      return worst;
    };
    const double e8 = errorAt(1e-8), e11 = errorAt(1e-11);
    qInfo("largest error against 1 mm cos(w t) over 0.1 s: rtol 1e-8: %.2e m, rtol 1e-11: %.2e m", e8, e11);
    QVERIFY(e11 < e8 / 30);  // fixed absolute tolerances: 2.0e-9 against 4.3e-9
    QVERIFY(e11 < 3e-10);
  }

  void unknownSolverIsRefused() {
    const auto m = load("double_wishbone");
    IntegratorOptions o;
    o.method = "cvode";
    o.cvodeSolver = "lapack";
    QVERIFY_THROWS_EXCEPTION(SimulationError, CvodeIntegrator(*m, o, *m->loadCase("LC1")));
  }
};

QTEST_GUILESS_MAIN(TestCvode)
#include "tst_cvode.moc"
