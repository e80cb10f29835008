// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/integrator.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

#include "engine/integrators/bdf2.h"
#include "engine/integrators/cvode_integrator.h"
#include "engine/integrators/generalized_alpha.h"
#include "engine/integrators/lsrt2.h"
#include "engine/integrators/parallel_choice.h"
#include "engine/integrators/rosenbrock_w.h"
#include "engine/integrators/stage_system.h"

namespace ek {

LocalErrorEstimate largestPerKind(int freeBodies, const VecX& er, const VecX& ev) {
  LocalErrorEstimate e;
  for (int l = 0; l < freeBodies; ++l) {
    e.position = std::max(e.position, er.segment<3>(6 * l).cwiseAbs().maxCoeff());
    e.angle = std::max(e.angle, er.segment<3>(6 * l + 3).cwiseAbs().maxCoeff());
    e.velocity = std::max(e.velocity, ev.segment<3>(6 * l).cwiseAbs().maxCoeff());
    e.angularVelocity = std::max(e.angularVelocity, ev.segment<3>(6 * l + 3).cwiseAbs().maxCoeff());
  }
  return e;
}

namespace {
constexpr const char* kIntegratorNames[] = {"lsrt2", "lie", "ros34pw2", "bdf2", "galpha", "galpha-frozen", "cvode"};
}  // namespace

std::string integratorNames() {
  std::string out;
  for (const char* n : kIntegratorNames) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

std::unique_ptr<Integrator> makeIntegrator(const SuspensionModel& model, const IntegratorOptions& o,
                                           const LoadCaseRow& loadCase) {
  const bool known = std::find(std::begin(kIntegratorNames), std::end(kIntegratorNames), o.method) !=
                     std::end(kIntegratorNames);
  if (known) checkBranchesSupported(model, o.method);
  if (o.method == "lsrt2") {
    auto lsrt2 = [&](int threads) {
      return std::make_unique<Lsrt2>(model, Lsrt2Options{o.dt, o.linearizeEvery, o.kinematicsDerivative, threads},
                                     makeLinearSolver(o.solver, model));
    };
    if (o.threads <= 1 || o.threadsAlways) return lsrt2(o.threads);
    return std::make_unique<ParallelWhenItPays>(lsrt2(o.threads), lsrt2(1), o.threadsRecheck);
  }
  if (o.method == "cvode") {
    if (!(o.relativeTolerance > 0.0)) throw std::invalid_argument("the relative tolerance must be positive");
    return std::make_unique<CvodeIntegrator>(model, o, loadCase);
  }
  if (const WTableau* tableau = findWTableau(o.method)) {
    if (o.threads != 1)
      throw std::invalid_argument("--threads applies to lsrt2 only; integrator '" + o.method + "' runs on one thread");
    return std::make_unique<RosenbrockW>(model, *tableau,
                                         RosenbrockWOptions{o.dt, o.linearizeEvery, o.kinematicsDerivative},
                                         makeLinearSolver(o.solver, model));
  }
  if (o.method == "bdf2") {
    if (o.threads != 1)
      throw std::invalid_argument("--threads applies to lsrt2 only; integrator 'bdf2' runs on one thread");
    return std::make_unique<Bdf2>(model, Bdf2Options{o.dt, o.linearizeEvery, o.kinematicsDerivative, 2},
                                  makeLinearSolver(o.solver, model));
  }
  if (o.method == "galpha" || o.method == "galpha-frozen") {
    if (o.threads != 1)
      throw std::invalid_argument("--threads applies to lsrt2 only; integrator '" + o.method + "' runs on one thread");
    return std::make_unique<GeneralizedAlpha>(
        model, GeneralizedAlphaOptions{o.dt, o.linearizeEvery, o.rhoInfinity, 2, o.method == "galpha-frozen"},
        makeLinearSolver(o.solver, model));
  }
  throw std::invalid_argument("unknown integrator '" + o.method + "' (available: " + integratorNames() + ")");
}

}  // namespace ek
