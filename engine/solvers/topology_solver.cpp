// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/solvers/topology_solver.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/core/error.h"

namespace ek {
namespace {

/// Inverse of a 6x6 block by Gauss-Jordan elimination with partial pivoting on the row-major
/// augmented matrix [A | I], so that every row operation runs over 12 contiguous numbers (Eigen's
/// general inverse takes its blocked large-matrix path for 6x6). Returns false if a pivot vanishes.
bool invert6(const Mat6& A, Mat6& inv) {
  alignas(64) double a[6][12];
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) {
      a[r][c] = A(r, c);
      a[r][6 + c] = r == c ? 1.0 : 0.0;
    }
  for (int c = 0; c < 6; ++c) {
    int p = c;
    for (int r = c + 1; r < 6; ++r)
      if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
    const double piv = a[p][c];
    if (!std::isfinite(piv) || std::abs(piv) < 1e-300) return false;
    if (p != c)
      for (int k = 0; k < 12; ++k) std::swap(a[p][k], a[c][k]);
    const double s = 1.0 / piv;
    for (int k = 0; k < 12; ++k) a[c][k] *= s;
    for (int r = 0; r < 6; ++r) {
      if (r == c) continue;
      const double f = a[r][c];
      if (f == 0.0) continue;
      for (int k = 0; k < 12; ++k) a[r][k] -= f * a[c][k];
    }
  }
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) inv(r, c) = a[r][6 + c];
  return true;
}

}  // namespace

TopologySolver::TopologySolver(const SuspensionModel& model) : model_(model), n_(model.nFreeBodies()) {
  const BlockPattern& bp = model.pattern;
  // Body graph (free bodies; ground couplings only add to diagonal blocks).
  std::vector<std::set<int>> adj(n_);
  for (int i = 0; i < n_; ++i)
    for (int s = bp.rowStart[i]; s < bp.rowStart[i + 1]; ++s)
      if (bp.col[s] != i) adj[i].insert(bp.col[s]);

  // Minimum degree elimination on the graph, recording fill.
  std::vector<std::set<int>> g = adj;
  std::vector<bool> done(n_, false);
  position_.assign(n_, -1);
  for (int step = 0; step < n_; ++step) {
    int best = -1;
    for (int v = 0; v < n_; ++v)
      if (!done[v] && (best < 0 || g[v].size() < g[best].size())) best = v;
    order_.push_back(best);
    position_[best] = step;
    done[best] = true;
    std::vector<int> nb(g[best].begin(), g[best].end());
    for (int a : nb) {
      g[a].erase(best);
      for (int b : nb)
        if (a != b) g[a].insert(b);  // the eliminated body's neighbours become coupled (fill)
    }
  }

  // Filled pattern in elimination positions: original couplings plus fill edges.
  std::vector<std::set<int>> filled(n_);
  for (int i = 0; i < n_; ++i) filled[position_[i]].insert(position_[i]);
  for (int i = 0; i < n_; ++i)
    for (int j : adj[i]) filled[position_[i]].insert(position_[j]);
  {
    std::vector<std::set<int>> h(n_);
    for (int i = 0; i < n_; ++i)
      for (int j : adj[i]) h[position_[i]].insert(position_[j]);
    for (int k = 0; k < n_; ++k) {
      std::vector<int> later;
      for (int j : h[k])
        if (j > k) later.push_back(j);
      for (int a : later)
        for (int b : later)
          if (a != b && filled[a].insert(b).second) {
            h[a].insert(b);
            ++fill_;
          }
    }
  }
  rowStart_.assign(1, 0);
  for (int i = 0; i < n_; ++i) {
    for (int j : filled[i]) col_.push_back(j);
    rowStart_.push_back(static_cast<int>(col_.size()));
  }
  F_.assign(col_.size(), Mat6::Zero());
  Dinv_.assign(n_, Mat6::Identity());

  fromPattern_.resize(bp.nBlocks());
  for (int i = 0; i < n_; ++i)
    for (int s = bp.rowStart[i]; s < bp.rowStart[i + 1]; ++s)
      fromPattern_[s] = slot(position_[i], position_[bp.col[s]]);
  {
    std::vector<bool> ofA(F_.size(), false);
    for (int s : fromPattern_) ofA[s] = true;
    for (std::size_t s = 0; s < F_.size(); ++s)
      if (!ofA[s]) fillSlots_.push_back(static_cast<int>(s));
  }

  // The plan: for each pivot k, L_ik (i > k) and the updates F_ij -= L_ik U_kj for i, j > k.
  lowerOf_.resize(n_);
  upperOf_.resize(n_);
  for (int k = 0; k < n_; ++k) {
    for (int s = rowStart_[k]; s < rowStart_[k + 1]; ++s)
      if (col_[s] > k) {
        upperOf_[k].push_back(s);
        lowerOf_[k].push_back(slot(col_[s], k));  // structurally symmetric
      }
    for (int li : lowerOf_[k])
      for (int uj : upperOf_[k]) {
        const int i = [&] {
          for (int r = 0; r < n_; ++r)
            if (li >= rowStart_[r] && li < rowStart_[r + 1]) return r;
          return -1;
        }();
        const int j = col_[uj];
        updates_.push_back({slot(i, j), li, uj});
      }
  }
  y_.setZero(model.nDof());
}

