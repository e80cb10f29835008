// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/integrator.h"

#include <algorithm>
#include <stdexcept>

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

void Integrator::shortStep(double, State&, const InputSignals&, Workspace&) {
  throw std::invalid_argument(describe() + ": takes whole steps only (its history lies on the step grid); a time "
                              "between two steps needs a one-step method (lsrt2, lie, ros34pw2)");
}

}  // namespace ek
