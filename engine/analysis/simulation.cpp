// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/simulation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/core/error.h"
#include "engine/core/rotation.h"
#include "engine/core/text.h"
#include "engine/core/time_grid.h"
#include "engine/analysis/integrator_factory.h"
#include "engine/dynamics/force_elements.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/linearize.h"

namespace ek {
namespace {

const LoadCaseRow& findLoadCase(const SuspensionModel& m, const std::string& name) {
  if (const LoadCaseRow* lc = m.loadCase(name)) return *lc;
  std::string known;
  for (const auto& lc : m.project().loadCases) known += (known.empty() ? "" : ", ") + ("'" + printableExcerpt(lc.name) + "'");
  throw std::invalid_argument("unknown load case '" + printableExcerpt(name) + "' (the project has: " + (known.empty() ? "none" : known) +
                              ")");
}

RunOptions checked(RunOptions o, const LoadCaseRow& lc) {
  if (!(o.dt > 0.0) || !std::isfinite(o.dt)) throw std::invalid_argument("the step dt must be a positive number");
  if (o.linearizeEvery < 1) throw std::invalid_argument("--lin-every must be at least 1");
  if (o.holdInputs) o.samplesFromNextStep = false;  // a sample has the inputs of the step before it
  if (!(o.start >= 0.0) || !std::isfinite(o.start))
    throw std::invalid_argument("the start time must be a finite number, not negative");
  if (o.duration < 0.0) o.duration = lc.duration - o.start;
  if (!(o.duration > 0.0) || !std::isfinite(o.duration))
    throw std::invalid_argument("the duration must be a positive finite number (load case '" + printableExcerpt(lc.name) + "' lasts " +
                                shortestText(lc.duration) + " s, the run starts at " + shortestText(o.start) + " s)");
  const double steps = std::round(o.duration / o.dt);
  if (!(steps <= static_cast<double>(kMaxSteps)))
    throw std::invalid_argument("the run would take " + significant(steps) + " steps (" + shortestText(o.duration) +
                                " s at dt = " + shortestText(o.dt) + " s); at most " + std::to_string(kMaxSteps) +
                                " steps are run at once: shorten the duration or lengthen the step");
  if (steps < 1.0)
    throw std::invalid_argument("the duration (" + shortestText(o.duration) + " s) is shorter than one step (dt = " +
                                shortestText(o.dt) + " s)");
  // Times are sums t + dt: far from zero a step would be lost in round-off (t + dt == t).
  const double end = o.start + o.duration;
  if (end * std::numeric_limits<double>::epsilon() > 1e-6 * o.dt)
    throw std::invalid_argument("the run ends at t = " + shortestText(end) + " s, where steps of " + shortestText(o.dt) +
                                " s cannot be told apart from round-off; start and end within " +
                                significant(1e-6 * o.dt / std::numeric_limits<double>::epsilon(), 3) + " s");
  if (o.sampleRate < 0.0) o.sampleRate = 1.0 / o.dt;
  const double stride = 1.0 / (o.sampleRate * o.dt);
  if (!(o.sampleRate > 0.0) || stride < 1.0 - 1e-9 || std::abs(stride - std::round(stride)) > 1e-6 * stride)
    throw std::invalid_argument("the sample rate (" + shortestText(o.sampleRate) +
                                " Hz) must divide the step rate 1/dt (" + significant(1.0 / o.dt, 10) + " Hz)");
  return o;
}

}  // namespace

RunOptions projectRunOptions(const Project& project, RunOptions o, std::string* note) {
  if (!(o.dt > 0.0)) o.dt = project.simulation.step;
  if (o.linearizeEvery < 1) o.linearizeEvery = project.simulation.linearizeEvery;
  if (!(o.sampleRate > 0.0)) {
    o.sampleRate = project.simulation.sampleRate;
    const double stride = 1.0 / (o.sampleRate * o.dt);
    if (!(stride >= 1.0 - 1e-9) || std::abs(stride - std::round(stride)) > 1e-6 * stride) {
      if (note)
        *note = cformat("sampling every step (%g Hz); the project's %g Hz does not divide it", 1.0 / o.dt, o.sampleRate);
      o.sampleRate = 1.0 / o.dt;
    }
  }
  return o;
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
                                                   options_.relativeTolerance, options_.threads, options_.cvodeSolver,
                                                   options_.rhoInfinity, options_.threadsAlways, options_.threadsRecheck},
                                 *loadCase_)) {
  nSteps_ = static_cast<long long>(std::llround(options_.duration / options_.dt));
  sampleStride_ = std::llround(1.0 / (options_.sampleRate * options_.dt));
  if (const auto& f = loadCase_->speedFollower) {
    followerSlot_ = model_->bodies[model_->bodyById(f->body).value].state;
    for (int id : f->driveInputs) followerInputs_.push_back(model_->inputById(id));
  }
  if (const auto& f = loadCase_->pathFollower) {
    pathSlot_ = model_->bodies[model_->bodyById(f->body).value].state;
    pathInput_ = model_->inputById(f->steeringInput);
    steerHistory_.assign(static_cast<std::size_t>(std::llround(f->reactionTime / options_.dt)), 0.0);
  }
  if (!options_.record) {
    model_->initialState(state_.r, state_.v);
    return;
  }
  std::vector<Channel> channels = resolveChannels(*model_, options_.channels);
  if (!integrator_->localError())
    for (const Channel& c : channels)
      if (c.quantity == OutputQuantity::ErrorEstimate)
        throw std::invalid_argument("output '" + printableExcerpt(c.name) + "' is the local error estimate, which the method '" +
                                    options_.integrator + "' does not have (lsrt2 and ros34pw2 have one)");
  // The recorder holds every sample in memory: refuse a run that would not fit, before it starts.
  const long long samples = nSteps_ / sampleStride_ + 2;
  const double values = static_cast<double>(samples) * static_cast<double>(channels.size() + 1);
  if (values > static_cast<double>(kMaxRecordedValues))
    throw std::invalid_argument("the run would record " + std::to_string(samples) + " samples of " +
                                std::to_string(channels.size()) + " channels and the time (" + significant(values) +
                                " values, " + significant(8.0 * values / 1e9) + " GB); at most " +
                                std::to_string(kMaxRecordedValues) + " values are kept: lower the sample rate, "
                                "choose fewer channels or shorten the duration");
  recorder_.reset(std::move(channels), static_cast<std::size_t>(samples));
  model_->initialState(state_.r, state_.v);
}

