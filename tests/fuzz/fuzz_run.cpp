// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target: any bytes as a project, then the initial state (static equilibrium or as
// modelled) and 20 steps of every load case. Bad input and divergence end in ModelError,
// SimulationError or std::invalid_argument with a message; nothing else may happen.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "engine/analysis/simulation.h"
#include "engine/core/error.h"
#include "engine/model/project_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::shared_ptr<const ek::SuspensionModel> model;
  try {
    model = ek::SuspensionModel::build(ek::parseProject(text, "fuzz.json"));
  } catch (const ek::ModelError&) {
    return 0;
  }
  if (model->nDof() > 600) return 0;  // large models only make the fuzzer slow, not wiser
  for (const auto& lc : model->project().loadCases) {
    try {
      ek::RunOptions o;
      o.dt = model->project().simulation.step;
      o.linearizeEvery = model->project().simulation.linearizeEvery;
      o.duration = 20 * o.dt;
      ek::Simulation sim(model, lc.name, o);
      sim.initialize();
      while (sim.step()) {
      }
    } catch (const ek::ModelError& e) {
      if (std::string(e.what()).empty()) std::abort();
    } catch (const ek::SimulationError& e) {
      if (std::string(e.what()).empty()) std::abort();
    } catch (const std::invalid_argument& e) {
      if (std::string(e.what()).empty()) std::abort();
    }
  }
  return 0;
}
