// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/equilibrium.h"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/dynamics/linearize.h"
#include "engine/dynamics/tyre_rows.h"
#include "engine/dynamics/wheels.h"
#include "engine/solvers/linear_solver.h"

namespace ek {
namespace {

/// Evaluates h at r (v = 0) under the wheel loads into ws; false if it is not finite or an element
/// cannot be evaluated.
/// With tyres, their contact patches stay where `patches` has them (docs/tyres.md, "At rest").
bool evaluate(const SuspensionModel& model, const VecX& r, const VecX& u, const VecX& wheelLoads,
              const std::vector<TyrePatch>& patches, State& trial, Workspace& ws) {
  trial.r = r;
  try {
    if (!patches.empty()) setRestDeflections(model, patches, trial, ws);
    linearize(model, trial, u, ws, &wheelLoads);
    if (!patches.empty()) addRestDeflectionPartials(model, patches, ws);
  } catch (const SimulationError&) {
    return false;
  }
  return ws.h.allFinite();
}

std::string bodyName(const ModelBody& b) { return "body " + std::to_string(b.id) + " ('" + printableExcerpt(b.name) + "')"; }

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
    if (f > largest) largest = f, element = "bushing " + std::to_string(b.id) + " ('" + printableExcerpt(b.name) + "')";
    zeroStiffness |= std::all_of(b.stiffness.begin(), b.stiffness.end(), [](const Characteristic& c) { return c.isZero(); });
  }
  for (std::size_t e = 0; e < model.p2ps.size(); ++e) {
    const ModelP2P& p = model.p2ps[e];
    if (!onBody(p.i, p.j)) continue;
    held = true;
    const double f = std::abs(ws.p2ps[e].tension);
    if (f > largest) largest = f, element = "p2p element " + std::to_string(p.id) + " ('" + printableExcerpt(p.name) + "')";
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

namespace {

/// The force level of the equilibrium [N]: the largest force an element carries, a wheel load or
/// a body's weight. The residual h cannot fall below round-off of these forces: a stiff joint
/// (1e8 N/m) turns the last bit of a position (1e-16 m) into 1e-8 N, which on a light body is an
/// acceleration far above any absolute tolerance.
double forceScale(const SuspensionModel& model, const Workspace& ws, const VecX& wheelLoads) {
  double f = 0.0;
  for (const auto& b : ws.bushings) f = std::max(f, b.force.head<3>().norm());
  for (const auto& p : ws.p2ps) f = std::max(f, std::abs(p.tension));
  for (Eigen::Index k = 0; k < wheelLoads.size(); ++k) f = std::max(f, std::abs(wheelLoads[k]));
  for (int l = 0; l < model.nFreeBodies(); ++l) f = std::max(f, model.bodies[model.freeBodies[l]].mass * model.gravity.norm());
  return f;
}

/// The largest residual force or torque (per metre) on a body [N].
double residualForce(const SuspensionModel& model, const Workspace& ws) {
  double r = 0.0;
  for (int l = 0; l < model.nFreeBodies(); ++l)
    r = std::max({r, ws.h.segment<3>(6 * l).norm(), ws.h.segment<3>(6 * l + 3).norm() / 1.0});
  return r;
}

/// The residual forces are at round-off of the force level below this fraction of it (on a 10 kg
/// body at 5 kN, 5e-7 m/s^2; through a 30 N/mm spring, 2e-10 m).
constexpr double kRoundOff = 1e-9;
/// Accepted steps without halving the residual, below that level, after which it is the floor.
constexpr int kStalledSteps = 6;

/// The wheel heights of a constrained equilibrium: the constraint rows C K (in body-twist
/// increments) and the load columns B (dh per newton of vertical force at each contact point).
class HeldWheels {
 public:
  HeldWheels(const SuspensionModel& model, const std::vector<WheelHeight>& held) : model_(model), held_(held) {
    const int m = static_cast<int>(held.size());
    B_.resize(model.nDof(), m);
    CK_.resize(m, model.nDof());
    X_.resize(model.nDof(), m);
  }
  int size() const { return static_cast<int>(held_.size()); }
  int loadIndex(int k) const { return kWheelLoads * held_[k].wheel + kFzContact; }
  /// Largest distance of a held wheel centre from its target [m].
  double gap(const Workspace& ws) const {
    double g = 0.0;
    for (int k = 0; k < size(); ++k) g = std::max(g, std::abs(heightError(ws, k)));
    return g;
  }
  double heightError(const Workspace& ws, int k) const {
    return wheelChannels(model_.wheels[held_[k].wheel], ws)[kCentreZ] - held_[k].centreZ;
  }
  /// Bordered step: with A dq = h + B dlambda and C K dq = -(error), limited to `reach` per
  /// step. Solves A X = B with the factorized system. Returns false if the small system is singular.
  template <class System>
  bool step(System& sys, const Workspace& ws, const VecX& dq0, double reach, VecX& dq, VecX& dLambda) {
    const int m = size();
    VecX g, col, x(model_.nDof());
    for (int k = 0; k < m; ++k) {
      wheelLoadColumn(model_, ws, held_[k].wheel, kFzContact, col);
      B_.col(k) = col;
      sys.solve(col, x);
      X_.col(k) = x;
      wheelChannelGradient(model_, ws, held_[k].wheel, kCentreZ, g);
      for (int l = 0; l < model_.nFreeBodies(); ++l) g.segment<3>(6 * l + 3) = ws.Kinv[l].transpose() * g.segment<3>(6 * l + 3);
      CK_.row(k) = g.transpose();
    }
    VecX rhs(m);
    for (int k = 0; k < m; ++k) rhs[k] = -std::clamp(heightError(ws, k), -reach, reach);
    rhs -= CK_ * dq0;
    const MatX S = CK_ * X_;
    Eigen::FullPivLU<MatX> lu(S);
    if (lu.rank() < m) return false;
    dLambda = lu.solve(rhs);
    dq = dq0 + X_ * dLambda;
    return dq.allFinite() && dLambda.allFinite();
  }

 private:
  const SuspensionModel& model_;
  const std::vector<WheelHeight>& held_;
  MatX B_, CK_, X_;
};

}  // namespace

EquilibriumResult solveEquilibrium(const SuspensionModel& model, const VecX& u, State& state, Workspace& ws,
                                   double tolerance, int maxIterations, const std::vector<WheelHeight>& held,
                                   double initialPseudoStep, VecX* wheelLoads) {
  const int n = model.nDof();
  VecX none;
  if (!wheelLoads) {
    none = VecX::Zero(kWheelLoads * static_cast<Eigen::Index>(model.wheels.size()));
    wheelLoads = &none;
  }
  VecX& loads = *wheelLoads;
  state.v.setZero();
  EquilibriumSystem sys(model);
  HeldWheels wheels(model, held);
  State trial = state;
  Workspace wt(model);
  VecX trialLoads = loads;
  VecX dq(n), dq0(n), rTrial(n), dLambda;
  // A held wheel's centre moves towards its target by at most this much per step, so that a far
  // target is reached along the mechanism's path rather than by one long tangent step.
  constexpr double kReach = 0.005;  // [m]
  constexpr double kHeightTolerance = 1e-9;  // [m]
  // Tyres stand where the state as given sets them down; their deflections follow the hubs.
  std::vector<TyrePatch> patches;
  if (model.hasTyres()) patches = tyrePatches(model, state, wt);
  // The accepted state's deflections into state.v (the converged equilibrium's).
  auto restState = [&](EquilibriumResult result) {
    if (!patches.empty()) setRestDeflections(model, patches, state, wt);
    return result;
  };
  if (!evaluate(model, state.r, u, loads, patches, trial, ws))
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
  // step along the tangent of a curved path would do by far more than it gains. Held wheels
  // add their vertical forces as unknowns and their heights as constraints (a bordered system
  // solved through the same factorization).
  double tau = 1e-6;  // [s^2]: the first step moves each body by about tau |M^-1 h|
  {
    double acc = maxAcceleration(model, ws);
    if (acc > 0.0) tau = std::min(1e-2, 1e-3 / acc);  // about a millimetre
    if (initialPseudoStep > 0.0) tau = initialPseudoStep;
  }
  // Converged when every body's acceleration is below the tolerance, or when the residual forces,
  // at round-off of the force level, stop falling: a light body between stiff joints cannot get
  // below the absolute tolerance (the last bit of a position through 1e8 N/m is 1e-8 N).
  double bestResidual = std::numeric_limits<double>::infinity();
  int stalled = 0;
  for (int it = 0; it < maxIterations; ++it) {
    const double acc = maxAcceleration(model, ws);
    const double floor = kRoundOff * forceScale(model, ws, loads), residual = residualForce(model, ws);
    if (residual <= floor && residual > 0.5 * bestResidual) ++stalled;
    else stalled = 0;
    bestResidual = std::min(bestResidual, residual);
    if ((acc < tolerance || stalled >= kStalledSteps) && wheels.gap(ws) < kHeightTolerance) return restState({it, acc});
    const double hNorm = ws.h.norm();
    const double noise = floor;  // a trial may not raise the residual a thousandfold, but its noise may
    bool stepped = false;
    for (int tries = 0; tries < 60 && !stepped; ++tries) {
      bool ok = true;
      try {
        sys.factorize(ws, mu + 1.0 / tau);
      } catch (const SimulationError&) {
        ok = false;
      }
      if (ok) {
        sys.solve(ws.h, wheels.size() ? dq0 : dq);
        ok = wheels.size() ? dq0.allFinite() && wheels.step(sys, ws, dq0, kReach, dq, dLambda) : dq.allFinite();
      }
      if (ok && sys.largestBodyStep(dq) < 1e-10 && tau * scale > 1e8 && wheels.gap(ws) < kHeightTolerance)
        return restState({it, acc});  // round-off floor
      if (ok && !sys.withinLimits(dq)) ok = false;
      if (ok) {
        sys.advance(state.r, ws, dq, rTrial);
        trialLoads = loads;
        for (int k = 0; k < wheels.size(); ++k) trialLoads[wheels.loadIndex(k)] += dLambda[k];
        ok = evaluate(model, rTrial, u, trialLoads, patches, trial, wt) && (wt.h.norm() < 1e3 * hNorm + noise || wheels.size() > 0);
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
    loads = trialLoads;
    // Grow the pseudo time step after every accepted step; the step cap and the blow-up test
    // above shorten it again where the path bends.
    tau = std::min(2.0 * tau, 1e30);
  }
  const double acc = maxAcceleration(model, ws);
  if ((acc < tolerance || stalled >= kStalledSteps) && wheels.gap(ws) < kHeightTolerance)
    return restState({maxIterations, acc});
  std::string heights;
  if (wheels.gap(ws) >= kHeightTolerance)
    heights = "; a held wheel centre is " + significant(wheels.gap(ws)) + " m from its target";
  throw SimulationError("static equilibrium not found in " + std::to_string(maxIterations) +
                        " iterations (largest acceleration left " + significant(acc) + ")" + heights + diagnose(model, ws));
}

}  // namespace ek