void Simulation::initialize() {
  state_.t = options_.start;
  state_.z = model_->relaxedElementStates();  // Maxwell branches relaxed (also at an equilibrium)
  step_ = 0;
  offGrid_ = false;
  model_->initialState(state_.r, state_.v);
  if (options_.holdInputs) inputs_.holdLoadCaseAt(options_.start);
  VecX u0(model_->nInputs());
  inputs_.evaluate(options_.start, u0);
  if (loadCase_->initialState == InitialState::Equilibrium) {
    try {
      equilibrium_ = solveEquilibrium(*model_, u0, state_, ws_);
    } catch (const SimulationError& e) {
      throw SimulationError("load case '" + printableExcerpt(loadCase_->name) + "': " + e.what());
    }
  }
  r0_ = state_.r;
  error_ = ErrorSummary{};
  positionSq_ = angleSq_ = 0.0;
  pending_ = false;
  // Marker displacements are measured from the design position (the poses as modelled).
  markerStart_ = markerPositionsAsModelled(*model_);
  if (!options_.record) return;
  inputs_.evaluateRate(options_.start, outWs_.uDot);
  evaluateOutputsState(*model_, state_, u0, outWs_);
  recorder_.reset(recorder_.channels(), static_cast<std::size_t>(nSteps_ / sampleStride_ + 2));
  recorder_.record(options_.start, outWs_, markerStart_);
}

void Simulation::outputValues(const std::vector<Channel>& channels, double* out) {
  inputs_.evaluate(state_.t, outWs_.u);
  inputs_.evaluateRate(state_.t, outWs_.uDot);
  evaluateOutputsState(*model_, state_, outWs_.u, outWs_);
  channelValues(channels, outWs_, markerStart_, out, lastError());
}

Simulation::Snapshot Simulation::snapshot() const {
  Snapshot s{state_, step_, {}, VecX::Zero(model_->nInputs()), steerHistory_, steerStep_, steerActed_};
  VecX u(model_->nInputs());
  inputs_.evaluate(state_.t, u);
  for (int k = 0; k < model_->nInputs(); ++k) {
    s.held.push_back(inputs_.held(k) ? 1 : 0);
    if (inputs_.held(k)) s.heldValues[k] = u[k];
  }
  return s;
}

