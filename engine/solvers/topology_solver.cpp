// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/solvers/topology_solver.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

#include "engine/core/block6.h"
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

/// Inverse of a 3x3 block by cofactors. False (and nothing written) unless the block is well
/// conditioned: |det| at least 1e-6 of the product of its rows' norms (Hadamard's bound; 1 for an
/// orthogonal matrix, 0 for a singular one).
bool invert3(const Mat3& m, Mat3& out) {
  const double c00 = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1), c01 = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2),
               c02 = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
  const double det = m(0, 0) * c00 + m(0, 1) * c01 + m(0, 2) * c02;
  // In squares (no square roots): det^2 >= 1e-12 |row 0|^2 |row 1|^2 |row 2|^2.
  const double bound2 = m.row(0).squaredNorm() * m.row(1).squaredNorm() * m.row(2).squaredNorm();
  if (!(det * det >= 1e-12 * bound2) || !std::isfinite(det) || !(bound2 > 0.0)) return false;
  const double s = 1.0 / det;
  out << c00 * s, (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) * s, (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) * s,  //
      c01 * s, (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) * s, (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) * s,     //
      c02 * s, (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) * s, (m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0)) * s;
  return true;
}

/// Inverse of a pivot block D = [[P, Q], [R, S]] (translations, rotations) by its 3x3 blocks:
/// with the Schur complement S' = S - R P^-1 Q,
///   D^-1 = [[P^-1 + P^-1 Q S'^-1 R P^-1, -P^-1 Q S'^-1], [-S'^-1 R P^-1, S'^-1]],
/// about 2.3x faster than Gauss-Jordan on 6x6 (no pivot search, no branches). P holds the
/// body's mass and S' its inertia, so both are well conditioned in any physical model; where one
/// of them is not (invert3()), Gauss-Jordan with partial pivoting over the whole block is used.
/// Returns false if D is singular.
bool invertPivot(const Mat6& D, Mat6& inv) {
  Mat3 Pi, Si;
  if (!invert3(D.topLeftCorner<3, 3>(), Pi)) return invert6(D, inv);
  const Mat3 RPi = D.bottomLeftCorner<3, 3>() * Pi, PiQ = Pi * D.topRightCorner<3, 3>();
  if (!invert3(D.bottomRightCorner<3, 3>() - RPi * D.topRightCorner<3, 3>(), Si)) return invert6(D, inv);
  const Mat3 X = PiQ * Si;
  inv.topLeftCorner<3, 3>() = Pi + X * RPi;
  inv.topRightCorner<3, 3>() = -X;
  inv.bottomLeftCorner<3, 3>() = -Si * RPi;
  inv.bottomRightCorner<3, 3>() = Si;
  return true;
}

/// The minimum-degree elimination order of the body graph (adj: each body's neighbours, sorted):
/// the body with the fewest neighbours first, ties by index; eliminating a body couples its
/// neighbours (the fill). Exact degrees, a queue ordered by (degree, index), sorted neighbour
/// lists merged per elimination: time in proportion to the factor's block updates.
/// (SuiteSparse's AMD was measured instead: the same fill on 1000-body graphs, more on the shipped
/// axles, e.g. 47 block updates instead of 35 on the double wishbone; docs/performance.md.)
std::vector<int> minimumDegreeOrder(std::vector<std::vector<int>> g) {
  const int n = static_cast<int>(g.size());
  std::set<std::pair<int, int>> queue;
  for (int v = 0; v < n; ++v) queue.insert({static_cast<int>(g[v].size()), v});
  std::vector<int> order, merged;
  order.reserve(n);
  while (!queue.empty()) {
    const int best = queue.begin()->second;
    queue.erase(queue.begin());
    order.push_back(best);
    const std::vector<int> nb = std::move(g[best]);
    for (int a : nb) {
      // a's neighbours become (a's ∪ best's) without a and best.
      queue.erase({static_cast<int>(g[a].size()), a});
      merged.clear();
      std::set_union(g[a].begin(), g[a].end(), nb.begin(), nb.end(), std::back_inserter(merged));
      merged.erase(std::remove_if(merged.begin(), merged.end(), [&](int x) { return x == a || x == best; }), merged.end());
      g[a].swap(merged);
      queue.insert({static_cast<int>(g[a].size()), a});
    }
  }
  return order;
}

}  // namespace

