// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/fd.h"

#include <algorithm>

namespace ek::test {

MatX centralDifference(const std::function<VecX(const VecX&)>& f, const VecX& x, double h) {
  const VecX f0 = f(x);
  MatX J(f0.size(), x.size());
  VecX xp = x, xm = x;
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    xp[k] = x[k] + h;
    xm[k] = x[k] - h;
    J.col(k) = (f(xp) - f(xm)) / (2.0 * h);
    xp[k] = xm[k] = x[k];
  }
  return J;
}

double blockRelativeError(const MatX& A, const MatX& F, int rows, int cols, double floor) {
  const double global = F.cwiseAbs().maxCoeff();
  double worst = 0.0;
  for (Eigen::Index i = 0; i < F.rows(); i += rows)
    for (Eigen::Index j = 0; j < F.cols(); j += cols) {
      const Eigen::Index r = std::min<Eigen::Index>(rows, F.rows() - i), c = std::min<Eigen::Index>(cols, F.cols() - j);
      const double scale = std::max(F.block(i, j, r, c).cwiseAbs().maxCoeff(), floor * global);
      if (scale == 0.0) continue;
      worst = std::max(worst, (A.block(i, j, r, c) - F.block(i, j, r, c)).cwiseAbs().maxCoeff() / scale);
    }
  return worst;
}

}  // namespace ek::test
