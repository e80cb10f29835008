// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/modal.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/analysis/linear_analysis.h"
#include "engine/core/error.h"
#include "engine/dynamics/wheels.h"

namespace ek {

namespace {

/// The free bodies no force element touches, for the message of a system without stiffness.
std::string unheldBodies(const SuspensionModel& model) {
  std::vector<bool> held(model.bodies.size(), false);
  auto mark = [&](MarkerIndex m) { held[model.markers[m.value].body.value] = true; };
  for (const auto& b : model.bushings) mark(b.i), mark(b.j);
  for (const auto& p : model.p2ps) mark(p.i), mark(p.j);
  for (const auto& r : model.steeringRacks) mark(r.i), mark(r.j);
  std::string names;
  for (int l : model.freeBodies)
    if (!held[l]) names += (names.empty() ? "" : ", ") + std::string("'") + model.bodies[l].name + "'";
  return names.empty() ? "the elements' stiffness and damping are all zero" : "free bodies on no element: " + names;
}

}  // namespace

ModalReport analyzeModes(const SuspensionModel& model, const State& state, const VecX& u) {
  OperatingPoint point;
  point.state = state;
  point.u = u;
  point.wheelLoads = VecX::Zero(kWheelLoads * static_cast<Eigen::Index>(model.wheels.size()));
  FirstOrderSystem sys(model);
  buildFirstOrderSystem(model, point, sys);
  const MatX& S = sys.S;
  const Eigen::EigenSolver<MatX> es(S, false);
  ModalReport rep;
  for (Eigen::Index k = 0; k < es.eigenvalues().size(); ++k) rep.eigenvalues.push_back(es.eigenvalues()[k]);
  std::sort(rep.eigenvalues.begin(), rep.eigenvalues.end(),
            [](auto a, auto b) { return std::abs(a) < std::abs(b); });
  rep.maxMagnitude = rep.eigenvalues.empty() ? 0.0 : std::abs(rep.eigenvalues.back());
  if (!(rep.maxMagnitude > 0.0))
    throw SimulationError(std::string("every eigenvalue of the linearized system is ") +
                          (std::isnan(rep.maxMagnitude) ? "NaN" : "zero") +
                          ": no force element holds or damps the free bodies (" + unheldBodies(model) +
                          "), so there is no stiffness ratio and no eigenfrequency");
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

  // Undamped: M q'' = J_r K q  =>  omega^2 = eigenvalues of -M^-1 J_r K = -S_21 S_12.
  const int n = sys.n;
  const Eigen::EigenSolver<MatX> und(-(S.bottomLeftCorner(n, n) * S.topRightCorner(n, n)), false);
  for (Eigen::Index k = 0; k < und.eigenvalues().size(); ++k) {
    const auto w2 = und.eigenvalues()[k];
    if (w2.real() > rep.zeroThreshold * rep.zeroThreshold && std::abs(w2.imag()) < 1e-6 * std::abs(w2.real()))
      rep.undampedFrequencies.push_back(std::sqrt(w2.real()) / (2.0 * M_PI));
  }
  std::sort(rep.undampedFrequencies.begin(), rep.undampedFrequencies.end());
  return rep;
}

}  // namespace ek
