// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file linear_solver.h
/// Solvers of A x = b for the coefficient matrix A of paper 003 eq. (19), given in the model's
/// 6x6 block pattern: factorize once per linearization, solve once per stage.

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/LU>

#include "engine/model/model.h"

namespace ek {

class WorkerPool;

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  /// Numeric factorization of A (blocks in model.pattern). @throws SimulationError if singular.
  virtual void factorize(const std::vector<Mat6>& blocks) = 0;
  /// Where the solver keeps block s of A (model.pattern) for factorizeInPlace(), or null when it
  /// has no such storage (then use factorize()).
  virtual Mat6* blockStorage(int s) { (void)s; return nullptr; }
  /// Factorizes the A written through blockStorage() (every block, since the last factorization).
  virtual void factorizeInPlace() { throw std::logic_error(name() + " solver: no in-place factorization"); }
  /// x = A^-1 b. @pre factorize() ran. b and x must not alias.
  virtual void solve(const VecX& b, VecX& x) = 0;
  virtual std::string name() const = 0;
  /// Lets the solver run parts of factorize() on the pool's threads (the pool outlives the
  /// solver's use of it). Default: serial. @param hint a thread per free body (state slot) that
  /// the solver's split should agree with where it can (its threads' labels are chosen so), or
  /// empty.
  virtual void usePool(WorkerPool*, const std::vector<int>& hint = {}) { (void)hint; }
  /// The thread each free body (state slot) is best linearized on in the parallel step, for
  /// locality with the solver's own split; -1 where any thread will do. Empty: no preference.
  virtual std::vector<int> bodyThreads() const { return {}; }
};

/// Dense LU with partial pivoting (Eigen) of the full n x n matrix: the reference solver.
class DenseLuSolver final : public LinearSolver {
 public:
  explicit DenseLuSolver(const SuspensionModel& model);
  void factorize(const std::vector<Mat6>& blocks) override;
  void solve(const VecX& b, VecX& x) override;
  std::string name() const override { return "dense"; }

 private:
  const BlockPattern& pattern_;
  MatX dense_;
  Eigen::PartialPivLU<MatX> lu_;
};

/// Creates a solver by name: "topology", "klu" or "dense". @throws std::invalid_argument for an unknown name.
std::unique_ptr<LinearSolver> makeLinearSolver(const std::string& name, const SuspensionModel& model);

}  // namespace ek