int TopologySolver::slot(int i, int j) const {
  const auto b = col_.begin() + rowStart_[i], e = col_.begin() + rowStart_[i + 1];
  const auto it = std::lower_bound(b, e, j);
  return (it != e && *it == j) ? static_cast<int>(it - col_.begin()) : -1;
}

void TopologySolver::factorize(const std::vector<Mat6>& blocks) {
  for (int s : fillSlots_) F_[s].setZero();
  for (std::size_t s = 0; s < blocks.size(); ++s) F_[fromPattern_[s]] = blocks[s];
  std::size_t u = 0;
  for (int k = 0; k < n_; ++k) {
    if (!invert6(F_[slot(k, k)], Dinv_[k]))
      throw SimulationError("the coefficient matrix A is singular: pivot block of body '" +
                            model_.bodies[model_.freeBodies[order_[k]]].name + "'");
    // L_ik = F_ik D_k^-1
    for (int li : lowerOf_[k]) {
      const Mat6 t = F_[li] * Dinv_[k];
      F_[li] = t;
    }
    for (const std::size_t end = u + lowerOf_[k].size() * upperOf_[k].size(); u < end; ++u) {
      const Update& op = updates_[u];
      F_[op.target].noalias() -= F_[op.l] * F_[op.u];
    }
  }
}

void TopologySolver::solve(const VecX& b, VecX& x) {
  // Forward: y_k = b_k - sum_{i<k} L_ki y_i (in elimination positions).
  for (int k = 0; k < n_; ++k) {
    Vec6 acc = b.segment<6>(6 * order_[k]);
    for (int s = rowStart_[k]; s < rowStart_[k + 1] && col_[s] < k; ++s) acc.noalias() -= F_[s] * y_.segment<6>(6 * col_[s]);
    y_.segment<6>(6 * k) = acc;
  }
  // Backward: x_k = D_k^-1 (y_k - sum_{j>k} U_kj x_j).
  for (int k = n_ - 1; k >= 0; --k) {
    Vec6 acc = y_.segment<6>(6 * k);
    for (int s : upperOf_[k]) acc.noalias() -= F_[s] * y_.segment<6>(6 * col_[s]);
    y_.segment<6>(6 * k).noalias() = Dinv_[k] * acc;
  }
  for (int k = 0; k < n_; ++k) x.segment<6>(6 * order_[k]) = y_.segment<6>(6 * k);
}

bool TopologySolver::isFill(int i, int j) const {
  return model_.pattern.find(order_[i], order_[j]) < 0;
}

std::vector<int> TopologySolver::partition() const {
  // Group by the elimination position's "level": bodies eliminated while they still had no
  // later neighbour form leaves; the last ones form the separator. Here simply: 0 for bodies
  // with at most two later neighbours, 1 for the rest (the separator-like top of the tree).
  std::vector<int> part(n_, 0);
  for (int k = 0; k < n_; ++k) part[order_[k]] = upperOf_[k].size() > 2 ? 1 : 0;
  return part;
}

}  // namespace ek