TopologySolver::TopologySolver(const SuspensionModel& model) : model_(model), n_(model.nFreeBodies()) {
  const BlockPattern& bp = model.pattern;
  // Body graph (free bodies; ground couplings only add to diagonal blocks), rows sorted.
  std::vector<std::vector<int>> adj(n_);
  for (int i = 0; i < n_; ++i)
    for (int s = bp.rowStart[i]; s < bp.rowStart[i + 1]; ++s)
      if (bp.col[s] != i) adj[i].push_back(bp.col[s]);
  order_ = minimumDegreeOrder(adj);
  position_.assign(n_, -1);
  for (int k = 0; k < n_; ++k) position_[order_[k]] = k;

  // Symbolic factorization in elimination positions: the later rows of L's column k are k's later
  // neighbours and, from each child c in the elimination tree, column c's rows after k.
  std::vector<std::vector<int>> later(n_), children(n_);
  std::vector<int> mark(n_, -1);
  for (int k = 0; k < n_; ++k) {
    std::vector<int>& cols = later[k];
    auto add = [&](int j) {
      if (j > k && mark[j] != k) mark[j] = k, cols.push_back(j);
    };
    for (int j : adj[order_[k]]) add(position_[j]);
    for (int c : children[k])
      for (int j : later[c]) add(j);
    std::sort(cols.begin(), cols.end());
    if (!cols.empty()) children[cols.front()].push_back(k);
  }
  // Rows of L+U (CSR, sorted): row i holds (i, k) for every column k whose L rows include i, the
  // diagonal, and (i, j) for j in L's column i.
  std::vector<int> count(n_, 1);
  for (int k = 0; k < n_; ++k) {
    count[k] += static_cast<int>(later[k].size());
    for (int i : later[k]) ++count[i];
  }
  rowStart_.assign(n_ + 1, 0);
  for (int i = 0; i < n_; ++i) rowStart_[i + 1] = rowStart_[i] + count[i];
  col_.assign(rowStart_[n_], 0);
  std::vector<int> next(rowStart_.begin(), rowStart_.end() - 1);
  for (int k = 0; k < n_; ++k) {  // columns in increasing order: each row's lower part comes sorted
    for (int i : later[k]) col_[next[i]++] = k;
    col_[next[k]++] = k;
    for (int j : later[k]) col_[next[k]++] = j;
  }
  F_.assign(col_.size(), Mat6::Zero());
  Dinv_.assign(n_, Mat6::Identity());
  fill_ = static_cast<int>(col_.size()) - bp.nBlocks();

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
    for (int j : later[k]) {
      upperOf_[k].push_back(slot(k, j));
      lowerOf_[k].push_back(slot(j, k));  // structurally symmetric
    }
    for (int i : later[k])
      for (int j : later[k]) updates_.push_back({slot(i, j), slot(i, k), slot(k, j)});
  }
  y_.setZero(model.nDof());
  buildSchedule(1, {});
}

int TopologySolver::slot(int i, int j) const {
  const auto b = col_.begin() + rowStart_[i], e = col_.begin() + rowStart_[i + 1];
  const auto it = std::lower_bound(b, e, j);
  return (it != e && *it == j) ? static_cast<int>(it - col_.begin()) : -1;
}

void TopologySolver::eliminate(int k, Updates which) {
  // One function for every part of the parallel factorization and the serial one: the same
  // machine code, so the same results bit for bit.
  if (which != Updates::Shared) {
    if (!invertPivot(F_[slot(k, k)], Dinv_[k]))
      throw SimulationError(std::string("the coefficient matrix A is ") +
                            (F_[slot(k, k)].allFinite() ? "singular" : "not finite (NaN or Inf)") +
                            ": pivot block of body '" + model_.bodies[model_.freeBodies[order_[k]]].name + "'");
    // L_ik = F_ik D_k^-1
    for (int li : lowerOf_[k]) block6::product(F_[li].data(), F_[li].data(), Dinv_[k].data());
  }
  for (int u = updateStart_[k]; u < updateStart_[k + 1]; ++u) {
    if ((which == Updates::Private && shared_[u]) || (which == Updates::Shared && !shared_[u])) continue;
    const Update& op = updates_[u];
    block6::subtractProduct(F_[op.target].data(), F_[op.l].data(), F_[op.u].data());
  }
}

void TopologySolver::copyIn(const std::vector<Mat6>* blocks, int part) {
  for (int s : fillOf_[part]) F_[s].setZero();
  if (blocks)
    for (const auto& [a, f] : copies_[part]) F_[f] = (*blocks)[a];
}

void TopologySolver::factorize(const std::vector<Mat6>& blocks) { factorizeParts(&blocks); }

void TopologySolver::factorizeInPlace() { factorizeParts(nullptr); }

void TopologySolver::factorizeParts(const std::vector<Mat6>* blocks) {
  if (parts() == 1) {
    for (int part = 0; part <= parts(); ++part) copyIn(blocks, part);
    for (int k = 0; k < n_; ++k) eliminate(k, Updates::All);
    return;
  }
  for (int t = 0; t < parts(); ++t) {
    copyIn(blocks, t);
    for (int k : pivotsOf_[t]) eliminate(k, Updates::Private);
  }
  copyIn(blocks, parts());
  separatorUpdates();
}

