// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/integrator_factory.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "engine/integrators/bdf2.h"
#include "engine/integrators/generalized_alpha.h"
#include "engine/integrators/lsrt2.h"
#include "engine/integrators/rosenbrock_w.h"
#include "engine/integrators/stage_system.h"
#include "engine/solvers/solver_factory.h"
#if defined(ELASTOKIN_THREADS)
#include "engine/parallel/parallel_choice.h"
#include "engine/parallel/parallel_lsrt2.h"
#endif

namespace ek {

bool threadsAvailable() {
#if defined(ELASTOKIN_THREADS)
  return true;
#else
  return false;
#endif
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
  if (o.threads < 1) throw std::invalid_argument("the number of threads must be at least 1");
  if (o.method == "lsrt2") {
    const Lsrt2Options options{o.dt, o.linearizeEvery, o.kinematicsDerivative};
    if (o.threads == 1) return std::make_unique<Lsrt2>(model, options, makeLinearSolver(o.solver, model));
#if defined(ELASTOKIN_THREADS)
    auto parallel = std::make_unique<ParallelLsrt2>(model, options, o.threads, makeLinearSolver(o.solver, model));
    if (o.threadsAlways) return parallel;
    return std::make_unique<ParallelWhenItPays>(std::move(parallel),
                                                std::make_unique<Lsrt2>(model, options, makeLinearSolver(o.solver, model)),
                                                o.threadsRecheck);
#else
    throw std::invalid_argument("this build runs on one thread (ELASTOKIN_THREADS=OFF): --threads must be 1");
#endif
  }
  if (o.method == "cvode") {
    if (!(o.relativeTolerance > 0.0)) throw std::invalid_argument("the relative tolerance must be positive");
    return makeCvodeIntegrator(model, o, loadCase);
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
