// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file integrator.h
/// A fixed-output-step integrator of the equations of motion: LSRT2 (the real-time method) or
/// the CVODE BDF reference. Both use the engine's own right-hand side and Jacobians.

#include <memory>
#include <stdexcept>
#include <string>

#include "engine/dynamics/workspace.h"
#include "engine/model/signal.h"

namespace ek {

struct IntegratorOptions {
  std::string method = "lsrt2";   ///< "lsrt2", "lie", "ros34pw2" or "cvode" (integratorNames())
  double dt = 1e-3;               ///< fixed step (LSRT2) or output step (CVODE) [s]
  int linearizeEvery = 1;         ///< LSRT2
  bool kinematicsDerivative = true;  ///< LSRT2: include d(Kv)/dr
  std::string solver = "topology";  ///< LSRT2 linear solver
  double relativeTolerance = 1e-9;   ///< CVODE
  int threads = 1;                   ///< LSRT2: threads of the parallel step, used when faster (engine/parallel)
  std::string cvodeSolver = "auto";  ///< CVODE Newton systems: "dense", "klu" (sparse) or "auto" (by size)
  double rhoInfinity = 0.9;          ///< generalized-alpha: spectral radius at infinity, [0, 1]
  bool threadsAlways = false;        ///< LSRT2: the parallel step on every step, faster or not (benchmarks)
  long long threadsRecheck = 5000;   ///< LSRT2 with threads > 1: steps between two checks of which is faster
};

/// The largest |entry| of each kind of a step's error vectors (er over r, ev over v), per free body.
LocalErrorEstimate largestPerKind(int freeBodies, const VecX& er, const VecX& ev);

/// A one-step method's shortStep: runs `step` with `dt` set to h and the linearization count
/// `steps` at zero, and sets both back after it (steps at zero again: the next step linearizes),
/// whether it throws or not. @throws std::invalid_argument unless 0 < h <= dt.
template <class Step>
void withShortStep(double h, double& dt, long long& steps, Step&& step) {
  if (!(h > 0.0 && h <= dt)) throw std::invalid_argument("a short step must lie in (0, dt]");
  struct Restore {
    double& dt;
    long long& steps;
    double grid;
    ~Restore() { dt = grid, steps = 0; }
  } restore{dt, steps, dt};
  dt = h;
  steps = 0;
  step();
}

class Integrator {
 public:
  virtual ~Integrator() = default;
  /// Advances state by dt. @throws SimulationError.
  virtual void step(State& state, const InputSignals& inputs, Workspace& ws) = 0;
  /// Advances state by h, 0 < h <= dt: a step of the same method, shorter, for a time between
  /// two grid points (an FMU's communication point off the grid, Simulation::advanceTo). It
  /// linearizes and factorizes at its start; the next step() linearizes afresh.
  /// @throws std::invalid_argument for a method that cannot (a multistep method: its history
  ///   is on the grid), SimulationError as step().
  virtual void shortStep(double h, State& state, const InputSignals& inputs, Workspace& ws);
  /// A one-line description for summaries.
  virtual std::string describe() const = 0;
  /// True if the last step() left in ws the kinematics and force-element results (and u) of the
  /// state the step started from, so outputs of that state can be read from ws.
  virtual bool workspaceHoldsStepStart() const { return false; }
  /// The last step's local error estimate; nullptr for a method without one.
  virtual const LocalErrorEstimate* localError() const { return nullptr; }
  /// Where the estimate comes from, for summaries (e.g. "embedded first-order solution").
  virtual std::string errorEstimateSource() const { return {}; }
  /// The next step linearizes afresh (after the state was set back or forth from outside: a
  /// linearization kept for later steps belongs to another state).
  virtual void resetLinearization() {}
};

/// SUNDIALS CVODE on the model (cvode_integrator.h), for callers that do not include the SUNDIALS
/// headers. Defined in cvode_integrator.cpp; a build without SUNDIALS (the source FMU,
/// docs/fmi.md) defines it as an error instead (fmu/without_sparse_libraries.cpp).
std::unique_ptr<Integrator> makeCvodeIntegrator(const SuspensionModel& model, const IntegratorOptions& options,
                                                const LoadCaseRow& loadCase);

}  // namespace ek