std::string Simulation::snapshotProblem(const Snapshot& s) const {
  std::string problems;
  auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  auto length = [&](const char* what, Eigen::Index have, Eigen::Index want) {
    if (have != want)
      add(std::string(what) + " has " + std::to_string(have) + " values, the model " + std::to_string(want) +
          " (a snapshot of another model)");
  };
  length("the position state", s.state.r.size(), state_.r.size());
  length("the velocity state", s.state.v.size(), state_.r.size());
  if (s.state.z.size() != 0) length("the bushing branch state", s.state.z.size(), model_->nElementStates());
  length("the held-input flags", static_cast<Eigen::Index>(s.held.size()), model_->nInputs());
  length("the held-input values", s.heldValues.size(), model_->nInputs());
  if (s.steering.size() != steerHistory_.size())
    add("it holds " + std::to_string(s.steering.size()) + " delayed steering commands, the run's driver " +
        std::to_string(steerHistory_.size()) + " (a snapshot of another load case)");
  if (s.steeringStep < -1 || s.steeringStep > s.step)
    add("its driver's last step " + std::to_string(s.steeringStep) + " is not one of its steps");
  if (!std::isfinite(s.state.t)) add("its time is " + shortestText(s.state.t));
  if (s.step < 0 || s.step > nSteps_) {
    add("its step " + std::to_string(s.step) + " is outside the run's 0.." + std::to_string(nSteps_));
  } else if (std::isfinite(s.state.t)) {
    const double grid = gridTime(options_.start, options_.dt, static_cast<double>(s.step));
    const double near = kGridTolerance * options_.dt;
    if (s.state.t < grid - near || s.state.t >= grid + options_.dt - near)
      add("its time " + shortestText(s.state.t) + " s is not that of its step " + std::to_string(s.step) + " (" +
          shortestText(grid) + " s up to the next step)");
  }
  if (!s.state.r.allFinite() || !s.state.v.allFinite() || !s.state.z.allFinite() || !s.heldValues.allFinite() ||
      !std::isfinite(s.steeringActed) ||
      !std::all_of(s.steering.begin(), s.steering.end(), [](double x) { return std::isfinite(x); }))
    add("it holds values that are not finite");
  return problems;
}

void Simulation::restore(const Snapshot& s) {
  const std::string problem = snapshotProblem(s);
  if (!problem.empty()) throw std::invalid_argument("the snapshot does not fit this run: " + problem);
  state_ = s.state;
  step_ = s.step;
  std::copy(s.steering.begin(), s.steering.end(), steerHistory_.begin());
  steerStep_ = s.steeringStep;
  steerActed_ = s.steeringActed;
  offGrid_ = s.state.t > gridTime(options_.start, options_.dt, static_cast<double>(s.step)) + kGridTolerance * options_.dt;
  for (int k = 0; k < model_->nInputs(); ++k) {
    if (s.held[static_cast<std::size_t>(k)]) inputs_.hold(k, s.heldValues[k]);
    else if (inputs_.held(k)) inputs_.release(k);
  }
  pending_ = false;
  integrator_->resetLinearization();
}

void Simulation::record(const LocalErrorEstimate& stepError) {
  inputs_.evaluate(state_.t, outWs_.u);
  inputs_.evaluateRate(state_.t, outWs_.uDot);
  evaluateOutputsState(*model_, state_, outWs_.u, outWs_);
  recorder_.record(state_.t, outWs_, markerStart_, stepError);
}

ErrorSummary Simulation::errorSummary() const {
  ErrorSummary s = error_;
  if (s.steps > 0) {
    s.positionRms = std::sqrt(positionSq_ / static_cast<double>(s.steps));
    s.angleRms = std::sqrt(angleSq_ / static_cast<double>(s.steps));
  }
  return s;
}

LocalErrorEstimate Simulation::lastError() const {
  const LocalErrorEstimate* e = integrator_->localError();
  return e && step_ > 0 ? *e : LocalErrorEstimate{};
}

void Simulation::flushPending() {
  if (!pending_) return;
  pending_ = false;
  record(pendingError_);
}

bool Simulation::step() {
  if (step_ >= nSteps_) return false;
  if (offGrid_) {  // after advanceTo() between two grid times: the rest of the interval
    shortStep(gridTime(options_.start, options_.dt, static_cast<double>(step_ + 1)), true);
    return step_ < nSteps_;
  }
  if (options_.holdInputs) inputs_.holdLoadCaseAt(state_.t);
  followSpeed();
  followPath();
  try {
    integrator_->step(state_, inputs_, ws_);
  } catch (const SimulationError& e) {
    stopped(e, state_.t + options_.dt);
  }
  if (pending_) {  // only set when this step was going to linearize at its start state
    recorder_.record(pendingTime_, ws_, markerStart_, pendingError_);  // of the step that ended at pendingTime_
    pending_ = false;
  }
  ++step_;
  state_.t = gridTime(options_.start, options_.dt, static_cast<double>(step_));  // interval ends hit exactly
  afterStep(true, true);
  return step_ < nSteps_;
}