void TopologySolver::factorizeSubtree(int t) {
  copyIn(nullptr, t);
  for (int k : pivotsOf_[t]) eliminate(k, Updates::Private);
}

void TopologySolver::factorizeSeparator() {
  copyIn(nullptr, parts());
  separatorUpdates();
}

void TopologySolver::separatorUpdates() {
  for (int k = 0; k < n_; ++k)
    if (threadOfPivot_[k] >= 0) eliminate(k, Updates::Shared);
    else eliminate(k, Updates::All);
}

void TopologySolver::forward(int k, const VecX& b) {
  // y_k = b_k - sum_{i<k} L_ki y_i (in elimination positions).
  block6::Sums sum;
  for (int s = rowStart_[k]; s < rowStart_[k + 1] && col_[s] < k; ++s) sum.add(F_[s].data(), y_.data() + 6 * col_[s]);
  double acc[6];
  sum.get(acc);
  for (int i = 0; i < 6; ++i) y_[6 * k + i] = b[6 * order_[k] + i] - acc[i];
}

void TopologySolver::backward(int k) {
  // x_k = D_k^-1 (y_k - sum_{j>k} U_kj x_j).
  block6::Sums sum;
  for (int s : upperOf_[k]) sum.add(F_[s].data(), y_.data() + 6 * col_[s]);
  double acc[6];
  sum.get(acc);
  for (int i = 0; i < 6; ++i) acc[i] = y_[6 * k + i] - acc[i];
  block6::Sums x;
  x.add(Dinv_[k].data(), acc);
  x.get(y_.data() + 6 * k);
}

void TopologySolver::solve(const VecX& b, VecX& x) {
  for (int k = 0; k < n_; ++k) forward(k, b);
  for (int k = n_ - 1; k >= 0; --k) backward(k);
  for (int k = 0; k < n_; ++k) x.segment<6>(6 * order_[k]) = y_.segment<6>(6 * k);
}

void TopologySolver::forwardSubtrees(int t, const VecX& b) {
  for (int k : pivotsOf_[t]) forward(k, b);
}

void TopologySolver::solveSeparator(const VecX& b, VecX& x) {
  for (int k : separator_) forward(k, b);
  for (auto it = separator_.rbegin(); it != separator_.rend(); ++it) backward(*it);
  for (int k : separator_) x.segment<6>(6 * order_[k]) = y_.segment<6>(6 * k);
}

void TopologySolver::backSubstituteSubtrees(int t, VecX& x) {
  const std::vector<int>& p = pivotsOf_[t];
  for (auto it = p.rbegin(); it != p.rend(); ++it) backward(*it);
  for (int k : p) x.segment<6>(6 * order_[k]) = y_.segment<6>(6 * k);
}

void TopologySolver::split(int parts, const std::vector<int>& hint) { buildSchedule(std::max(1, parts), hint); }

