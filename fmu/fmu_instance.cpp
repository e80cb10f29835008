// SPDX-License-Identifier: GPL-3.0-or-later
#include "fmu/fmu_instance.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/core/text_file.h"
#include "engine/model/project_io.h"
#include "engine/model/table_path.h"
#include "engine/model/validate.h"

namespace ek::fmu {

struct Instance::Saved {
  Simulation::Snapshot snapshot;
  std::vector<double> inputs;
};

namespace {

constexpr std::uint64_t kStateMagic = 0x454b464d55535431ull;  // "EKFMUST1"

bool near(double a, double b, double dt) { return std::abs(a - b) <= 1e-9 * std::max(dt, std::abs(a) * 1e-6); }

}  // namespace

Instance::Instance(const std::string& resourceDir, const std::string& token, int fmiVersion, Logger log)
    : resources_(resourceDir), log_(std::move(log)) {
  if (!resources_.empty() && resources_.back() != '/') resources_ += '/';
  const std::string configPath = resources_ + kConfigFile;
  config_ = readConfig(readTextFile(configPath, 1u << 20, "FMU configuration"), configPath);
  if (config_.fmiVersion != fmiVersion)
    throw std::runtime_error("this FMU was exported for FMI " + std::to_string(config_.fmiVersion) + ", instantiated as FMI " +
                             std::to_string(fmiVersion));
  if (token != config_.token)
    throw std::runtime_error("the instantiation token '" + printableExcerpt(token) + "' is not this FMU's ('" +
                             config_.token + "'): the model description and the binary's resources differ");
  project_ = readProject(resources_ + kProjectFile);
  check(project_).throwIfErrors();
  if (config_.loadCase.empty()) {
    LoadCaseRow own;
    own.name = kOwnLoadCase;
    own.duration = 1.0;
    own.initialState = InitialState::Equilibrium;
    project_.loadCases.push_back(own);
  }
  baseModel_ = SuspensionModel::build(project_);
  variables_ = describeVariables(project_, *baseModel_, config_);
  for (int p = 0; p < variables_.nParameters; ++p) parameters_.push_back(variables_.all[variables_.firstParameter + p].start);
  inputs_.assign(static_cast<std::size_t>(variables_.nInputs), std::numeric_limits<double>::quiet_NaN());
  outputs_.assign(static_cast<std::size_t>(variables_.nOutputs), 0.0);
  startTime_ = config_.startTime;
}

Instance::~Instance() = default;

Status Instance::fail(const std::string& message) {
  if (log_) log_(Status::Error, "logStatusError", message);
  return Status::Error;
}

Status Instance::unsupported(const char* function) {
  return fail(std::string(function) + " is not supported: the Elastokin FMU is a co-simulation FMU with Float64 "
                                      "variables only (docs/fmi.md)");
}

double Instance::time() const { return sim_ ? sim_->state().t : startTime_; }

Status Instance::enterInitialization(double startTime, bool stopTimeDefined, double stopTime) {
  if (mode_ != Mode::Instantiated) return fail("initialization mode can be entered once, after instantiation");
  if (!std::isfinite(startTime) || startTime < 0.0) return fail("the start time must be finite and not negative");
  if (stopTimeDefined && !(stopTime > startTime)) return fail("the stop time must be after the start time");
  startTime_ = startTime;
  stopTime_ = stopTimeDefined ? stopTime : -1.0;
  mode_ = Mode::Initialization;
  return Status::OK;
}

void Instance::build() {
  Project p = project_;
  if (parametersChanged_) {
    std::vector<std::pair<std::string, double>> cells;
    for (int k = 0; k < variables_.nParameters; ++k) cells.emplace_back(config_.parameters[k], parameters_[k]);
    p = withTableValues(project_, cells);
    check(p).throwIfErrors();
  }
  const auto model = parametersChanged_ ? SuspensionModel::build(p) : baseModel_;
  RunOptions o;
  o.dt = config_.step;
  o.linearizeEvery = config_.linearizeEvery;
  o.integrator = config_.integrator;
  o.start = startTime_;
  o.record = false;
  // Open-ended unless a stop time was given: the longest run the engine takes at once.
  o.duration = stopTime_ > startTime_ ? stopTime_ - startTime_ : static_cast<double>(kMaxSteps - 1) * o.dt;
  const std::string lc = config_.loadCase.empty() ? std::string(kOwnLoadCase) : config_.loadCase;
  sim_ = std::make_unique<Simulation>(model, lc, o);
  for (int k = 0; k < variables_.nInputs; ++k) {
    // Without a load case an input that is not set stays at its start value.
    if (!std::isnan(inputs_[k])) sim_->holdInput(k, inputs_[k]);
    else if (config_.loadCase.empty()) sim_->holdInput(k, variables_.all[variables_.firstInput + k].start);
  }
  sim_->initialize();
  if (debugLogging && log_) {
    const LoadCaseRow* row = model->loadCase(lc);
    log_(Status::OK, "logEvents",
         "initialized at t = " + shortestText(sim_->state().t) + " s: " + std::to_string(model->nDof()) + " DOF, " +
             (row && row->initialState == InitialState::AsModelled ? std::string("the bodies as modelled")
                                                                   : std::string("the static equilibrium")) +
             (config_.loadCase.empty() ? std::string() : ", load case '" + config_.loadCase + "'"));
  }
  u_.setZero(model->nInputs());
  outputsValid_ = false;
  stale_ = false;
}

Status Instance::exitInitialization() {
  if (mode_ != Mode::Initialization) return fail("fmi ExitInitializationMode before EnterInitializationMode");
  try {
    if (!sim_ || stale_) build();
  } catch (const std::exception& e) {
    mode_ = Mode::Failed;
    return fail(std::string("initialization failed: ") + e.what());
  }
  mode_ = Mode::Step;
  return Status::OK;
}

Status Instance::doStep(double t, double h, bool* terminate) {
  if (terminate) *terminate = false;
  if (mode_ != Mode::Step) return fail("DoStep needs an initialized FMU (call ExitInitializationMode first)");
  const double dt = config_.step;
  if (!near(t, sim_->state().t, dt))
    return fail("DoStep at t = " + shortestText(t) + " s, but the FMU is at t = " + shortestText(sim_->state().t) +
                " s (the communication points must follow each other)");
  if (!std::isfinite(h) || !(h > 0.0))
    return fail("the communication step " + shortestText(h) + " s must be a positive finite number");
  // Whole internal steps on the grid, a shorter step of the same method where a communication
  // point lies between two (Simulation::advanceTo): the grid's results stay those of whole steps.
  const double tEnd = t + h;
  if (tEnd > sim_->endTime() + Simulation::kGridTolerance * dt)
    return fail("DoStep to t = " + shortestText(tEnd) + " s passes " +
                (stopTime_ > 0.0 ? "the stop time " + shortestText(stopTime_) + " s"
                                 : "the longest run the FMU takes (to t = " + shortestText(sim_->endTime()) + " s)"));
  try {
    sim_->advanceTo(tEnd);
  } catch (const std::exception& e) {
    mode_ = Mode::Failed;
    return fail(e.what());
  }
  outputsValid_ = false;
  return Status::OK;
}

std::string Instance::whyNotSettable(const FmuVariable& v) const {
  switch (v.causality) {
    case Causality::Independent: return "(it is the independent variable, time: DoStep advances it)";
    case Causality::Output: return "(it is an output)";
    case Causality::Parameter:
      return mode_ == Mode::Step ? "after initialization (a parameter fixed at it)"
                                 : std::string("now: the FMU is ") + (mode_ == Mode::Failed ? "failed" : "terminated");
    case Causality::Input: break;
  }
  return std::string("now: the FMU is ") +
         (mode_ == Mode::Failed ? "failed (after an error it takes no input; reset or free it)" : "terminated");
}

bool Instance::settable(const FmuVariable& v) const {
  if (v.causality == Causality::Input) return mode_ == Mode::Instantiated || mode_ == Mode::Initialization || mode_ == Mode::Step;
  if (v.causality == Causality::Parameter) return mode_ == Mode::Instantiated || mode_ == Mode::Initialization;
  return false;
}

Status Instance::setReal(const std::uint32_t vr[], std::size_t n, const double values[]) {
  for (std::size_t k = 0; k < n; ++k) {
    if (vr[k] >= variables_.all.size()) return fail("no variable with value reference " + std::to_string(vr[k]));
    const FmuVariable& v = variables_.all[vr[k]];
    if (!settable(v)) return fail("'" + v.name + "' cannot be set " + whyNotSettable(v));
    if (!std::isfinite(values[k]))
      return fail("'" + v.name + "' set to " + shortestText(values[k]) + ": values must be finite numbers");
  }
  if (mode_ != Mode::Step) stale_ = true;
  for (std::size_t k = 0; k < n; ++k) {
    const FmuVariable& v = variables_.all[vr[k]];
    if (v.causality == Causality::Input) {
      inputs_[v.index] = values[k];
      if (sim_) sim_->holdInput(v.index, values[k]);
      outputsValid_ = false;
    } else {
      parameters_[v.index] = values[k];
      parametersChanged_ = true;
    }
  }
  return Status::OK;
}

Status Instance::getReal(const std::uint32_t vr[], std::size_t n, double values[]) {
  try {
    for (std::size_t k = 0; k < n; ++k) {
      if (vr[k] >= variables_.all.size()) return fail("no variable with value reference " + std::to_string(vr[k]));
      const FmuVariable& v = variables_.all[vr[k]];
      switch (v.causality) {
        case Causality::Independent: values[k] = time(); break;
        case Causality::Parameter: values[k] = parameters_[v.index]; break;
        case Causality::Input:
          if (sim_) {
            sim_->inputValues(u_);
            values[k] = u_[v.index];
          } else {
            values[k] = std::isnan(inputs_[v.index]) ? v.start : inputs_[v.index];
          }
          break;
        case Causality::Output:
          if (mode_ == Mode::Instantiated) return fail("outputs are known from initialization mode on");
          if (mode_ == Mode::Failed) return fail("the FMU failed before; its outputs are not known");
          if (!sim_ || (mode_ == Mode::Initialization && stale_)) build();
          if (!outputsValid_) {
            sim_->outputValues(variables_.channels, outputs_.data());
            outputsValid_ = true;
          }
          values[k] = outputs_[v.index];
          break;
      }
    }
  } catch (const std::exception& e) {
    mode_ = Mode::Failed;
    return fail(e.what());
  }
  return Status::OK;
}

Status Instance::terminate() {
  if (mode_ != Mode::Step && mode_ != Mode::Failed && mode_ != Mode::Initialization) return fail("Terminate before initialization");
  mode_ = Mode::Terminated;
  return Status::OK;
}

Status Instance::reset() {
  sim_.reset();
  mode_ = Mode::Instantiated;
  parametersChanged_ = false;
  stale_ = true;
  for (int p = 0; p < variables_.nParameters; ++p) parameters_[p] = variables_.all[variables_.firstParameter + p].start;
  std::fill(inputs_.begin(), inputs_.end(), std::numeric_limits<double>::quiet_NaN());
  startTime_ = config_.startTime;
  stopTime_ = -1.0;
  outputsValid_ = false;
  return Status::OK;
}

Status Instance::save(Saved** out) {
  if (!sim_) return fail("the FMU state can be saved after initialization");
  *out = new Saved{sim_->snapshot(), inputs_};
  return Status::OK;
}

Status Instance::restore(const Saved& s) {
  if (!sim_) return fail("the FMU state can be restored after initialization");
  const std::string problem = sim_->snapshotProblem(s.snapshot);
  if (!problem.empty()) return fail("the FMU state does not fit this instance: " + problem);
  if (s.inputs.size() != inputs_.size()) return fail("the FMU state is of another model (its inputs)");
  sim_->restore(s.snapshot);
  inputs_ = s.inputs;
  outputsValid_ = false;
  if (mode_ == Mode::Failed || mode_ == Mode::Terminated) mode_ = Mode::Step;
  return Status::OK;
}

void Instance::free(Saved* s) { delete s; }

Status Instance::saveInto(void** slot) {
  release(slot);
  Saved* s = nullptr;
  const Status st = save(&s);
  *slot = s;
  return st;
}

void Instance::release(void** slot) {
  free(static_cast<Saved*>(*slot));
  *slot = nullptr;
}

namespace {

/// The saved state as numbers: magic, sizes, then t, step, r, v, z, held flags and values, inputs,
/// and a path follower's reaction: its last step, the angle it acts on and its pending commands.
std::vector<double> flatten(const Simulation::Snapshot& s, const std::vector<double>& inputs) {
  std::vector<double> f;
  f.push_back(static_cast<double>(s.state.r.size()));
  f.push_back(static_cast<double>(s.state.z.size()));
  f.push_back(static_cast<double>(inputs.size()));
  f.push_back(s.state.t);
  f.push_back(static_cast<double>(s.step));
  for (const VecX* v : {&s.state.r, &s.state.v, &s.state.z})
    for (Eigen::Index k = 0; k < v->size(); ++k) f.push_back((*v)[k]);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    f.push_back(k < s.held.size() ? s.held[k] : 0.0);
    f.push_back(k < static_cast<std::size_t>(s.heldValues.size()) ? s.heldValues[static_cast<Eigen::Index>(k)] : 0.0);
    f.push_back(inputs[k]);
  }
  f.push_back(static_cast<double>(s.steeringStep));
  f.push_back(s.steeringActed);
  f.insert(f.end(), s.steering.begin(), s.steering.end());
  return f;
}

}  // namespace