void Simulation::advanceTo(double tEnd) {
  const double dt = options_.dt, near = kGridTolerance * dt;
  const double end = endTime();
  if (!std::isfinite(tEnd) || tEnd < state_.t - near)
    throw std::invalid_argument("the run is at t = " + shortestText(state_.t) + " s and cannot advance to t = " +
                                shortestText(tEnd) + " s");
  if (tEnd > end + near)
    throw std::invalid_argument("t = " + shortestText(tEnd) + " s lies past the run's end at " + shortestText(end) + " s");
  for (;;) {
    const double next = gridTime(options_.start, dt, static_cast<double>(step_ + 1));
    if (next <= tEnd + near && step_ < nSteps_) {
      step();  // a whole step, or the rest of the interval when the run stands between grid times
      continue;
    }
    if (tEnd > state_.t + near) shortStep(tEnd, false);
    return;
  }
}

void Simulation::shortStep(double tTo, bool toGrid) {
  flushPending();  // the next linearization is not at a grid time's state with its inputs
  if (options_.holdInputs) inputs_.holdLoadCaseAt(state_.t);
  followSpeed();
  followPath();
  try {
    integrator_->shortStep(tTo - state_.t, state_, inputs_, ws_);
  } catch (const SimulationError& e) {
    stopped(e, tTo);
  }
  if (toGrid) ++step_;
  state_.t = toGrid ? gridTime(options_.start, options_.dt, static_cast<double>(step_)) : tTo;
  offGrid_ = !toGrid;
  afterStep(toGrid, false);
}

void Simulation::afterStep(bool onGrid, bool wholeStep) {
  if (const LocalErrorEstimate* e = integrator_->localError()) {
    error_.available = true;
    ++error_.steps;
    positionSq_ += e->position * e->position;
    angleSq_ += e->angle * e->angle;
    if (e->position > error_.positionMax) error_.positionMax = e->position, error_.positionMaxTime = state_.t;
    if (e->angle > error_.angleMax) error_.angleMax = e->angle, error_.angleMaxTime = state_.t;
    if (positionErrorThreshold > 0.0 && error_.positionWarnTime < 0.0 && e->position > positionErrorThreshold)
      error_.positionWarnTime = state_.t;
  }
  const bool due = onGrid && options_.record && step_ % sampleStride_ == 0;
  try {
    checkDivergence();
  } catch (const SimulationError&) {
    if (due) {
      try {
        record(lastError());  // the diverged state as far as it can be evaluated
      } catch (const SimulationError&) {
      }
    }
    throw;
  }
  if (!due) return;
  // After a whole step, taken from the next step's linearization if it linearizes at its start;
  // else now.
  if (wholeStep && options_.samplesFromNextStep && step_ < nSteps_ && options_.integrator == "lsrt2" &&
      step_ % options_.linearizeEvery == 0) {
    pending_ = true;
    pendingTime_ = state_.t;
    if (const LocalErrorEstimate* e = integrator_->localError()) pendingError_ = *e;
  } else {
    record(lastError());
  }
}

void Simulation::stopped(const SimulationError& e, double tEnd) {
  flushPending();  // keep the results up to the stop
  // An element's failure is often the consequence of an input or a body that ran away first.
  std::string cause = inputCause(tEnd);
  if (cause.empty()) cause = bodyCause();
  if (!cause.empty())
    throw SimulationError("run diverged at t = " + shortestText(state_.t) + " s (step " + std::to_string(step_ + 1) +
                          "): " + cause + " (then: " + e.what() + ")");
  // A singular pivot may be a NaN or Inf in A: name the element it came from.
  VecX u(model_->nInputs());
  inputs_.evaluate(state_.t, u);
  Workspace probe(*model_);
  cause = nonFiniteElement(*model_, state_, u, probe);
  if (!cause.empty())
    throw SimulationError("run stopped at t = " + shortestText(state_.t) + " s (step " + std::to_string(step_ + 1) +
                          "): " + cause + " (then: " + e.what() + ")");
  throw SimulationError("run stopped at t = " + shortestText(state_.t) + " s (step " + std::to_string(step_ + 1) +
                        "): " + e.what());
}

