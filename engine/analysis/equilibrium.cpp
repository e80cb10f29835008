// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/equilibrium.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/dynamics/linearize.h"
#include "engine/solvers/linear_solver.h"

namespace ek {
namespace {

/// The iteration matrix A = -J_r K + c M in the block pattern, factorized by the topology
/// solver, and steps in body-twist coordinates dq (dr = K dq).
class NewtonSystem {
 public:
  NewtonSystem(const SuspensionModel& model)
      : model_(model), solver_(makeLinearSolver("topology", model)), blocks_(model.pattern.nBlocks()) {
    const int n = model.nDof();
    mass_.resize(n);
    for (int l = 0; l < model.nFreeBodies(); ++l) {
      const ModelBody& b = model.bodies[model.freeBodies[l]];
      mass_.segment<3>(6 * l).setConstant(b.mass);
      mass_.segment<3>(6 * l + 3) = b.inertia.diagonal();
    }
  }

  /// Factorizes -J_r K + c M at the linearization in ws. @throws SimulationError if singular.
  void factorize(const Workspace& ws, double c) {
    const BlockPattern& p = model_.pattern;
    for (int row = 0; row < p.nBodies; ++row)
      for (int s = p.rowStart[row]; s < p.rowStart[row + 1]; ++s) {
        Mat6 A = -ws.Jr[s];
        A.rightCols<3>() = A.rightCols<3>() * ws.Kinv[p.col[s]];  // columns pair with body-twist increments
        if (p.col[s] == row) A.diagonal() += c * mass_.segment<6>(6 * row);
        blocks_[s] = A;
      }
    solver_->factorize(blocks_);
  }
  /// dq = A^-1 h.
  void solve(const VecX& h, VecX& dq) { solver_->solve(h, dq); }
  /// The diagonal of A's scale: largest |J_r,ii| / M_ii, a squared frequency.
  double stiffnessScale(const Workspace& ws) const {
    double s = 0.0;
    for (int l = 0; l < model_.nFreeBodies(); ++l)
      for (int k = 0; k < 6; ++k) s = std::max(s, std::abs(ws.Jr[model_.pattern.diag[l]](k, k)) / mass_[6 * l + k]);
    return s > 0.0 ? s : 1.0;
  }
  /// r + K(r) dq.
  void advance(const VecX& r, const Workspace& ws, const VecX& dq, VecX& out) const {
    out = r;
    for (int l = 0; l < model_.nFreeBodies(); ++l) {
      out.segment<3>(6 * l) += dq.segment<3>(6 * l);
      out.segment<3>(6 * l + 3) += ws.Kinv[l] * dq.segment<3>(6 * l + 3);
    }
  }
  /// True if no body moves more than 20 mm or turns more than 0.1 rad.
  bool withinLimits(const VecX& dq) const {
    for (int l = 0; l < model_.nFreeBodies(); ++l)
      if (dq.segment<3>(6 * l).norm() > 0.02 || dq.segment<3>(6 * l + 3).norm() > 0.1) return false;
    return true;
  }
  double largestBodyStep(const VecX& dq) const {
    double s = 0.0;
    for (int l = 0; l < model_.nFreeBodies(); ++l)
      s = std::max({s, dq.segment<3>(6 * l).norm(), dq.segment<3>(6 * l + 3).norm()});
    return s;
  }

