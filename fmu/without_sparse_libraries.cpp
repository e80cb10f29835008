// SPDX-License-Identifier: GPL-3.0-or-later
// The source FMU's stand-ins for the two methods that need libraries outside the archive
// (docs/fmi.md, "Source FMUs"): SuiteSparse KLU and SUNDIALS CVODE. The FMU never chooses them —
// it runs LSRT2 or ROS34PW2 on the topology solver — so a call here means a configuration the
// export refuses; it is an error with the reason, never a silent fallback.
#include <stdexcept>

#include "engine/integrators/integrator.h"
#include "engine/solvers/solver_factory.h"

namespace ek {

std::unique_ptr<LinearSolver> makeKluSolver(const SuspensionModel&) {
  throw std::invalid_argument(
      "the linear solver 'klu' is not part of this FMU's sources (they build without SuiteSparse): use 'topology'");
}

std::unique_ptr<Integrator> makeCvodeIntegrator(const SuspensionModel&, const IntegratorOptions&, const LoadCaseRow&) {
  throw std::invalid_argument(
      "the integrator 'cvode' is not part of this FMU's sources (they build without SUNDIALS): use lsrt2 or ros34pw2");
}

}  // namespace ek