std::string Simulation::inputCause(double t) const {
  // The inputs over the last step: at its start, middle and end (the integrators' stage times).
  VecX u(model_->nInputs());
  for (double tk : {t - options_.dt, t - 0.5 * options_.dt, t}) {
    inputs_.evaluate(tk, u);
    for (int k = 0; k < model_->nInputs(); ++k) {
      const ModelInput& in = model_->inputs[k];
      if (!std::isfinite(u[k]) || !(u[k] * in.direction).allFinite())
        return "input " + std::to_string(in.id) + " ('" + printableExcerpt(in.name) + "'): its " +
               inputKindName(in.kind) + " is not finite at t = " + shortestText(tk) +
               " s (value " + shortestText(u[k]) + " times direction (" + shortestText(in.direction.x()) + ", " +
               shortestText(in.direction.y()) + ", " + shortestText(in.direction.z()) + "))";
    }
  }
  return {};
}

void Simulation::followSpeed() {
  if (followerSlot_ < 0) return;
  const SpeedFollowerRow& f = *loadCase_->speedFollower;
  const int l = followerSlot_;
  const Vec3 forwards = rotation::matrix(Vec3(state_.r.segment<3>(6 * l + 3))).col(0);
  const double speed = forwards.dot(state_.v.segment<3>(6 * l));
  const double torque =
      state_.t >= f.until ? 0.0 : f.gain * (f.speed - speed) / static_cast<double>(followerInputs_.size());
  for (int k : followerInputs_) inputs_.hold(k, torque);
}

void Simulation::followPath() {
  using Vec2 = Eigen::Vector2d;
  if (pathSlot_ < 0) return;
  const PathFollowerRow& f = *loadCase_->pathFollower;
  const int l = pathSlot_;
  const Vec3 forwards = rotation::matrix(Vec3(state_.r.segment<3>(6 * l + 3))).col(0);
  const double speed = forwards.dot(state_.v.segment<3>(6 * l));
  const Vec2 heading = Vec2(forwards.x(), forwards.y()).normalized();
  const Vec2 centre(state_.r(6 * l), state_.r(6 * l + 1));
  // The path's point nearest to the centre of mass, as arc length along the path; the first
  // and the last segment run on beyond the path's ends.
  const auto& p = f.path;
  const int n = static_cast<int>(p.size()) - 1;
  double best = std::numeric_limits<double>::infinity(), nearest = 0.0, start = 0.0;
  for (int k = 0; k < n; ++k) {
    const Vec2 a(p[k][0], p[k][1]), d = Vec2(p[k + 1][0], p[k + 1][1]) - a;
    const double length = d.norm();
    double u = (centre - a).dot(d) / (length * length);
    if (k > 0) u = std::max(u, 0.0);
    if (k < n - 1) u = std::min(u, 1.0);
    const double distance = (a + u * d - centre).squaredNorm();
    if (distance < best) best = distance, nearest = start + u * length;
    start += length;
  }
  // The preview point, the same arc length further on.
  double s = nearest + std::max(f.previewTime * speed, f.minimumPreview);
  Vec2 target(p[n][0], p[n][1]);
  for (int k = 0; k < n; ++k) {
    const Vec2 a(p[k][0], p[k][1]), d = Vec2(p[k + 1][0], p[k + 1][1]) - a;
    const double length = d.norm();
    if (s <= length || k == n - 1) {
      target = a + (s / length) * d;
      break;
    }
    s -= length;
  }
  // Pure pursuit: the arc tangent to the heading through the target has curvature 2 e / D^2,
  // e the target's offset to the left of the heading and D its distance.
  const Vec2 toTarget = target - centre;
  const double left = heading.x() * toTarget.y() - heading.y() * toTarget.x();
  const double distance2 = toTarget.squaredNorm();
  const double curvature = distance2 > 0.0 ? 2.0 * left / distance2 : 0.0;
  const double command = f.gain * curvature;
  if (steerHistory_.empty()) {
    inputs_.hold(pathInput_, command);
    return;
  }
  // A reaction time of N steps: at the first look of grid step s the driver starts acting on
  // the command of step s - N (before the run: its first command, held) and keeps this one for
  // step s + N; a step cut short between grid times acts on the same (it saw nothing new).
  if (steerStep_ < 0) std::fill(steerHistory_.begin(), steerHistory_.end(), command);
  if (step_ != steerStep_) {
    double& slot = steerHistory_[static_cast<std::size_t>(step_ % static_cast<long long>(steerHistory_.size()))];
    steerActed_ = slot;
    slot = command;
    steerStep_ = step_;
  }
  inputs_.hold(pathInput_, steerActed_);
}

