// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file topology_solver.h
/// Block-sparse LU of A (paper 003 eq. 19) along the suspension topology, generalizing the
/// papers' hand-made five-block Schur complement scheme (eqs. 20-24) to any topology:
///
/// - symbolic, once per model: a minimum-degree elimination order of the body graph (bodies
///   coupled by force elements; ties broken by index), the fill-in it causes, and a flat list of
///   6x6 block operations (the "plan");
/// - numeric, per linearization: each pivot's diagonal block D_k (the Schur complement left after
///   the previous eliminations) is inverted by its 3x3 blocks (translations and rotations;
///   Gauss-Jordan with partial pivoting where they are ill-conditioned), the off-diagonal blocks
///   become L_ik = A_ik D_k^-1, and the trailing blocks are updated A_ij -= L_ik A_kj;
/// - solve: block forward and back substitution.
///
/// Pivoting is within diagonal blocks only (as in the papers: A_ii and the Schur complements must
/// be invertible); A = M - dt gamma J_v - (dt gamma)^2 J_r K is dominated by its mass and
/// stiffness blocks, so they are. No allocation after construction.

#include <vector>

#include "engine/solvers/linear_solver.h"

namespace ek {

class TopologySolver final : public LinearSolver {
 public:
  explicit TopologySolver(const SuspensionModel& model);
  void factorize(const std::vector<Mat6>& blocks) override;
  Mat6* blockStorage(int s) override { return &F_[fromPattern_[s]]; }
  void factorizeInPlace() override;
  void solve(const VecX& b, VecX& x) override;
  std::string name() const override { return "topology"; }
  /// Splits into subtrees of the elimination tree (one per part) and the separator above them.
  void split(int parts, const std::vector<int>& hint = {}) override;
  std::vector<int> bodyParts() const override;

  /// Split factorization for the parallel step, the same operations as factorizeInPlace() of the
  /// split solver: every part t calls factorizeSubtree(t), then one thread factorizeSeparator().
  void factorizeSubtree(int t);
  void factorizeSeparator();
  /// Split solve for the parallel step, the same operations as solve(): every part t calls
  /// forwardSubtrees(t, b); then one thread solveSeparator(b, x); then every part
  /// backSubstituteSubtrees(t, x). x receives only the rows of the pivots each part solves.
  void forwardSubtrees(int t, const VecX& b);
  void solveSeparator(const VecX& b, VecX& x);
  void backSubstituteSubtrees(int t, VecX& x);
  /// The split: parts, block products per part and on the separator (estimates).
  int parts() const { return static_cast<int>(pivotsOf_.size()); }
  std::vector<double> threadCosts() const;
  double separatorCost() const;

  /// Elimination order (state slots of the bodies, first eliminated first).
  const std::vector<int>& order() const { return order_; }
  /// Blocks of L+U including fill-in, and how many of them are fill.
  int factorBlocks() const { return static_cast<int>(F_.size()); }
  int fillBlocks() const { return fill_; }
  /// Block multiply-adds of one numeric factorization.
  int updateOperations() const { return static_cast<int>(updates_.size()); }
  /// Factor pattern in elimination positions (CSR): row k holds the blocks (k, col) of L+U.
  const std::vector<int>& factorRowStart() const { return rowStart_; }
  const std::vector<int>& factorColumns() const { return col_; }
  /// True if block (i, j) (elimination positions) is fill-in, not a block of A.
  bool isFill(int i, int j) const;
  /// Separator-like partition for display: bodies grouped by the elimination step whose fill
  /// joins them (the last-eliminated bodies form the top-level separator).
  std::vector<int> partition() const;

 private:
  struct Update {  // F[target] -= F[l] * F[u]
    int target, l, u;
  };
  int slot(int i, int j) const;  // factor slot of (i, j) in elimination positions, -1 if none
  void buildSchedule(int threads, const std::vector<int>& hint);
  /// Zeroes a part's fill blocks and copies its blocks of A in (blocks null: A is in place).
  void copyIn(const std::vector<Mat6>* blocks, int part);  // part, or parts() for the separator
  void factorizeParts(const std::vector<Mat6>* blocks);
  /// Pivot k: invert, L blocks, and its updates: all, those of private targets, or those of shared ones.
  enum class Updates { All, Private, Shared };
  void eliminate(int k, Updates which);
  /// The separator's part of a split factorization: shared updates of the parts' pivots, then
  /// the separator's pivots.
  void separatorUpdates();
  void forward(int k, const VecX& b);
  void backward(int k);

  const SuspensionModel& model_;
  int n_ = 0;
  std::vector<int> order_, position_;       ///< position_[body] = step at which it is eliminated
  std::vector<int> rowStart_, col_;         ///< factor pattern by elimination position (CSR, sorted)
  std::vector<int> fromPattern_;            ///< factor slot of each A block
  std::vector<int> fillSlots_;              ///< factor slots of no A block (zeroed per factorization)
  std::vector<Mat6> F_;                     ///< factor blocks (L below, U above the diagonal)
  std::vector<Mat6> Dinv_;  ///< inverses of the pivot blocks (one 6x6 product per L block and solve)
  std::vector<Update> updates_;
  std::vector<std::vector<int>> lowerOf_, upperOf_;  ///< per pivot: factor slots of L_ik / U_kj
  int fill_ = 0;
  VecX y_;
  // The split (split()): pivots by part (increasing), the separator's pivots, the A->F copies and
  // fill slots by part (parts, then the separator), per update whether its target lies between
  // two separator pivots, per pivot its first update.
  std::vector<int> threadOfPivot_, separator_, updateStart_;
  std::vector<std::vector<int>> pivotsOf_;
  std::vector<std::vector<std::pair<int, int>>> copies_;
  std::vector<std::vector<int>> fillOf_;
  std::vector<char> shared_;
  std::vector<double> pivotCost_;
};

}  // namespace ek