 private:
  const SuspensionModel& model_;
  std::unique_ptr<LinearSolver> solver_;
  std::vector<Mat6> blocks_;
  VecX mass_;
};

/// Evaluates h at r (v = 0) into ws; false if it is not finite or an element cannot be evaluated.
bool evaluate(const SuspensionModel& model, const VecX& r, const VecX& u, State& trial, Workspace& ws) {
  trial.r = r;
  try {
    linearize(model, trial, u, ws);
  } catch (const SimulationError&) {
    return false;
  }
  return ws.h.allFinite();
}

std::string bodyName(const ModelBody& b) { return "body " + std::to_string(b.id) + " ('" + b.name + "')"; }

/// Why the equilibrium could not be found, as far as the residual tells: the body with the
/// largest acceleration, the element that pulls on it hardest, and the likely cause.
std::string diagnose(const SuspensionModel& model, const Workspace& ws) {
  int worst = -1;
  double acc = -1.0;
  for (int l = 0; l < model.nFreeBodies(); ++l) {
    const ModelBody& b = model.bodies[model.freeBodies[l]];
    const double a = std::max(ws.h.segment<3>(6 * l).norm() / b.mass,
                              b.inertia.ldlt().solve(Vec3(ws.h.segment<3>(6 * l + 3))).norm());
    if (a > acc) acc = a, worst = l;
  }
  if (worst < 0) return {};
  const int bodyIndex = model.freeBodies[worst];
  const ModelBody& body = model.bodies[bodyIndex];
  std::string s = "; the largest residual acceleration (" + significant(acc) + ") is at " + bodyName(body);
  // The element on that body with the largest force.
  std::string element, cause;
  double largest = -1.0;
  auto onBody = [&](MarkerIndex i, MarkerIndex j) {
    return model.markers[i.value].body.value == bodyIndex || model.markers[j.value].body.value == bodyIndex;
  };
  bool held = false, zeroStiffness = false;
  for (std::size_t e = 0; e < model.bushings.size(); ++e) {
    const ModelBushing& b = model.bushings[e];
    if (!onBody(b.i, b.j)) continue;
    held = true;
    const double f = ws.bushings[e].force.head<3>().norm();
    if (f > largest) largest = f, element = "bushing " + std::to_string(b.id) + " ('" + b.name + "')";
    zeroStiffness |= std::all_of(b.stiffness.begin(), b.stiffness.end(), [](const Characteristic& c) { return c.isZero(); });
  }
  for (std::size_t e = 0; e < model.p2ps.size(); ++e) {
    const ModelP2P& p = model.p2ps[e];
    if (!onBody(p.i, p.j)) continue;
    held = true;
    const double f = std::abs(ws.p2ps[e].tension);
    if (f > largest) largest = f, element = "p2p element " + std::to_string(p.id) + " ('" + p.name + "')";
    const double ext = ws.p2ps[e].length - p.freeLength;
    if ((p.bump.active && -ext > p.bump.clearance) || (p.rebound.active && ext > p.rebound.clearance))
      cause = "the load drives p2p element " + std::to_string(p.id) + " ('" + p.name +
              "') into its stop: is the load beyond what the stop's curve holds?";
  }
  if (!held) return s + ": no force element acts on it, so nothing holds it against its load";
  if (!element.empty()) s += ", where " + element + " carries the largest force (" + significant(largest) + ")";
  // A direction of the body without stiffness: its diagonal block of J_r is (nearly) singular.
  const Mat6& D = ws.Jr[model.pattern.diag[worst]];
  const Eigen::SelfAdjointEigenSolver<Mat6> eig(0.5 * (D + D.transpose()));
  const double big = eig.eigenvalues().cwiseAbs().maxCoeff();
  if (zeroStiffness)
    cause = "an element on it has no stiffness in any direction";
  else if (cause.empty() && (big == 0.0 || eig.eigenvalues().cwiseAbs().minCoeff() < 1e-12 * big))
    cause = "the elements on it leave a direction without stiffness (a free direction) and the load acts along it";
  if (cause.empty()) cause = "the load may exceed what the elements hold, or a characteristic curve ends too early";
  return s + "; likely cause: " + cause;
}

}  // namespace

double maxAcceleration(const SuspensionModel& model, const Workspace& ws) {
  double worst = 0.0;
  for (int l = 0; l < model.nFreeBodies(); ++l) {
    const ModelBody& b = model.bodies[model.freeBodies[l]];
    const double a = ws.h.segment<3>(6 * l).norm() / b.mass;
    const double alpha = b.inertia.ldlt().solve(Vec3(ws.h.segment<3>(6 * l + 3))).norm();
    worst = std::max({worst, a, alpha});
  }
  return worst;
}

EquilibriumResult solveEquilibrium(const SuspensionModel& model, const VecX& u, State& state, Workspace& ws,
                                   double tolerance, int maxIterations) {
  const int n = model.nDof();
  state.v.setZero();
  NewtonSystem sys(model);
  State trial = state;
  Workspace wt(model);
  VecX dq(n), rTrial(n);
  if (!evaluate(model, state.r, u, trial, ws))
    throw SimulationError("static equilibrium not found: the forces at the start are not finite" + diagnose(model, ws));
  // A tiny mass-proportional term keeps free directions (zero stiffness, e.g. wheel spin) where
  // they are; it is far below the stiffness of any real direction.
  const double scale = sys.stiffnessScale(ws);
  const double mu = 1e-12 * scale;
  // Pseudo-transient continuation: linear-implicit Euler steps (-J_r K + M / tau) dq = h of the
  // overdamped motion M dq/dt = h, with a pseudo time step tau that doubles after every
  // accepted step, so that the iteration ends as Newton's method. A short step moves the soft mechanism
  // directions only a little while the stiff joint directions are solved implicitly: the path
  // of a stiff-jointed mechanism is followed without straining its joints, which a full Newton
  // step along the tangent of a curved path would do by far more than it gains.
  double tau = 1e-6;  // [s^2]: the first step moves each body by about tau |M^-1 h|
  {
    double acc = maxAcceleration(model, ws);
    if (acc > 0.0) tau = std::min(1e-2, 1e-3 / acc);  // about a millimetre
  }
  for (int it = 0; it < maxIterations; ++it) {
    const double acc = maxAcceleration(model, ws);
    if (acc < tolerance) return {it, acc};
    const double hNorm = ws.h.norm();
    bool stepped = false;
    for (int tries = 0; tries < 60 && !stepped; ++tries) {
      bool ok = true;
      try {
        sys.factorize(ws, mu + 1.0 / tau);
      } catch (const SimulationError&) {
        ok = false;
      }
      if (ok) {
        sys.solve(ws.h, dq);
        ok = dq.allFinite();
      }
      if (ok && sys.largestBodyStep(dq) < 1e-10 && tau > 1e6) return {it, acc};  // round-off floor
      if (ok && !sys.withinLimits(dq)) ok = false;
      if (ok) {
        sys.advance(state.r, ws, dq, rTrial);
        ok = evaluate(model, rTrial, u, trial, wt) && wt.h.norm() < 1e3 * hNorm + 1e-300;
      }
      if (!ok) {
        tau *= 0.25;
        continue;
      }
      stepped = true;
    }
    if (!stepped)
      throw SimulationError("static equilibrium not found: no step after " + std::to_string(it) +
                            " iterations (largest acceleration " + significant(acc) + ")" + diagnose(model, ws));
    state.r = rTrial;
    std::swap(ws, wt);
    // Grow the pseudo time step after every accepted step; the step cap and the blow-up test
    // above shorten it again where the path bends.
    tau = std::min(2.0 * tau, 1e30);
  }
  const double acc = maxAcceleration(model, ws);
  if (acc < tolerance) return {maxIterations, acc};
  throw SimulationError("static equilibrium not found in " + std::to_string(maxIterations) +
                        " iterations (largest acceleration left " + significant(acc) + ")" + diagnose(model, ws));
}

}  // namespace ek