Vec3 Simulation::travel() const {
  if (!model_->hasTyres()) return Vec3::Zero();
  Vec3 moment = Vec3::Zero();
  double mass = 0.0;
  for (int l = 0; l < model_->nFreeBodies(); ++l) {
    const ModelBody& b = model_->bodies[model_->freeBodies[l]];
    if (b.modal) continue;
    moment += b.mass * (state_.r.segment<3>(6 * l) - r0_.segment<3>(6 * l));
    mass += b.mass;
  }
  return mass > 0.0 ? Vec3(moment / mass) : Vec3::Zero();
}

Simulation::BodyLimit Simulation::bodyLimit(int l, const Vec3& shift) const {
  const auto r = state_.r.segment<6>(6 * l);
  const auto v = state_.v.segment<6>(6 * l);
  if (!r.allFinite() || !v.allFinite()) return BodyLimit::NotFinite;
  // Modal coordinates are no pose: their body's frame carries the limits of motion.
  if (model_->bodies[model_->freeBodies[l]].modal) return BodyLimit::Within;
  // |x| > limit compared in squares (no square roots in the every-step check).
  auto beyond = [](double squared, double limit) { return limit >= 0.0 ? squared > limit * limit : !std::isnan(limit); };
  if (beyond((r.head<3>() - r0_.segment<3>(6 * l) - shift).squaredNorm(), limits.maxDisplacement))
    return BodyLimit::Displacement;
  if (beyond(v.head<3>().squaredNorm(), limits.maxSpeed)) return BodyLimit::Speed;
  if (beyond(v.tail<3>().squaredNorm(), limits.maxAngularSpeed)) return BodyLimit::AngularSpeed;
  if (std::abs(r[4]) > limits.maxPitch) return BodyLimit::Pitch;
  return BodyLimit::Within;
}

std::string Simulation::bodyCause() const {
  const Vec3 shift = travel();
  for (int l = 0; l < model_->nFreeBodies(); ++l) {
    const BodyLimit limit = bodyLimit(l, shift);
    if (limit == BodyLimit::Within) continue;
    const ModelBody& b = model_->bodies[model_->freeBodies[l]];
    const auto r = state_.r.segment<6>(6 * l);
    const auto v = state_.v.segment<6>(6 * l);
    std::string why;
    switch (limit) {
      case BodyLimit::NotFinite: why = "its state is not finite (NaN or Inf)"; break;
      case BodyLimit::Displacement:
        why = "it moved " + significant((r.head<3>() - r0_.segment<3>(6 * l) - shift).norm()) + " m from its start" +
              (model_->hasTyres() ? " relative to the model's centre of mass" : "") + " (limit " +
              significant(limits.maxDisplacement) + " m)";
        break;
      case BodyLimit::Speed:
        why = "its speed is " + significant(v.head<3>().norm()) + " m/s (limit " + significant(limits.maxSpeed) + ")";
        break;
      case BodyLimit::AngularSpeed:
        why = "its angular speed is " + significant(v.tail<3>().norm()) + " rad/s (limit " +
              significant(limits.maxAngularSpeed) + ")";
        break;
      case BodyLimit::Pitch:
        why = "its pitch angle alpha_y' reached " + significant(r[4] * 180.0 / M_PI, 3) +
              " deg, near the Cardan singularity at 90 deg";
        break;
      case BodyLimit::Within: break;
    }
    return "body " + std::to_string(b.id) + " ('" + printableExcerpt(b.name) + "'): " + why;
  }
  return {};
}

void Simulation::checkDivergence() const {
  // Every step: the numbers only; the message when a body is outside its limits.
  bool within = true;
  const Vec3 shift = travel();
  for (int l = 0; l < model_->nFreeBodies() && within; ++l) within = bodyLimit(l, shift) == BodyLimit::Within;
  if (within) return;
  const std::string why = bodyCause();
  const std::string input = inputCause(state_.t);
  throw SimulationError("run diverged at t = " + shortestText(state_.t) + " s (step " + std::to_string(step_) +
                        "): " + (input.empty() ? why : input + " (then " + why + ")"));
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