std::size_t Instance::serializedSize(const Saved& s) const {
  return sizeof(std::uint64_t) + flatten(s.snapshot, s.inputs).size() * sizeof(double);
}

Status Instance::serialize(const Saved& s, std::uint8_t* bytes, std::size_t size) const {
  const std::vector<double> f = flatten(s.snapshot, s.inputs);
  if (size < sizeof(std::uint64_t) + f.size() * sizeof(double)) return const_cast<Instance*>(this)->fail("the buffer for the serialized FMU state is too small");
  std::memcpy(bytes, &kStateMagic, sizeof kStateMagic);
  std::memcpy(bytes + sizeof kStateMagic, f.data(), f.size() * sizeof(double));
  return Status::OK;
}

Status Instance::deserialize(const std::uint8_t* bytes, std::size_t size, Saved** out) {
  std::uint64_t magic = 0;
  if (size < sizeof magic + 5 * sizeof(double)) return fail("a serialized FMU state of " + std::to_string(size) + " bytes is too short");
  std::memcpy(&magic, bytes, sizeof magic);
  if (magic != kStateMagic) return fail("the bytes are not a serialized Elastokin FMU state");
  const std::size_t count = (size - sizeof magic) / sizeof(double);
  std::vector<double> f(count);
  std::memcpy(f.data(), bytes + sizeof magic, count * sizeof(double));
  for (int k : {0, 1, 2, 4})  // sizes and the step: whole numbers in range before any cast
    if (!(f[k] >= 0 && f[k] <= 1e15 && f[k] == std::floor(f[k])))
      return fail("the serialized FMU state is damaged: its header holds " + shortestText(f[k]) + " where a count belongs");
  const auto nr = static_cast<std::size_t>(f[0]), nz = static_cast<std::size_t>(f[1]), ni = static_cast<std::size_t>(f[2]);
  const std::size_t nh = sim_ ? sim_->snapshot().steering.size() : 0;  // the driver's pending commands
  if (!sim_ || nr != static_cast<std::size_t>(sim_->state().r.size()) || ni != inputs_.size() ||
      count != 5 + 2 * nr + nz + 3 * ni + 2 + nh)
    return fail("the serialized FMU state is of another model or cut off");
  auto* s = new Saved;
  s->snapshot.state.t = f[3];
  s->snapshot.step = static_cast<long long>(f[4]);
  std::size_t at = 5;
  for (VecX* v : {&s->snapshot.state.r, &s->snapshot.state.v}) {
    v->resize(static_cast<Eigen::Index>(nr));
    for (std::size_t k = 0; k < nr; ++k) (*v)[static_cast<Eigen::Index>(k)] = f[at++];
  }
  s->snapshot.state.z.resize(static_cast<Eigen::Index>(nz));
  for (std::size_t k = 0; k < nz; ++k) s->snapshot.state.z[static_cast<Eigen::Index>(k)] = f[at++];
  s->snapshot.heldValues = VecX::Zero(static_cast<Eigen::Index>(ni));
  for (std::size_t k = 0; k < ni; ++k) {
    s->snapshot.held.push_back(f[at++] != 0.0 ? 1 : 0);
    s->snapshot.heldValues[static_cast<Eigen::Index>(k)] = f[at++];
    s->inputs.push_back(f[at++]);
  }
  if (!(f[at] >= -1 && f[at] <= f[4] && f[at] == std::floor(f[at]))) {
    delete s;
    return fail("the serialized FMU state is damaged: its driver's last step is " + shortestText(f[at]));
  }
  s->snapshot.steeringStep = static_cast<long long>(f[at++]);
  s->snapshot.steeringActed = f[at++];
  s->snapshot.steering.assign(f.begin() + static_cast<std::ptrdiff_t>(at), f.end());
  *out = s;
  return Status::OK;
}

}  // namespace ek::fmu
