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
  /// Splits the factorization and the solves into `parts` independent parts and a separator
  /// that follows them, for the parallel step to run the parts on threads (engine/parallel).
  /// Default: no split. @param hint a part per free body (state slot) that the split should
  /// agree with where it can (its parts' labels are chosen so), or empty.
  virtual void split(int parts, const std::vector<int>& hint = {}) { (void)parts, (void)hint; }
  /// The part each free body (state slot) belongs to in the split, for locality with the
  /// linearization; -1 where any part will do. Empty: not split.
  virtual std::vector<int> bodyParts() const { return {}; }
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

}  // namespace ek