void TopologySolver::buildSchedule(int threads, const std::vector<int>& hint) {
  // Elimination tree and the cost of each pivot in 6x6 block products.
  std::vector<int> parent(n_, -1);
  std::vector<std::vector<int>> children(n_);
  pivotCost_.assign(n_, 0.0);
  std::vector<double> subtree(n_, 0.0);
  for (int k = 0; k < n_; ++k) {
    for (int s : upperOf_[k]) parent[k] = parent[k] < 0 ? col_[s] : std::min(parent[k], col_[s]);
    if (parent[k] >= 0) children[parent[k]].push_back(k);
    pivotCost_[k] = 1.0 + lowerOf_[k].size() * (1.0 + upperOf_[k].size());
  }
  for (int k = 0; k < n_; ++k) {
    subtree[k] += pivotCost_[k];
    if (parent[k] >= 0) subtree[parent[k]] += subtree[k];
  }
  // Longest-processing-time-first assignment of subtree roots; returns the critical path.
  auto assign = [&](std::vector<int> roots, std::vector<int>* rootThread) {
    std::sort(roots.begin(), roots.end(), [&](int a, int b) { return subtree[a] > subtree[b] || (subtree[a] == subtree[b] && a < b); });
    std::vector<double> load(threads, 0.0);
    if (rootThread) rootThread->assign(n_, -1);
    for (int r : roots) {
      const int t = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
      load[t] += subtree[r];
      if (rootThread) (*rootThread)[r] = t;
    }
    return *std::max_element(load.begin(), load.end());
  };
  std::vector<int> roots, separator;
  for (int k = 0; k < n_; ++k)
    if (parent[k] < 0) roots.push_back(k);
  double sepCost = 0.0;
  double best = assign(roots, nullptr);
  std::vector<int> bestRoots = roots, bestSeparator;
  while (threads > 1) {
    auto it = std::max_element(roots.begin(), roots.end(), [&](int a, int b) { return subtree[a] < subtree[b]; });
    const int r = *it;
    if (children[r].empty()) break;
    roots.erase(it);
    roots.insert(roots.end(), children[r].begin(), children[r].end());
    separator.push_back(r);
    sepCost += pivotCost_[r];
    const double cost = assign(roots, nullptr) + sepCost;
    if (cost < best) {
      best = cost;
      bestRoots = roots;
      bestSeparator = separator;
    }
  }
  std::vector<int> rootThread;
  assign(bestRoots, &rootThread);
  // The subtrees' thread labels are arbitrary: take those that agree with the hint on the most
  // bodies (every permutation up to 6 threads), so that a caller splitting other work by the
  // hint finds a thread's subtree data on the same core.
  if (threads > 1 && threads <= 6 && static_cast<int>(hint.size()) == n_) {
    std::vector<int> subtreeOf(n_, -1);  // the thread of each pivot's subtree root
    for (int k = n_ - 1; k >= 0; --k)
      if (rootThread[k] >= 0) subtreeOf[k] = rootThread[k];
      else if (parent[k] >= 0) subtreeOf[k] = subtreeOf[parent[k]];
    std::vector<std::vector<int>> agree(threads, std::vector<int>(threads, 0));
    for (int k = 0; k < n_; ++k) {
      const int h = hint[order_[k]];
      if (subtreeOf[k] >= 0 && h >= 0 && h < threads) ++agree[subtreeOf[k]][h];
    }
    std::vector<int> perm(threads), best(threads);
    for (int t = 0; t < threads; ++t) perm[t] = best[t] = t;
    int bestScore = -1;
    do {
      int score = 0;
      for (int t = 0; t < threads; ++t) score += agree[t][perm[t]];
      if (score > bestScore) bestScore = score, best = perm;
    } while (std::next_permutation(perm.begin(), perm.end()));
    for (int& t : rootThread)
      if (t >= 0) t = best[t];
  }
  threadOfPivot_.assign(n_, -1);
  for (int k = n_ - 1; k >= 0; --k)  // parents come after their children: top down
    if (rootThread[k] >= 0) threadOfPivot_[k] = rootThread[k];
    else if (parent[k] >= 0 && threadOfPivot_[parent[k]] >= 0) threadOfPivot_[k] = threadOfPivot_[parent[k]];
  for (int r : bestSeparator) threadOfPivot_[r] = -1;
  if (threads == 1) threadOfPivot_.assign(n_, 0);
  pivotsOf_.assign(threads, {});
  separator_.clear();
  for (int k = 0; k < n_; ++k)
    (threadOfPivot_[k] >= 0 ? pivotsOf_[threadOfPivot_[k]] : separator_).push_back(k);

  // Who copies each factor block in: the thread of the pivot of min(row, column), else the separator.
  std::vector<int> rowOf(col_.size());
  for (int r = 0; r < n_; ++r)
    for (int s = rowStart_[r]; s < rowStart_[r + 1]; ++s) rowOf[s] = r;
  auto partOf = [&](int s) {
    const int m = std::min(rowOf[s], col_[s]);
    return threadOfPivot_[m] >= 0 ? threadOfPivot_[m] : threads;
  };
  copies_.assign(threads + 1, {});
  fillOf_.assign(threads + 1, {});
  for (std::size_t a = 0; a < fromPattern_.size(); ++a) copies_[partOf(fromPattern_[a])].push_back({static_cast<int>(a), fromPattern_[a]});
  for (int s : fillSlots_) fillOf_[partOf(s)].push_back(s);
  // Updates between two separator pivots are shared by the subtrees below them.
  updateStart_.assign(n_ + 1, 0);
  shared_.assign(updates_.size(), 0);
  {
    std::size_t u = 0;
    for (int k = 0; k < n_; ++k) {
      updateStart_[k] = static_cast<int>(u);
      u += lowerOf_[k].size() * upperOf_[k].size();
    }
    updateStart_[n_] = static_cast<int>(u);
  }
  for (std::size_t u = 0; u < updates_.size(); ++u) shared_[u] = partOf(updates_[u].target) == threads;
}

std::vector<int> TopologySolver::bodyParts() const {
  std::vector<int> out(n_, -1);
  if (parts() == 1) return out;
  for (int k = 0; k < n_; ++k) out[order_[k]] = threadOfPivot_[k];
  return out;
}

std::vector<double> TopologySolver::threadCosts() const {
  std::vector<double> c(pivotsOf_.size(), 0.0);
  for (std::size_t t = 0; t < pivotsOf_.size(); ++t)
    for (int k : pivotsOf_[t]) c[t] += pivotCost_[k];
  return c;
}

double TopologySolver::separatorCost() const {
  double c = 0.0;
  for (int k : separator_) c += pivotCost_[k];
  return c;
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
