// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/solvers/klu_solver.h"

#include <suitesparse/klu.h>

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "engine/solvers/solver_factory.h"

namespace ek {

struct KluSolver::Klu {
  klu_common common;
  klu_symbolic* symbolic = nullptr;
  klu_numeric* numeric = nullptr;
};

KluSolver::KluSolver(const SuspensionModel& model) : n_(model.nDof()), klu_(new Klu) {
  const BlockPattern& bp = model.pattern;
  // The pattern is structurally symmetric: the blocks of block column c are those of block row c.
  std::vector<std::vector<std::pair<int, int>>> colBlocks(bp.nBodies);  // (row body, slot)
  for (int r = 0; r < bp.nBodies; ++r)
    for (int s = bp.rowStart[r]; s < bp.rowStart[r + 1]; ++s) colBlocks[bp.col[s]].push_back({r, s});
  for (auto& c : colBlocks) std::sort(c.begin(), c.end());
  map_.assign(36 * bp.nBlocks(), -1);
  Ap_.assign(1, 0);
  for (int c = 0; c < bp.nBodies; ++c)
    for (int q = 0; q < 6; ++q) {
      for (const auto& [r, s] : colBlocks[c])
        for (int p = 0; p < 6; ++p) {
          map_[36 * s + 6 * p + q] = static_cast<int>(Ai_.size());
          Ai_.push_back(6 * r + p);
        }
      Ap_.push_back(static_cast<int>(Ai_.size()));
    }
  Ax_.assign(Ai_.size(), 0.0);
  klu_defaults(&klu_->common);
  klu_->symbolic = klu_analyze(n_, Ap_.data(), Ai_.data(), &klu_->common);
  if (!klu_->symbolic) throw SimulationError("KLU: symbolic analysis failed (status " + std::to_string(klu_->common.status) + ")");
}

KluSolver::~KluSolver() {
  if (klu_->numeric) klu_free_numeric(&klu_->numeric, &klu_->common);
  if (klu_->symbolic) klu_free_symbolic(&klu_->symbolic, &klu_->common);
  delete klu_;
}

void KluSolver::factorize(const std::vector<Mat6>& blocks) {
  bool finite = true;
  for (std::size_t s = 0; s < blocks.size(); ++s)
    for (int q = 0; q < 6; ++q)
      for (int p = 0; p < 6; ++p) {
        const double a = blocks[s](p, q);
        finite = finite && std::isfinite(a);
        Ax_[map_[36 * s + 6 * p + q]] = a;
      }
  // KLU's refactorization takes a NaN without complaint (the solution is then NaN): refuse it here.
  if (!finite) throw SimulationError("KLU: the coefficient matrix A is not finite (NaN or Inf)");
  if (klu_->numeric && klu_refactor(Ap_.data(), Ai_.data(), Ax_.data(), klu_->symbolic, klu_->numeric, &klu_->common))
    return;
  // First factorization, or the old pivot sequence failed: factorize with fresh pivoting.
  if (klu_->numeric) klu_free_numeric(&klu_->numeric, &klu_->common);
  klu_->numeric = klu_factor(Ap_.data(), Ai_.data(), Ax_.data(), klu_->symbolic, &klu_->common);
  if (!klu_->numeric)
    throw SimulationError("KLU: the coefficient matrix A is singular (status " + std::to_string(klu_->common.status) + ")");
}

std::unique_ptr<LinearSolver> makeKluSolver(const SuspensionModel& model) { return std::make_unique<KluSolver>(model); }

void KluSolver::solve(const VecX& b, VecX& x) {
  x = b;
  if (!klu_solve(klu_->symbolic, klu_->numeric, n_, 1, x.data(), &klu_->common))
    throw SimulationError("KLU: solve failed (status " + std::to_string(klu_->common.status) + ")");
}

}  // namespace ek
