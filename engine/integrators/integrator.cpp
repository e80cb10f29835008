// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/integrator.h"

#include <stdexcept>

#include "engine/integrators/cvode_integrator.h"
#include "engine/integrators/lsrt2.h"

namespace ek {

std::unique_ptr<Integrator> makeIntegrator(const SuspensionModel& model, const IntegratorOptions& o,
                                           const LoadCaseRow& loadCase) {
  if (o.method == "lsrt2")
    return std::make_unique<Lsrt2>(model, Lsrt2Options{o.dt, o.linearizeEvery, o.kinematicsDerivative, o.threads},
                                   makeLinearSolver(o.solver, model));
  if (o.method == "cvode") {
    if (!(o.relativeTolerance > 0.0)) throw std::invalid_argument("the relative tolerance must be positive");
    return std::make_unique<CvodeIntegrator>(model, o, loadCase);
  }
  throw std::invalid_argument("unknown integrator '" + o.method + "' (available: lsrt2, cvode)");
}

}  // namespace ek
