// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file klu_solver.h
/// SuiteSparse KLU on A in compressed-column form (all entries of the pattern's 6x6 blocks):
/// symbolic analysis (AMD ordering, BTF) once per model, numeric factorization on the first
/// linearization, klu_refactor (same pivot sequence) on every later one.

#include <vector>

#include "engine/solvers/linear_solver.h"

namespace ek {

class KluSolver final : public LinearSolver {
 public:
  explicit KluSolver(const SuspensionModel& model);
  ~KluSolver() override;
  KluSolver(const KluSolver&) = delete;
  KluSolver& operator=(const KluSolver&) = delete;
  void factorize(const std::vector<Mat6>& blocks) override;
  void solve(const VecX& b, VecX& x) override;
  std::string name() const override { return "klu"; }

 private:
  struct Klu;
  int n_;
  std::vector<int> Ap_, Ai_, map_;  ///< map_[36 s + 6 p + q] = position of block s entry (p, q)
  std::vector<double> Ax_;
  Klu* klu_;
};

}  // namespace ek
