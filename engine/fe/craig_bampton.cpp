// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/fe/craig_bampton.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SparseCholesky>
#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/MatOp/SymShiftInvert.h>
#include <Spectra/SymGEigsShiftSolver.h>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ek::fe {
namespace {

constexpr double kTwoPi = 2.0 * M_PI;

// Below this many interior degrees of freedom the dense solver is cheaper than Lanczos.
constexpr int kDenseLimit = 300;

EigenModes sortedByFrequency(const VecX& lambda, const MatX& shapes, int count) {
  std::vector<int> order(lambda.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return lambda[a] < lambda[b]; });
  EigenModes out;
  count = std::min<int>(count, static_cast<int>(order.size()));
  out.frequencies.resize(count);
  out.shapes.resize(shapes.rows(), count);
  for (int k = 0; k < count; ++k) {
    out.frequencies[k] = std::sqrt(std::max(0.0, lambda[order[k]])) / kTwoPi;
    out.shapes.col(k) = shapes.col(order[k]);
  }
  return out;
}

// Dense shift-invert: with K - sigma M = L L^T, the eigenvalues nu = 1 / (lambda - sigma) of
// L^-1 M L^-T are largest for the lowest modes, so these come out to the precision of the
// factor, not of the highest mode (the plain generalized solver loses ~1e-7 on the first bending
// mode of a slender bar next to its axial modes).
EigenModes denseLowest(const MatX& K, const MatX& M, int count, double sigma) {
  Eigen::LLT<MatX> llt(K - sigma * M);
  if (llt.info() != Eigen::Success)
    throw std::invalid_argument("the stiffness is singular about the shift: the body can move without strain");
  MatX C = llt.matrixL().solve(M);
  C = llt.matrixL().solve(C.transpose()).eval();
  Eigen::SelfAdjointEigenSolver<MatX> solver(0.5 * (C + C.transpose()));
  if (solver.info() != Eigen::Success) throw std::invalid_argument("the eigenproblem did not converge");
  MatX shapes = llt.matrixU().solve(solver.eigenvectors());
  for (int k = 0; k < shapes.cols(); ++k) shapes.col(k) /= std::sqrt(shapes.col(k).dot(M * shapes.col(k)));
  const VecX lambda = solver.eigenvalues().cwiseInverse().array() + sigma;
  return sortedByFrequency(lambda, shapes, count);
}

// Spectra's vectors come normalized in its own inner product; scale them to x^T M x = 1.
void massNormalize(MatX& shapes, const SparseMatrix& M) {
  for (int k = 0; k < shapes.cols(); ++k) shapes.col(k) /= std::sqrt(shapes.col(k).dot(M * shapes.col(k)));
}

}  // namespace

EigenModes lowestModes(const SparseMatrix& K, const SparseMatrix& M, int count, double sigma) {
  const int n = static_cast<int>(K.rows());
  if (count <= 0) return {MatX(n, 0), VecX(0)};
  if (count > n) throw std::invalid_argument(std::to_string(count) + " modes asked of a model with " + std::to_string(n) +
                                             " degrees of freedom");
  if (n <= kDenseLimit || count >= n - 1) return denseLowest(MatX(K), MatX(M), count, sigma);
  using Op = Spectra::SymShiftInvert<double, Eigen::Sparse, Eigen::Sparse>;
  using BOp = Spectra::SparseSymMatProd<double>;
  Op op(K, M);
  BOp bop(M);
  const int ncv = std::min(n, std::max(2 * count + 1, count + 20));
  Spectra::SymGEigsShiftSolver<Op, BOp, Spectra::GEigsMode::ShiftInvert> solver(op, bop, count, ncv, sigma);
  solver.init();
  solver.compute(Spectra::SortRule::LargestMagn, 1000, 1e-12);
  if (solver.info() != Spectra::CompInfo::Successful)
    throw std::invalid_argument("the eigenproblem did not converge (" + std::to_string(count) + " modes of " +
                                std::to_string(n) + " degrees of freedom)");
  EigenModes out = sortedByFrequency(solver.eigenvalues(), solver.eigenvectors(), count);
  massNormalize(out.shapes, M);
  return out;
}

