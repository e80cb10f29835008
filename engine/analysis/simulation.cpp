// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/simulation.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "engine/core/error.h"
#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"

namespace ek {
namespace {

const LoadCaseRow& findLoadCase(const SuspensionModel& m, const std::string& name) {
  if (const LoadCaseRow* lc = m.loadCase(name)) return *lc;
  std::string known;
  for (const auto& lc : m.project().loadCases) known += (known.empty() ? "" : ", ") + ("'" + lc.name + "'");
  throw std::invalid_argument("unknown load case '" + name + "' (the project has: " + (known.empty() ? "none" : known) +
                              ")");
}

RunOptions checked(RunOptions o, const LoadCaseRow& lc) {
  if (!(o.dt > 0.0) || !std::isfinite(o.dt)) throw std::invalid_argument("the step dt must be positive");
  if (o.linearizeEvery < 1) throw std::invalid_argument("--lin-every must be at least 1");
  if (!(o.start >= 0.0) || !std::isfinite(o.start)) throw std::invalid_argument("the start time must not be negative");
  if (o.duration < 0.0) o.duration = lc.duration - o.start;
  if (!(o.duration > 0.0)) throw std::invalid_argument("the duration must be positive");
  if (o.sampleRate < 0.0) o.sampleRate = 1.0 / o.dt;
  const double stride = 1.0 / (o.sampleRate * o.dt);
  if (!(o.sampleRate > 0.0) || stride < 1.0 - 1e-9 || std::abs(stride - std::round(stride)) > 1e-6 * stride)
    throw std::invalid_argument("the sample rate (" + std::to_string(o.sampleRate) +
                                " Hz) must divide the step rate 1/dt (" + std::to_string(1.0 / o.dt) + " Hz)");
  return o;
}

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

}  // namespace

void evaluateOutputsState(const SuspensionModel& model, const State& state, const VecX& u, Workspace& ws) {
  ws.u = u;
  calcBodyKinematics(model, state, ws);
  calcMarkerKinematics(model, ws);
  calcBushings(model, ws, false);
  calcP2Ps(model, ws, false);
}

Simulation::Simulation(std::shared_ptr<const SuspensionModel> model, const std::string& loadCase,
                       const RunOptions& options)
    : model_(std::move(model)),
      loadCase_(&findLoadCase(*model_, loadCase)),
      options_(checked(options, *loadCase_)),
      inputs_(*model_, *loadCase_),
      ws_(*model_),
      outWs_(*model_),
      integrator_(makeIntegrator(*model_,
                                 IntegratorOptions{options_.integrator, options_.dt, options_.linearizeEvery,
                                                   options_.kinematicsDerivative, options_.solver,
                                                   options_.relativeTolerance},
                                 *loadCase_)) {
  nSteps_ = static_cast<long long>(std::llround(options_.duration / options_.dt));
  if (nSteps_ < 1) throw std::invalid_argument("the duration is shorter than one step");
  sampleStride_ = std::llround(1.0 / (options_.sampleRate * options_.dt));
  recorder_.reset(resolveChannels(*model_, options_.channels), static_cast<std::size_t>(nSteps_ / sampleStride_ + 2));
  model_->initialState(state_.r, state_.v);
}

void Simulation::initialize() {
  state_.t = options_.start;
  step_ = 0;
  model_->initialState(state_.r, state_.v);
  VecX u0(model_->nInputs());
  inputs_.evaluate(options_.start, u0);
  if (loadCase_->initialState == InitialState::Equilibrium) {
    try {
      equilibrium_ = solveEquilibrium(*model_, u0, state_, ws_);
    } catch (const SimulationError& e) {
      throw SimulationError("load case '" + loadCase_->name + "': " + e.what());
    }
  }
  r0_ = state_.r;
  // Marker displacements are measured from the design position (the poses as modelled).
  {
    State design;
    model_->initialState(design.r, design.v);
    evaluateOutputsState(*model_, design, u0, outWs_);
    markerStart_.resize(model_->markers.size());
    for (std::size_t k = 0; k < markerStart_.size(); ++k) markerStart_[k] = outWs_.markers[k].p;
  }
  evaluateOutputsState(*model_, state_, u0, outWs_);
  recorder_.reset(recorder_.channels(), static_cast<std::size_t>(nSteps_ / sampleStride_ + 2));
  recorder_.record(options_.start, outWs_, markerStart_);
}

void Simulation::record() {
  inputs_.evaluate(state_.t, outWs_.u);
  evaluateOutputsState(*model_, state_, outWs_.u, outWs_);
  recorder_.record(state_.t, outWs_, markerStart_);
}

void Simulation::flushPending() {
  if (!pending_) return;
  pending_ = false;
  record();
}

bool Simulation::step() {
  if (step_ >= nSteps_) return false;
  try {
    integrator_->step(state_, inputs_, ws_);
  } catch (const SimulationError& e) {
    flushPending();  // keep the results up to the stop
    throw SimulationError("run stopped at t = " + fmt("%.4f", state_.t) + " s (step " + std::to_string(step_ + 1) +
                          "): " + e.what());
  }
  if (pending_) {  // only set when this step was going to linearize at its start state
    recorder_.record(pendingTime_, ws_, markerStart_);
    pending_ = false;
  }
  ++step_;
  state_.t = options_.start + static_cast<double>(step_) * options_.dt;  // no drift from summing dt
  const bool due = step_ % sampleStride_ == 0;
  try {
    checkDivergence();
  } catch (const SimulationError&) {
    if (due) record();
    throw;
  }
  if (due) {
    // Taken from the next step's linearization if it linearizes at its start; else now.
    const bool nextLinearizes = step_ < nSteps_ && options_.integrator == "lsrt2" &&
                                step_ % options_.linearizeEvery == 0;
    if (nextLinearizes) {
      pending_ = true;
      pendingTime_ = state_.t;
    } else {
      record();
    }
  }
  return step_ < nSteps_;
}

void Simulation::checkDivergence() const {
  for (int l = 0; l < model_->nFreeBodies(); ++l) {
    const ModelBody& b = model_->bodies[model_->freeBodies[l]];
    const auto r = state_.r.segment<6>(6 * l);
    const auto v = state_.v.segment<6>(6 * l);
    std::string why;
    if (!r.allFinite() || !v.allFinite()) why = "its state is not finite (NaN or Inf)";
    else if ((r.head<3>() - r0_.segment<3>(6 * l)).norm() > limits.maxDisplacement)
      why = "it moved " + fmt("%.3g", (r.head<3>() - r0_.segment<3>(6 * l)).norm()) + " m from its start (limit " +
            fmt("%.3g", limits.maxDisplacement) + " m)";
    else if (v.head<3>().norm() > limits.maxSpeed)
      why = "its speed is " + fmt("%.3g", v.head<3>().norm()) + " m/s (limit " + fmt("%.3g", limits.maxSpeed) + ")";
    else if (v.tail<3>().norm() > limits.maxAngularSpeed)
      why = "its angular speed is " + fmt("%.3g", v.tail<3>().norm()) + " rad/s (limit " +
            fmt("%.3g", limits.maxAngularSpeed) + ")";
    else if (std::abs(r[4]) > limits.maxPitch)
      why = "its pitch angle alpha_y' reached " + fmt("%.1f", r[4] * 180.0 / M_PI) +
            " deg, near the Cardan singularity at 90 deg";
    if (!why.empty())
      throw SimulationError("run diverged at t = " + fmt("%.4f", state_.t) + " s (step " + std::to_string(step_) +
                            "): body " + std::to_string(b.id) + " ('" + b.name + "'): " + why);
  }
}

void Simulation::run(const std::function<void(double)>& progress) {
  initialize();
  const long long every = std::max<long long>(1, nSteps_ / 100);
  while (step()) {
    if (progress && step_ % every == 0) progress(static_cast<double>(step_) / static_cast<double>(nSteps_));
  }
  if (progress) progress(1.0);
}

}  // namespace ek
