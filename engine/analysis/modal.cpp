// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/modal.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "engine/dynamics/linearize.h"

namespace ek {

ModalReport analyzeModes(const SuspensionModel& model, const State& state, const VecX& u) {
  Workspace ws(model);
  linearize(model, state, u, ws);
  const int n = model.nDof();
  MatX Minv = MatX::Zero(n, n), K = MatX::Zero(n, n), N = MatX::Zero(n, n);
  for (int l = 0; l < model.nFreeBodies(); ++l) {
    const ModelBody& b = model.bodies[model.freeBodies[l]];
    Minv.block<3, 3>(6 * l, 6 * l) = Mat3::Identity() / b.mass;
    Minv.block<3, 3>(6 * l + 3, 6 * l + 3) = b.inertia.inverse();
    K.block<3, 3>(6 * l, 6 * l).setIdentity();
    K.block<3, 3>(6 * l + 3, 6 * l + 3) = ws.Kinv[l];
    N.block<3, 3>(6 * l + 3, 6 * l + 3) = ws.N[l];
  }
  const MatX Jr = blockToDense(model.pattern, ws.Jr), Jv = blockToDense(model.pattern, ws.Jv);
  // A non-finite linearization has no eigenvalues: name the first body whose rows hold one.
  for (int l = 0; l < model.nFreeBodies(); ++l)
    if (!Jr.middleRows<6>(6 * l).allFinite() || !Jv.middleRows<6>(6 * l).allFinite() ||
        !ws.Kinv[l].allFinite() || !ws.N[l].allFinite()) {
      const ModelBody& b = model.bodies[model.freeBodies[l]];
      throw SimulationError("the linearization is not finite (NaN or Inf) in the equations of body " +
                            std::to_string(b.id) + " ('" + b.name + "'): no eigen-analysis possible");
    }
  MatX S(2 * n, 2 * n);
  S << N, K, Minv * Jr, Minv * Jv;
  const Eigen::EigenSolver<MatX> es(S, false);
  ModalReport rep;
  for (Eigen::Index k = 0; k < es.eigenvalues().size(); ++k) rep.eigenvalues.push_back(es.eigenvalues()[k]);
  std::sort(rep.eigenvalues.begin(), rep.eigenvalues.end(),
            [](auto a, auto b) { return std::abs(a) < std::abs(b); });
  rep.maxMagnitude = std::abs(rep.eigenvalues.back());
  rep.zeroThreshold = 1e-9 * rep.maxMagnitude;
  rep.minMagnitude = rep.maxMagnitude;
  rep.maxRealPart = -std::numeric_limits<double>::infinity();
  for (const auto& l : rep.eigenvalues) {
    if (std::abs(l) < rep.zeroThreshold) {
      ++rep.zeroEigenvalues;
      continue;
    }
    rep.minMagnitude = std::min(rep.minMagnitude, std::abs(l));
    rep.maxRealPart = std::max(rep.maxRealPart, l.real());
  }
  rep.stiffnessRatio = rep.maxMagnitude / rep.minMagnitude;

  // Undamped: M q'' = J_r K q  =>  omega^2 = eigenvalues of -M^-1 J_r K.
  const Eigen::EigenSolver<MatX> und(-(Minv * Jr * K), false);
  for (Eigen::Index k = 0; k < und.eigenvalues().size(); ++k) {
    const auto w2 = und.eigenvalues()[k];
    if (w2.real() > rep.zeroThreshold * rep.zeroThreshold && std::abs(w2.imag()) < 1e-6 * std::abs(w2.real()))
      rep.undampedFrequencies.push_back(std::sqrt(w2.real()) / (2.0 * M_PI));
  }
  std::sort(rep.undampedFrequencies.begin(), rep.undampedFrequencies.end());
  return rep;
}

}  // namespace ek