CraigBampton craigBampton(const SparseMatrix& K, const SparseMatrix& M, std::vector<int> boundary,
                          const ReductionOptions& options) {
  const int n = static_cast<int>(K.rows());
  std::vector<int> role(n, -1);  // index among boundary or interior
  for (int b = 0; b < static_cast<int>(boundary.size()); ++b) {
    const int d = boundary[b];
    if (d < 0 || d >= n) throw std::invalid_argument("interface degree of freedom " + std::to_string(d) + " is not in the model");
    if (role[d] >= 0) throw std::invalid_argument("interface degree of freedom " + std::to_string(d) + " is given twice");
    role[d] = b;
  }
  std::vector<int> interior;
  for (int d = 0; d < n; ++d)
    if (role[d] < 0) interior.push_back(d);
  for (int i = 0; i < static_cast<int>(interior.size()); ++i) role[interior[i]] = i;
  const int nb = static_cast<int>(boundary.size()), ni = static_cast<int>(interior.size());
  std::vector<char> isBoundary(n, 0);
  for (int d : boundary) isBoundary[d] = 1;

  // Partition K and M into the interior block and the interior-boundary coupling.
  auto partition = [&](const SparseMatrix& A, SparseMatrix& II, MatX& IB) {
    std::vector<Eigen::Triplet<double>> t;
    IB = MatX::Zero(ni, nb);
    for (int c = 0; c < A.outerSize(); ++c)
      for (SparseMatrix::InnerIterator it(A, c); it; ++it) {
        const int r = static_cast<int>(it.row()), col = static_cast<int>(it.col());
        if (isBoundary[r]) continue;
        if (isBoundary[col]) IB(role[r], role[col]) += it.value();
        else t.emplace_back(role[r], role[col], it.value());
      }
    II.resize(ni, ni);
    II.setFromTriplets(t.begin(), t.end());
  };
  SparseMatrix Kii, Mii;
  MatX Kib, Mib;
  partition(K, Kii, Kib);
  partition(M, Mii, Mib);

  Eigen::SimplicialLDLT<SparseMatrix> ldlt(Kii);
  if (ldlt.info() != Eigen::Success || (ldlt.vectorD().array() <= 0).any())
    throw std::invalid_argument("the interface does not hold the body: with its " + std::to_string(nb) +
                                " interface degrees of freedom fixed the body can still move");
  const MatX psi = -ldlt.solve(Kib);

  int keep = options.modes;
  EigenModes normal;
  if (keep >= 0) {
    if (keep > ni)
      throw std::invalid_argument(std::to_string(keep) + " fixed-interface modes asked; the interior has " +
                                  std::to_string(ni) + " degrees of freedom");
    normal = lowestModes(Kii, Mii, keep);
  } else {
    if (!(options.maxFrequency > 0)) throw std::invalid_argument("give a number of modes or a positive frequency cut");
    // Ask for more modes until one lies above the cut.
    for (int ask = std::min(ni, 12);; ask = std::min(ni, 2 * ask)) {
      normal = lowestModes(Kii, Mii, ask);
      if (ask == ni || normal.frequencies[ask - 1] > options.maxFrequency) break;
    }
    keep = static_cast<int>(std::upper_bound(normal.frequencies.data(), normal.frequencies.data() + normal.frequencies.size(),
                                             options.maxFrequency) - normal.frequencies.data());
  }

  CraigBampton out;
  out.boundary = std::move(boundary);
  out.normalFrequencies = normal.frequencies.head(keep);
  out.basis = MatX::Zero(n, nb + keep);
  for (int b = 0; b < nb; ++b) out.basis(out.boundary[b], b) = 1;
  for (int i = 0; i < ni; ++i) {
    out.basis.row(interior[i]).head(nb) = psi.row(i);
    if (keep > 0) out.basis.row(interior[i]).tail(keep) = normal.shapes.row(i).head(keep);  // no row of an empty matrix
  }
  out.stiffness = out.basis.transpose() * (K * out.basis);
  out.mass = out.basis.transpose() * (M * out.basis);
  out.stiffness = 0.5 * (out.stiffness + out.stiffness.transpose()).eval();
  out.mass = 0.5 * (out.mass + out.mass.transpose()).eval();
  return out;
}

FreeModes freeFloatingModes(const CraigBampton& reduced, const MatX& rigid) {
  const int r = static_cast<int>(reduced.basis.cols());
  const int nb = static_cast<int>(reduced.boundary.size());
  // The rigid motions in reduced coordinates: their interface values, no fixed-interface part
  // (static condensation reproduces a motion without strain exactly).
  MatX C = MatX::Zero(r, rigid.cols());
  for (int b = 0; b < nb; ++b) C.row(b) = rigid.row(reduced.boundary[b]);
  const MatX MC = reduced.mass * C;
  Eigen::HouseholderQR<MatX> qr(MC);
  const MatX Q = qr.householderQ() * MatX::Identity(r, r);
  const MatX Z = Q.rightCols(r - rigid.cols());  // mass-orthogonal to every rigid motion
  const MatX Kz = Z.transpose() * reduced.stiffness * Z;
  const MatX Mz = Z.transpose() * reduced.mass * Z;
  const EigenModes modes = denseLowest(0.5 * (Kz + Kz.transpose()), 0.5 * (Mz + Mz.transpose()), static_cast<int>(Kz.rows()), 0.0);
  FreeModes out;
  out.shapes = reduced.basis * (Z * modes.shapes);
  out.frequencies = modes.frequencies;
  return out;
}

}  // namespace ek::fe
