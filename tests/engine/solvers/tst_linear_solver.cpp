// SPDX-License-Identifier: GPL-3.0-or-later
// Linear solvers on the coefficient matrix A of paper 003 eq. (19), assembled by LSRT2.
#include <QtTest>

#include "engine/core/error.h"
#include "engine/dynamics/linearize.h"
#include "engine/integrators/lsrt2.h"
#include "engine/solvers/solver_factory.h"
#include "support/test_models.h"

using namespace ek;

class TestLinearSolver : public QObject {
  Q_OBJECT
 private slots:
  void denseSolvesCoefficientMatrix() {
    const auto m = SuspensionModel::build(test::randomProject(13, 8, 12, 4));
    State s;
    m->initialState(s.r, s.v);
    Workspace ws(*m);
    linearize(*m, s, VecX::Zero(m->nInputs()), ws);
    std::vector<Mat6> A = ws.Jr;
    for (std::size_t k = 0; k < A.size(); ++k) A[k] = -1e-6 * ws.Jr[k] - 1e-3 * ws.Jv[k];
    for (int l = 0; l < m->nFreeBodies(); ++l) A[m->pattern.diag[l]] += Mat6::Identity() * 2.0;
    DenseLuSolver solver(*m);
    solver.factorize(A);
    const VecX b = VecX::Random(m->nDof());
    VecX x(m->nDof());
    solver.solve(b, x);
    const MatX D = blockToDense(m->pattern, A);
    const double residual = (D * x - b).norm() / b.norm();
    qInfo("relative residual %.2e", residual);
    QVERIFY(residual < 1e-12);
  }

  void singularMatrixIsReported() {
    const auto m = SuspensionModel::build(test::randomProject(13, 3, 3, 0));
    std::vector<Mat6> zero(m->pattern.nBlocks(), Mat6::Zero());
    DenseLuSolver solver(*m);
    QVERIFY_THROWS_EXCEPTION(SimulationError, solver.factorize(zero));
  }

  void unknownSolverName() {
    const auto m = SuspensionModel::build(test::randomProject(13, 2, 1, 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeLinearSolver("magic", *m));
  }
};

QTEST_APPLESS_MAIN(TestLinearSolver)
#include "tst_linear_solver.moc"
