// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/manoeuvre.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>

#include "engine/analysis/kc.h"
#include "engine/analysis/simulation.h"
#include "engine/core/error.h"
#include "engine/core/rotation.h"
#include "engine/core/text.h"
#include "engine/dynamics/kinematics.h"
#include "engine/dynamics/magic_formula.h"
#include "engine/model/model.h"

#include <nlohmann/json.hpp>

namespace ek {

// Named, not anonymous: the unity build puts this file beside others with helpers of the same names.
namespace manoeuvre_impl {

constexpr double kDeg = 180.0 / M_PI;
constexpr double kG = 9.80665;  ///< standard gravity: the "g" of the gradients [m/s^2]

using Row = std::array<double, kManoeuvreColumns.size()>;

// ---------------------------------------------------------------------------------------------
// The manoeuvres and their parameters.

struct Spec {
  const char* name;
  std::vector<ManoeuvreParameter> parameters;
  std::vector<std::string> metrics;  ///< every metric the manoeuvre reports, in its order
};

std::vector<ManoeuvreParameter> common(double speed) {
  return {
      {"speed", "m/s", speed, "test speed: every body starts at it, the speed follower holds it"},
      {"settle", "s", 1.5, "straight running before the steering starts"},
      {"follower gain", "N m s/m", 0.0, "speed follower's gain; 0: 6/s times the vehicle's mass and rolling radius"},
      {"body", "id", -1.0, "the vehicle body; -1: the heaviest free body"},
      {"steering input", "id", -1.0, "the steering-wheel angle input; -1: the steering rack's input"},
  };
}

std::vector<Spec> specs() {
  auto with = [](double speed, std::vector<ManoeuvreParameter> own) {
    std::vector<ManoeuvreParameter> p = common(speed);
    p.insert(p.end(), own.begin(), own.end());
    return p;
  };
  const std::vector<ManoeuvreParameter> laneChange{
      {"track", "", 2.0, "ISO 3888 part: 2 the obstacle avoidance track (61 m), 1 the double lane change (125 m)"},
      {"vehicle width", "m", 0.0, "sizes the lanes and the footprint; 0: across the tyres' outer edges"},
      {"front overhang", "m", 0.0, "the footprint's reach ahead of the front axle"},
      {"rear overhang", "m", 0.0, "the footprint's reach behind the rear axle"},
      {"preview time", "s", 0.6, "the path follower looks this far ahead (times the speed)"},
      {"minimum preview", "m", 5.0, "the path follower looks at least this far ahead"},
      {"reaction time", "s", 0.0, "the path follower acts on what it saw this long before (0 to 2 s)"},
      {"steering gain", "rad m", 0.0, "steering-wheel angle per path curvature; 0: from a calibration turn"},
      {"lift off", "", 1.0, "1: the driver lifts off as the front axle passes the entry gate; 0: the speed is held"}};
  const std::vector<std::string> laneChangeMetrics{
      "entry speed", "exit speed", "cone lines crossed", "smallest clearance", "largest path deviation",
      "peak steering-wheel angle", "peak steering-wheel rate", "peak yaw rate",
      "peak lateral acceleration", "peak sideslip angle", "peak roll angle"};
  // The limit search: the lane change at rising speeds, then halved between pass and failure.
  auto limitParameters = [&] {
    std::vector<ManoeuvreParameter> p = with(50.0 / 3.6, laneChange);
    p[0].meaning = "the first test speed tried (every body starts at it, the speed follower holds it to the entry gate)";
    p.push_back({"speed step", "m/s", 5.0 / 3.6, "the speed rises by this while the runs pass"});
    p.push_back({"speed max", "m/s", 150.0 / 3.6, "the highest speed tried"});
    p.push_back({"resolution", "m/s", 0.5 / 3.6, "the interval between the highest pass and the lowest failure is halved down to this"});
    return p;
  };
  std::vector<std::string> limitMetrics{"highest passing speed", "lowest failing speed", "runs"};
  limitMetrics.insert(limitMetrics.end(), laneChangeMetrics.begin(), laneChangeMetrics.end());
  return {
      {"step-steer",
       with(80.0 / 3.6, {{"lateral acceleration", "m/s^2", 4.0, "steady-state lateral acceleration the angle is chosen for"},
                         {"angle", "deg", 0.0, "steering-wheel angle (0: chosen for the lateral acceleration)"},
                         {"ramp time", "s", 0.15, "time of the steering ramp from zero to the angle"},
                         {"hold", "s", 3.0, "time after the ramp; the steady state is the mean of its last second"}}),
       {"steering-wheel angle", "steady-state lateral acceleration", "steady-state yaw rate",
        "yaw rate gain", "lateral acceleration gain", "yaw rate response time",
        "yaw rate peak response time", "yaw rate overshoot", "lateral acceleration response time",
        "lateral acceleration peak response time", "lateral acceleration overshoot",
        "steady-state sideslip angle", "steady-state roll angle", "TB factor"}},
      {"steady-state-circle",
       with(100.0 / 3.6, {{"lateral acceleration max", "m/s^2", 6.0, "the run ends when the lateral acceleration reaches it"},
                          {"lateral acceleration rate", "m/s^3", 0.2, "the steering ramp is chosen to raise the lateral acceleration this fast (quasi-steady)"},
                          {"fit from", "m/s^2", 0.5, "lower end of the range the gradients are fitted over"},
                          {"fit to", "m/s^2", 2.5, "upper end of the range the gradients are fitted over"}}),
       {"steering-wheel angle gradient", "overall steering ratio", "understeer gradient",
        "Ackermann curvature gradient", "roll gradient", "sideslip gradient",
        "front suspension roll gradient", "rear suspension roll gradient", "front axle steer gradient",
        "rear axle steer gradient", "front lateral load transfer",
        "rear lateral load transfer", "maximum lateral acceleration",
        "understeer gradient, linear bicycle model", "front axle steer gradient, linear bicycle model",
        "rear axle steer gradient, linear bicycle model", "understeer gradient, tyres alone",
        "understeer budget: roll steer", "understeer budget: lateral force compliance steer",
        "understeer budget: aligning torque compliance steer", "understeer budget: camber",
        "understeer budget: load transfer", "front axle cornering stiffness",
        "rear axle cornering stiffness", "front axle load", "rear axle load"}},
      {"sine-with-dwell",
       with(80.0 / 3.6, {{"frequency", "Hz", 0.7, "frequency of the sine"},
                         {"dwell", "s", 0.5, "hold at the second peak"},
                         {"scalar", "", 5.0, "amplitude as a multiple of the angle that gives 0.3 g in a steady turn"},
                         {"angle", "deg", 0.0, "amplitude (0: scalar times the 0.3 g angle)"},
                         {"direction", "", 1.0, "+1: to the left first, -1: to the right first"}}),
       {"amplitude", "peak yaw rate", "yaw rate ratio at COS + 1.00 s", "yaw rate ratio at COS + 1.75 s",
        "lateral displacement at BOS + 1.07 s"}},
      {"swept-sine",
       with(80.0 / 3.6, {{"lateral acceleration", "m/s^2", 2.0, "amplitude of the steady-state lateral acceleration the angle is chosen for"},
                         {"angle", "deg", 0.0, "amplitude (0: chosen for the lateral acceleration)"},
                         {"frequency from", "Hz", 0.1, "start of the sweep"},
                         {"frequency to", "Hz", 3.0, "end of the sweep"},
                         {"sweep time", "s", 30.0, "duration of the sweep"},
                         {"reference frequency", "Hz", 1.0, "frequency of the phase and gain figures"}}),
       {"amplitude", "yaw rate gain at the start frequency", "yaw rate gain peak ratio",
        "yaw rate gain peak frequency", "yaw rate gain ratio at the reference frequency",
        "yaw rate phase at the reference frequency",
        "lateral acceleration phase at the reference frequency",
        "lateral acceleration time lag at the reference frequency"}},
      {"double-lane-change", with(60.0 / 3.6, laneChange), laneChangeMetrics},
      {"double-lane-change-limit", limitParameters(), limitMetrics},
  };
}

const Spec& spec(const std::string& name) {
  static const std::vector<Spec> all = specs();
  for (const Spec& s : all)
    if (name == s.name) return s;
  std::string known;
  for (const Spec& s : all) known += (known.empty() ? "" : ", ") + std::string(s.name);
  throw std::invalid_argument("unknown manoeuvre '" + printableExcerpt(name) + "' (known: " + known + ")");
}

/// The parameters of `name` with `given` applied; every unknown or non-finite one named in one message.
std::vector<ManoeuvreParameter> resolved(const std::string& name, const std::map<std::string, double>& given) {
  std::vector<ManoeuvreParameter> params = spec(name).parameters;
  std::string problems;
  for (const auto& entry : given) {
    const std::string& key = entry.first;
    const double value = entry.second;
    auto it = std::find_if(params.begin(), params.end(), [&](const ManoeuvreParameter& p) { return p.key == key; });
    if (it == params.end()) {
      std::string known;
      for (const ManoeuvreParameter& p : params) known += (known.empty() ? "" : ", ") + p.key;
      problems += "; unknown parameter '" + printableExcerpt(key) + "' (" + name + " takes: " + known + ")";
    } else if (!std::isfinite(value)) {
      problems += "; parameter '" + key + "' is not finite";
    } else {
      it->value = value;
    }
  }
  if (!problems.empty()) throw std::invalid_argument("manoeuvre " + name + ": " + problems.substr(2));
  return params;
}

double param(const std::vector<ManoeuvreParameter>& params, const std::string& key) {
  for (const ManoeuvreParameter& p : params)
    if (p.key == key) return p.value;
  throw std::logic_error("manoeuvre parameter " + key + " is not declared");
}

Vec3 markerPosition(const Project& p, int markerId) {
  for (const MarkerRow& m : p.markers) {
    if (m.id != markerId) continue;
    for (const BodyRow& b : p.bodies)
      if (b.id == m.body) return b.position + rotation::matrix(b.orientation) * m.position;
  }
  return Vec3::Constant(std::nan(""));
}

// ---------------------------------------------------------------------------------------------
// One run of the vehicle and its reduction to the vehicle's motion.

struct Drive {
  double speed = 0.0, gain = 0.0, duration = 0.0;
  SignalRow steer;
  /// Ends the run early when it returns true for a row (its lateral acceleration a backward difference).
  std::function<bool(const Row&)> stop;
  const std::atomic<bool>* cancel = nullptr;
  /// When set: each wheel's centre's rise against the vehicle body from its position as modelled
  /// (body axes; NaN for a wheel without tyre) at the first step at or after travelTime.
  std::vector<double>* travel = nullptr;
  double travelTime = 0.0;
  /// When set, the path follower steers (steer is then unused).
  std::optional<PathFollowerRow> path;
  double liftOff = std::numeric_limits<double>::infinity();  ///< the speed follower's `until`
};

/// The project as the manoeuvre runs it: one load case, every free body at `speed` along the
/// vehicle body's heading, no angular velocity.
Project drivenProject(const Project& base, const VehicleSetup& v, const Drive& d) {
  Project p = base;
  Vec3 heading = Vec3::UnitX();
  for (const BodyRow& b : p.bodies)
    if (b.id == v.body) heading = rotation::matrix(b.orientation).col(0);
  heading.z() = 0.0;
  heading.normalize();
  for (BodyRow& b : p.bodies) {
    if (b.fixed) continue;
    b.velocity = d.speed * heading;
    b.angularVelocity.setZero();
  }
  LoadCaseRow lc;
  lc.name = "manoeuvre";
  lc.duration = d.duration;
  lc.initialState = InitialState::AsModelled;
  if (d.path)
    lc.pathFollower = d.path;
  else
    lc.drives.push_back({v.steeringInput, d.steer});
  if (!v.driveInputs.empty() && d.gain > 0.0)
    lc.speedFollower = SpeedFollowerRow{v.body, d.speed, v.driveInputs, d.gain, d.liftOff};
  p.loadCases = {lc};
  return p;
}

std::vector<Row> drive(const Project& base, const VehicleSetup& v, const Drive& d, const std::function<void(double)>& progress) {
  auto model = SuspensionModel::build(drivenProject(base, v, d));
  RunOptions o;
  o.record = false;
  o = projectRunOptions(model->project(), o);
  Simulation sim(model, "manoeuvre", o);
  sim.initialize();
  const int slot = model->bodies[model->bodyById(v.body).value].state;
  const int steer = model->inputById(v.steeringInput);
  VecX u(model->nInputs());
  // The tyred wheels' centres by axle (ahead of the vehicle body's centre of mass: front) and side.
  struct Centre {
    int slot;
    Vec3 s;
    bool front, left;
    int wheel;
    double z0;  ///< height in the vehicle body's axes as modelled
  };
  std::vector<Centre> centres;
  std::vector<Channel> loads, toes;  // each tyre's vertical load and its wheel's toe, in the order of centres
  const ModelBody& vehicleBody = model->bodies[model->bodyById(v.body).value];
  const Vec3 p0 = vehicleBody.p0;
  for (const ModelWheel& w : model->wheels) {
    if (!w.tyre) continue;
    const ModelMarker& m = model->markers[w.marker.value];
    const ModelBody& b = model->bodies[m.body.value];
    if (b.state < 0) continue;
    const Vec3 c0 = b.p0 + b.R0 * m.s;
    centres.push_back({b.state, m.s, c0.x() > p0.x(), w.side > 0.0, static_cast<int>(&w - model->wheels.data()),
                       (vehicleBody.R0.transpose() * (c0 - p0)).z()});
    Channel fz;
    fz.quantity = OutputQuantity::Tyre;
    fz.index = static_cast<int>(&w - model->wheels.data());
    fz.wheel = &w;
    fz.component = 2;  // kTyreComponents: fz
    loads.push_back(fz);
    Channel toe = fz;
    toe.quantity = OutputQuantity::Wheel;
    toe.component = kToe;
    toes.push_back(toe);
  }
  std::vector<double> fz(loads.size()), toe(toes.size());
  std::vector<Row> rows;
  std::vector<Vec3> velocity;
  rows.reserve(static_cast<std::size_t>(sim.totalSteps()) + 1);
  velocity.reserve(rows.capacity());
  auto sample = [&] {
    const State& s = sim.state();
    const Vec3 angles = s.r.segment<3>(6 * slot + 3);
    const Vec3 vel = s.v.segment<3>(6 * slot);
    const Vec3 wW = rotation::matrix(angles) * Vec3(s.v.segment<3>(6 * slot + 3));
    const double psi = angles[0], c = std::cos(psi), sn = std::sin(psi);
    const double vx = c * vel.x() + sn * vel.y(), vy = -sn * vel.x() + c * vel.y();
    sim.inputValues(u);
    Row r{};
    r[kmTime] = s.t;
    r[kmSteer] = u[steer] * kDeg;
    r[kmSpeed] = vx;
    r[kmYawRate] = wW.z() * kDeg;
    r[kmSideslip] = std::atan2(vy, vx) * kDeg;
    r[kmRoll] = angles[2] * kDeg;
    r[kmPitch] = angles[1] * kDeg;
    r[kmX] = s.r[6 * slot];
    r[kmY] = s.r[6 * slot + 1];
    r[kmHeading] = psi * kDeg;
    // Suspension roll: the wheel centres' line across each axle, in the body frame.
    const Mat3 R = rotation::matrix(angles);
    const Vec3 p = s.r.segment<3>(6 * slot);
    if (!loads.empty()) sim.outputValues(loads, fz.data()), sim.outputValues(toes, toe.data());
    const bool markTravel = d.travel && d.travel->empty() && s.t >= d.travelTime - 1e-9;
    if (markTravel) d.travel->assign(model->wheels.size(), std::nan(""));
    double sum[2][2][4] = {};  // [front][left][y, z, load, steer]
    int count[2][2] = {};
    for (std::size_t k = 0; k < centres.size(); ++k) {
      const Centre& w = centres[k];
      const Vec3 a = s.r.segment<3>(6 * w.slot + 3);
      const Vec3 c = R.transpose() * (s.r.segment<3>(6 * w.slot) + rotation::matrix(a) * w.s - p);
      if (markTravel) (*d.travel)[w.wheel] = c.z() - w.z0;
      // the heading line's angle to the body's heading: toe (global, ISO: towards the centre)
      // turned into a steer angle to the left, less the body's yaw
      const double steer = std::remainder(-(w.left ? 1.0 : -1.0) * toe[k] - psi, 2.0 * M_PI);
      double* into = sum[w.front][w.left];
      into[0] += c.y(), into[1] += c.z(), into[2] += fz[k], into[3] += steer, ++count[w.front][w.left];
    }
    for (int f = 0; f < 2; ++f) {
      double& roll = r[f ? kmFrontRoll : kmRearRoll];
      double& transfer = r[f ? kmFrontTransfer : kmRearTransfer];
      double& steer = r[f ? kmFrontSteer : kmRearSteer];
      roll = transfer = steer = std::nan("");
      if (count[f][0] + count[f][1] > 0)
        steer = (sum[f][0][3] + sum[f][1][3]) / (count[f][0] + count[f][1]) * kDeg;
      if (!count[f][0] || !count[f][1]) continue;
      const double* left = sum[f][1];
      const double* right = sum[f][0];
      const double dy = left[0] / count[f][1] - right[0] / count[f][0];
      const double dz = right[1] / count[f][0] - left[1] / count[f][1];
      roll = std::atan2(dz, dy) * kDeg;  // right side down: the right wheel rises against the body
      transfer = 0.5 * (right[2] / count[f][0] - left[2] / count[f][1]);
    }
    if (!velocity.empty()) {  // backward difference for the stop test; central below
      const double dt = r[kmTime] - rows.back()[kmTime];
      r[kmLateral] = (vel - velocity.back()).dot(Vec3(-sn, c, 0.0)) / dt;
    }
    rows.push_back(r);
    velocity.push_back(vel);
    return d.stop && d.stop(r);
  };
  bool stopped = sample();
  for (long long k = 1; !stopped && k <= sim.totalSteps(); ++k) {
    if (d.cancel && d.cancel->load()) throw std::runtime_error("cancelled");
    sim.step();
    stopped = sample();
    if (progress && k % 500 == 0) progress(static_cast<double>(k) / static_cast<double>(sim.totalSteps()));
  }
  // Lateral acceleration: central differences of the centre of mass's velocity, along the
  // horizontal lateral axis (the intermediate axis system of ISO 8855: no gravity from roll).
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t a = i == 0 ? 0 : i - 1, b = std::min(i + 1, rows.size() - 1);
    if (a == b) continue;
    const double psi = rows[i][kmHeading] / kDeg;
    rows[i][kmLateral] = (velocity[b] - velocity[a]).dot(Vec3(-std::sin(psi), std::cos(psi), 0.0)) /
                         (rows[b][kmTime] - rows[a][kmTime]);
  }
  return rows;
}

/// Mean of column c over rows with time in [t0, t1].
double mean(const std::vector<Row>& rows, int c, double t0, double t1) {
  double sum = 0.0;
  int n = 0;
  for (const Row& r : rows)
    if (r[kmTime] >= t0 && r[kmTime] <= t1) sum += r[c], ++n;
  return n ? sum / n : std::nan("");
}

/// Value of column c at time t (linear between rows).
double at(const std::vector<Row>& rows, int c, double t) {
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i][kmTime] >= t) {
      const Row &a = rows[i - 1], &b = rows[i];
      return a[c] + (b[c] - a[c]) * (t - a[kmTime]) / (b[kmTime] - a[kmTime]);
    }
  return std::nan("");
}

/// First time after t0 at which column c crosses `level` (upwards for a positive level), linear
/// between rows; NaN if never.
double crossing(const std::vector<Row>& rows, int c, double level, double t0) {
  const double s = level >= 0.0 ? 1.0 : -1.0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const Row &a = rows[i - 1], &b = rows[i];
    if (b[kmTime] < t0 || s * b[c] < s * level) continue;
    if (s * a[c] >= s * level) return std::max(a[kmTime], t0);
    return a[kmTime] + (b[kmTime] - a[kmTime]) * (level - a[c]) / (b[c] - a[c]);
  }
  return std::nan("");
}

/// Slope and intercept of the least-squares line of column y over column x, rows with x in [x0, x1]
/// after time t0; n the number of rows used.
struct Line {
  double slope = std::nan(""), intercept = std::nan("");
  int n = 0;
};
/// The same for y(row), a quantity computed from the row.
template <class Y>
Line fitOf(const std::vector<Row>& rows, int x, const Y& y, double x0, double x1, double t0) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (const Row& r : rows) {
    if (r[kmTime] < t0 || r[x] < x0 || r[x] > x1) continue;
    const double v = y(r);
    sx += r[x], sy += v, sxx += r[x] * r[x], sxy += r[x] * v, ++n;
  }
  Line l;
  l.n = n;
  const double det = n * sxx - sx * sx;
  if (n < 3 || !(std::abs(det) > 0.0)) return l;
  l.slope = (n * sxy - sx * sy) / det;
  l.intercept = (sy - l.slope * sx) / n;
  return l;
}
Line fit(const std::vector<Row>& rows, int x, int y, double x0, double x1, double t0) {
  return fitOf(rows, x, [y](const Row& r) { return r[y]; }, x0, x1, t0);
}

SignalRow ramp(double t0, double t1, double to) {
  SignalRow s;
  s.type = SignalType::Ramp;
  s.t0 = t0;
  s.t1 = t1;
  s.value = 0.0;
  s.value2 = to;
  return s;
}

struct Context {
  const Project& project;
  VehicleSetup vehicle;
  std::vector<ManoeuvreParameter> params;
  double speed, settle, gain;
  const std::function<void(double)>& progress;
  const std::atomic<bool>* cancel;
  ManoeuvreResult& result;
  double p(const std::string& key) const { return param(params, key); }
  void note(const std::string& text) { result.notes.push_back(text); }
  void metric(const std::string& name, const std::string& unit, double value, const std::string& definition,
              const std::string& limit = {}, bool pass = true) {
    ManoeuvreMetric m;
    m.name = name, m.unit = unit, m.value = value, m.definition = definition, m.limit = limit, m.pass = pass;
    result.metrics.push_back(m);
  }
  Drive driveWith(SignalRow steer, double duration) const {
    Drive d;
    d.speed = speed;
    d.gain = gain;
    d.steer = steer;
    d.duration = duration;
    d.cancel = cancel;
    return d;
  }
  /// Steady-state lateral acceleration per steering-wheel angle [(m/s^2)/deg] from a ramp to
  /// `angle` held for 3 s (mean of the last 0.5 s).
  double steadyGain(double angle) {
    const double end = settle + 0.15 + 3.0;
    const std::vector<Row> rows = drive(project, vehicle, driveWith(ramp(settle, settle + 0.15, angle / kDeg), end), {});
    const double ay = mean(rows, kmLateral, end - 0.5, end);
    note("calibration: " + significant(angle) + " deg held gives " + significant(ay) + " m/s^2 in a steady turn");
    if (!(std::abs(ay) > 1e-6))
      throw SimulationError("manoeuvre: the steering-wheel angle turns the vehicle by no measurable lateral acceleration");
    return ay / angle;
  }
  /// The angle that gives lateral acceleration `ay` in a steady turn: a guess scaled by the
  /// measured gain, once refined.
  double angleFor(double ay) {
    double angle = 10.0 * (ay >= 0 ? 1.0 : -1.0);
    for (int k = 0; k < 2; ++k) angle = ay / steadyGain(angle);
    return angle;
  }
};

// ---------------------------------------------------------------------------------------------

void stepSteer(Context& c) {
  const double ramp_ = c.p("ramp time"), hold = c.p("hold");
  if (!(ramp_ > 0.0) || !(hold >= 1.0)) throw std::invalid_argument("step-steer: 'ramp time' must be positive and 'hold' at least 1 s");
  double angle = c.p("angle");
  if (angle == 0.0) angle = c.angleFor(c.p("lateral acceleration"));
  const double t0 = c.settle, end = c.settle + ramp_ + hold;
  std::vector<Row> rows = drive(c.project, c.vehicle, c.driveWith(ramp(t0, t0 + ramp_, angle / kDeg), end), c.progress);
  const double tHalf = t0 + 0.5 * ramp_;  // the steering-wheel angle at 50 %: the time origin
  const double yawSs = mean(rows, kmYawRate, end - 1.0, end), aySs = mean(rows, kmLateral, end - 1.0, end);
  const double betaSs = mean(rows, kmSideslip, end - 1.0, end), rollSs = mean(rows, kmRoll, end - 1.0, end);
  double yawPeak = 0.0, tYawPeak = std::nan(""), ayPeak = 0.0, tAyPeak = std::nan("");
  const double s = angle >= 0.0 ? 1.0 : -1.0;
  for (const Row& r : rows) {
    if (r[kmTime] < t0) continue;
    if (s * r[kmYawRate] > s * yawPeak) yawPeak = r[kmYawRate], tYawPeak = r[kmTime];
    if (s * r[kmLateral] > s * ayPeak) ayPeak = r[kmLateral], tAyPeak = r[kmTime];
  }
  c.metric("steering-wheel angle", "deg", angle, "the step's amplitude");
  c.metric("steady-state lateral acceleration", "m/s^2", aySs, "mean over the last second");
  c.metric("steady-state yaw rate", "deg/s", yawSs, "mean over the last second");
  c.metric("yaw rate gain", "1/s", yawSs / angle, "steady-state yaw rate per steering-wheel angle");
  c.metric("lateral acceleration gain", "(m/s^2)/deg", aySs / angle, "steady-state lateral acceleration per steering-wheel angle");
  c.metric("yaw rate response time", "s", crossing(rows, kmYawRate, 0.9 * yawSs, t0) - tHalf,
           "from 50 % of the steering-wheel angle to 90 % of the steady-state yaw rate (ISO 7401)");
  c.metric("yaw rate peak response time", "s", tYawPeak - tHalf, "from 50 % of the steering-wheel angle to the yaw rate's peak");
  c.metric("yaw rate overshoot", "%", 100.0 * (yawPeak - yawSs) / yawSs, "(peak - steady state) / steady state");
  c.metric("lateral acceleration response time", "s", crossing(rows, kmLateral, 0.9 * aySs, t0) - tHalf,
           "from 50 % of the steering-wheel angle to 90 % of the steady-state lateral acceleration");
  c.metric("lateral acceleration peak response time", "s", tAyPeak - tHalf, "from 50 % of the steering-wheel angle to the peak");
  c.metric("lateral acceleration overshoot", "%", 100.0 * (ayPeak - aySs) / aySs, "(peak - steady state) / steady state");
  c.metric("steady-state sideslip angle", "deg", betaSs, "of the centre of mass, ISO 8855 (positive: velocity to the left of the heading)");
  c.metric("steady-state roll angle", "deg", rollSs, "of the vehicle body (positive: right side down)");
  c.metric("TB factor", "s deg", (tYawPeak - tHalf) * std::abs(betaSs), "yaw rate peak response time times the steady-state sideslip angle");
  c.result.series = std::move(rows);
}

/// The project without its tyres (wheels as K&C references, no drive or brake inputs), load
/// cases, outputs or targets: what the K&C analyses take.
Project withoutTyres(const Project& project) {
  Project p = project;
  for (WheelRow& w : p.wheels) {
    w.tyre.clear();
    w.driveInput.reset();
    w.brakeInput.reset();
  }
  p.loadCases.clear();
  p.outputs.clear();
  p.targets.clear();
  return p;
}

/// Each wheel's steering gain (wheel steer angle per steering-wheel angle) by a K&C steering
/// sweep of +-2 deg.
std::vector<double> steeringGains(const SuspensionModel& model, int steeringInput) {
  KcOptions o = defaultKcOptions(KcKind::Steering, true);
  o.input = model.inputById(steeringInput);
  o.from = -2.0 / kDeg;
  o.to = 2.0 / kDeg;
  o.points = 5;
  const KcResult kc = runKc(model, o);
  std::vector<double> gains(model.wheels.size(), 0.0);
  for (const KcMetric& m : kc.metrics)
    for (std::size_t w = 0; w < model.wheels.size(); ++w)
      if (m.name == "steering gain" && m.wheel == model.wheels[w].name) gains[w] = m.value;
  return gains;
}

/// The overall steering ratio: steering-wheel angle per mean steer angle of the two most steered
/// wheels (kinematic: wheel centres held, no lateral load).
double steeringRatio(const std::vector<double>& gains) {
  std::vector<double> g = gains;
  std::sort(g.begin(), g.end(), [](double a, double b) { return std::abs(a) > std::abs(b); });
  if (g.size() < 2 || !(std::abs(g[0]) > 0.0))
    throw SimulationError("manoeuvre: the steering input steers no wheel in a K&C steering sweep");
  return 2.0 / (g[0] + g[1]);
}

/// The project as a K&C rig takes a vehicle: without tyres, the vehicle body held.
Project heldVehicle(const Project& project, int body) {
  Project p = withoutTyres(project);
  for (BodyRow& b : p.bodies)
    if (b.id == body) {
      b.fixed = true;
      b.mass = 0.0;
      b.inertia = {};
      b.com.setZero();
      b.velocity.setZero();
      b.angularVelocity.setZero();
    }
  return p;
}


// ---------------------------------------------------------------------------------------------
// Double lane change (ISO 3888-2 and -1).

/// A stretch of an ISO 3888 track between cones, in the track's frame [m].
struct Lane {
  double from, to, right, left;
  double centre() const { return 0.5 * (right + left); }
};

/// The lanes between cones of ISO 3888 part 2 (obstacle avoidance) or part 1 (double lane
/// change) for a vehicle of width w; x from the entry gate, y = 0 on the entry lane's centre.
std::vector<Lane> isoTrack(int part, double w) {
  if (part == 2) {  // sections 12, 13.5, 11, 12.5, 12 m: 61 m in all
    const double b1 = 1.1 * w + 0.25, b3 = w + 1.0, b5 = std::max(1.3 * w + 0.25, 3.0);
    return {{0.0, 12.0, -0.5 * b1, 0.5 * b1}, {25.5, 36.5, 0.5 * b1 + 1.0, 0.5 * b1 + 1.0 + b3}, {49.0, 61.0, -0.5 * b1, -0.5 * b1 + b5}};
  }
  // sections 15, 30, 25, 25, 15 m and 15 m to the end: 125 m; the lane offset of 3.5 m between
  // the right-hand boundaries of lanes 1 and 3
  const double b1 = 1.1 * w + 0.25, b3 = 1.2 * w + 0.25, b5 = 1.3 * w + 0.25;
  return {{0.0, 15.0, -0.5 * b1, 0.5 * b1}, {45.0, 70.0, 3.5 - 0.5 * b1, 3.5 - 0.5 * b1 + b3}, {95.0, 110.0, -0.5 * b1, -0.5 * b1 + b5}};
}

/// The reference path's y at track x: each lane's centre line, joined across the gaps by a
/// quintic step (zero slope and curvature at both ends).
double referencePath(const std::vector<Lane>& lanes, double x) {
  if (x <= lanes.front().to) return lanes.front().centre();
  for (std::size_t k = 1; k < lanes.size(); ++k) {
    if (x >= lanes[k].from && x <= lanes[k].to) return lanes[k].centre();
    if (x < lanes[k].from) {
      const double u = (x - lanes[k - 1].to) / (lanes[k].from - lanes[k - 1].to);
      const double step = u * u * u * (10.0 - 15.0 * u + 6.0 * u * u);
      return lanes[k - 1].centre() + (lanes[k].centre() - lanes[k - 1].centre()) * step;
    }
  }
  return lanes.back().centre();
}

/// One lane change at c.speed into c.result; false when the vehicle did not reach the end of the
/// track (it spun or ran off), its metrics then over the part it drove.
bool laneChangeRun(Context& c) {
  const double part = c.p("track"), preview = c.p("preview time"), minPreview = c.p("minimum preview");
  const double frontOverhang = c.p("front overhang"), rearOverhang = c.p("rear overhang");
  const double reaction = c.p("reaction time");
  if ((part != 1.0 && part != 2.0) || !(preview > 0.0) || !(minPreview > 0.0) || !(frontOverhang >= 0.0) ||
      !(rearOverhang >= 0.0) || !(c.p("vehicle width") >= 0.0) || !(c.p("steering gain") >= 0.0) ||
      !(reaction >= 0.0 && reaction <= 2.0))
    throw std::invalid_argument(
        "double-lane-change: 'track' is 1 or 2, 'preview time' and 'minimum preview' positive (as the path "
        "follower takes them), 'reaction time' 0 to 2 s, the overhangs, 'vehicle width' and 'steering gain' not "
        "negative");
  // The vehicle as modelled: its axles from the centre of mass, its width across the tyres.
  auto model = SuspensionModel::build(c.project);
  const ModelBody& body = model->bodies[model->bodyById(c.vehicle.body).value];
  const Vec3 p0 = body.p0, x0 = body.R0.col(0);
  double front = 0.0, rear = 0.0, yMin = 0.0, yMax = 0.0;
  int nf = 0, nr = 0;
  for (const ModelWheel& w : model->wheels) {
    if (!w.tyre) continue;
    const ModelMarker& m = model->markers[w.marker.value];
    const ModelBody& b = model->bodies[m.body.value];
    const Vec3 d = b.p0 + b.R0 * m.s - p0;
    const double x = d.dot(x0), y = body.R0.col(1).dot(d), half = 0.5 * w.tyre->width;
    (x > 0.0 ? front : rear) += x, ++(x > 0.0 ? nf : nr);
    yMin = std::min(yMin, y - half), yMax = std::max(yMax, y + half);
  }
  front /= nf, rear /= nr;  // vehicleSetup made sure there are both
  double width = c.p("vehicle width");
  if (width == 0.0) width = yMax - yMin;
  for (ManoeuvreParameter& q : c.params)
    if (q.key == "vehicle width") q.value = width;
  const std::vector<Lane> lanes = isoTrack(static_cast<int>(part), width);
  const double length = part == 2.0 ? 61.0 : 125.0;
  // The steering-wheel angle per curvature of a steady turn at the test speed.
  double gain = c.p("steering gain");
  if (gain == 0.0) gain = c.speed * c.speed / c.steadyGain(10.0) / kDeg;
  for (ManoeuvreParameter& q : c.params)
    if (q.key == "steering gain") q.value = gain;
  // The track: the entry gate where the centre of mass is after `settle` seconds; y = 0 on the
  // centre of mass's line as modelled, x along the vehicle body's heading.
  Vec3 heading = x0;
  heading.z() = 0.0;
  heading.normalize();
  const Vec3 left(-heading.y(), heading.x(), 0.0);
  const Vec3 entry = p0 + c.speed * c.settle * heading;
  PathFollowerRow follower;
  follower.body = c.vehicle.body;
  follower.steeringInput = c.vehicle.steeringInput;
  follower.previewTime = preview;
  follower.minimumPreview = minPreview;
  follower.gain = gain;
  follower.reactionTime = reaction;
  for (double x = -c.speed * c.settle - 5.0; x <= length + 100.0; x += 0.5) {
    const Vec3 q = entry + x * heading + referencePath(lanes, x) * left;
    follower.path.push_back({q.x(), q.y()});
  }
  Drive d = c.driveWith({}, c.settle + 2.0 * (length + 20.0) / c.speed + 2.0);
  d.path = follower;
  if (c.p("lift off") != 0.0) d.liftOff = c.settle - front / c.speed;
  auto along = [&](const Row& r) { return (Vec3(r[kmX], r[kmY], p0.z()) - entry).dot(heading); };
  d.stop = [&](const Row& r) { return along(r) > length + 20.0; };
  std::vector<Row> rows = drive(c.project, c.vehicle, d, c.progress);

  // The footprint's corners against the lanes between cones; the centre of mass against the path.
  std::vector<std::array<bool, 2>> crossed(lanes.size(), {false, false});
  double clearance = std::numeric_limits<double>::infinity(), deviation = 0.0, entrySpeed = std::nan(""), exitSpeed = std::nan("");
  double steerPeak = 0.0, ratePeak = 0.0, yawPeak = 0.0, ayPeak = 0.0, betaPeak = 0.0, rollPeak = 0.0;
  const double half = 0.5 * width;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const Vec3 cg(r[kmX], r[kmY], p0.z());
    const double x = (cg - entry).dot(heading), y = (cg - entry).dot(left);
    c.result.trackPath.push_back({x, y, referencePath(lanes, x)});
    if (i > 0) {
      const double xPrev = c.result.trackPath[i - 1][0];
      if (xPrev < 0.0 && x >= 0.0) entrySpeed = r[kmSpeed];
      if (xPrev < length && x >= length) exitSpeed = r[kmSpeed];
      if (x >= 0.0 && x <= length)
        ratePeak = std::max(ratePeak, std::abs(r[kmSteer] - rows[i - 1][kmSteer]) / (r[kmTime] - rows[i - 1][kmTime]));
    }
    if (x < 0.0 || x > length) continue;
    deviation = std::max(deviation, std::abs(y - referencePath(lanes, x)));
    steerPeak = std::max(steerPeak, std::abs(r[kmSteer]));
    yawPeak = std::max(yawPeak, std::abs(r[kmYawRate]));
    ayPeak = std::max(ayPeak, std::abs(r[kmLateral]));
    betaPeak = std::max(betaPeak, std::abs(r[kmSideslip]));
    rollPeak = std::max(rollPeak, std::abs(r[kmRoll]));
    const double psi = r[kmHeading] / kDeg;
    const Vec3 h(std::cos(psi), std::sin(psi), 0.0), n(-h.y(), h.x(), 0.0);
    for (double ahead : {front + frontOverhang, rear - rearOverhang})
      for (double side : {-half, half}) {
        const Vec3 corner = cg + ahead * h + side * n - entry;
        const double cx = corner.dot(heading), cy = corner.dot(left);
        for (std::size_t k = 0; k < lanes.size(); ++k) {
          if (cx < lanes[k].from || cx > lanes[k].to) continue;
          const double right = cy - lanes[k].right, left = lanes[k].left - cy;
          clearance = std::min({clearance, right, left});
          if (right < 0.0) crossed[k][0] = true;
          if (left < 0.0) crossed[k][1] = true;
        }
      }
  }
  const double reached = c.result.trackPath.back()[0];  // drive() records the start at least
  if (!(reached >= length))
    c.note("the vehicle did not reach the end of the track (" + significant(reached) + " m of " + significant(length) + " m)");
  int lines = 0;
  for (const auto& k : crossed) lines += k[0] + k[1];
  for (const Lane& l : lanes) c.result.lanes.push_back({l.from, l.to, l.right, l.left});
  c.note("track ISO 3888-" + std::string(part == 2.0 ? "2" : "1") + ", vehicle width " + significant(width) +
         " m: lanes " + significant(lanes[0].left - lanes[0].right) + ", " + significant(lanes[1].left - lanes[1].right) +
         ", " + significant(lanes[2].left - lanes[2].right) + " m wide");
  c.metric("entry speed", "m/s", entrySpeed, "of the centre of mass at the entry gate");
  c.metric("exit speed", "m/s", exitSpeed, "of the centre of mass at the end of the track");
  c.metric("cone lines crossed", "", lines,
           "lanes' boundaries (either side of lanes 1, 3 and 5) the footprint crossed: the vehicle width between the "
           "axles extended by the overhangs",
           "= 0", lines == 0);
  c.metric("smallest clearance", "m", clearance,
           "the footprint's least distance inside a lane's boundary; negative: how far it reached beyond one");
  c.metric("largest path deviation", "m", deviation, "of the centre of mass from the reference path, on the track");
  c.metric("peak steering-wheel angle", "deg", steerPeak, "on the track");
  c.metric("peak steering-wheel rate", "deg/s", ratePeak, "on the track");
  c.metric("peak yaw rate", "deg/s", yawPeak, "on the track");
  c.metric("peak lateral acceleration", "m/s^2", ayPeak, "on the track");
  c.metric("peak sideslip angle", "deg", betaPeak, "on the track");
  c.metric("peak roll angle", "deg", rollPeak, "on the track");
  c.result.series = std::move(rows);
  return reached >= length;
}

void doubleLaneChange(Context& c) {
  if (!laneChangeRun(c)) throw SimulationError("double-lane-change: " + c.result.notes.back());
}

/// The highest speed at which the lane change passes (no cone line crossed, the end of the track
/// reached): runs at the start speed and up in steps while they pass, then the interval between
/// the highest pass and the lowest failure halved down to the resolution. Each run calibrates its
/// own steering gain unless one is given. Shown: the highest passing run (or the lowest failing).
void doubleLaneChangeLimit(Context& c) {
  const double step = c.p("speed step"), vMax = c.p("speed max"), resolution = c.p("resolution");
  if (!(step > 0.0) || !(resolution > 0.0) || !(vMax >= c.speed))
    throw std::invalid_argument(
        "double-lane-change-limit: 'speed step' and 'resolution' must be positive and 'speed max' at least 'speed'");
  struct Attempt {
    double speed = 0.0;
    bool pass = false;
    ManoeuvreResult result;
    std::vector<ManoeuvreParameter> params;
  };
  int runs = 0;
  // Progress over an unknown number of runs: rising towards 1 with every run.
  const std::function<void(double)> progress = [&](double f) {
    if (c.progress) c.progress(1.0 - 3.0 / (4.0 + runs + f));
  };
  auto attempt = [&](double v) {
    Attempt a;
    a.speed = v;
    a.params = c.params;
    for (ManoeuvreParameter& q : a.params)
      if (q.key == "speed") q.value = v;
    a.result.name = c.result.name;
    a.result.vehicle = c.result.vehicle;
    Context k{c.project, c.vehicle, a.params, v, c.settle, c.gain, progress, c.cancel, a.result};
    const bool reached = laneChangeRun(k);
    a.params = k.params;  // with the calibrated steering gain and the lanes' vehicle width
    const double lines = a.result.metric("cone lines crossed")->value;
    a.pass = reached && lines == 0.0;
    ++runs;
    c.note("run " + std::to_string(runs) + " at " + significant(v) + " m/s (" + significant(v * 3.6) + " km/h): " +
           (a.pass ? std::string("passes") : reached ? "crosses " + significant(lines) + (lines == 1.0 ? " cone line" : " cone lines") : a.result.notes.back()));
    return a;
  };
  std::optional<Attempt> pass, fail;
  for (int i = 0;; ++i) {  // up to 'speed max' itself
    Attempt a = attempt(std::min(c.speed + i * step, vMax));
    const bool last = a.speed >= vMax;
    (a.pass ? pass : fail) = std::move(a);
    if (fail || last) break;
  }
  while (pass && fail && fail->speed - pass->speed > resolution * (1.0 + 1e-12)) {
    Attempt a = attempt(0.5 * (pass->speed + fail->speed));
    (a.pass ? pass : fail) = std::move(a);
  }
  if (!pass) c.note("no run passed: the lowest speed tried fails; lower 'speed'");
  if (!fail) c.note("every run up to 'speed max' passed");
  const Attempt& shown = pass ? *pass : *fail;
  // The parameters the shown run used (its calibrated steering gain, the lanes' vehicle width),
  // the search's own start speed kept.
  for (ManoeuvreParameter& q : c.params)
    for (const ManoeuvreParameter& r : shown.params)
      if (q.key == r.key && q.key != "speed") q.value = r.value;
  c.note("shown: the run at " + significant(shown.speed) + " m/s, steering gain " + significant(c.p("steering gain")) + " rad m");
  for (const std::string& n : shown.result.notes) c.note("shown run: " + n);
  const double nan = std::nan("");
  c.metric("highest passing speed", "m/s", pass ? pass->speed : nan,
           "the highest test speed whose lane change crossed no cone line and reached the end of the track");
  c.metric("lowest failing speed", "m/s", fail ? fail->speed : nan, "the lowest test speed tried whose lane change failed");
  c.metric("runs", "", runs, "lane changes run by the search (each after its own calibration turn unless 'steering gain' is given)");
  for (const ManoeuvreMetric& m : shown.result.metrics) c.result.metrics.push_back(m);
  c.result.series = shown.result.series;
  c.result.lanes = shown.result.lanes;
  c.result.trackPath = shown.result.trackPath;
}

// ---------------------------------------------------------------------------------------------
// Targets.

/// The project's targets of manoeuvre `name`; every target that names an unknown manoeuvre, or a
/// metric `name` does not report, named in one message.
std::vector<const TargetRow*> targetsOf(const Project& project, const std::string& name) {
  std::vector<const TargetRow*> out;
  std::string problems;
  const std::vector<Spec> all = specs();
  for (const TargetRow& t : project.targets) {
    if (t.manoeuvre.empty()) continue;
    const std::string which = "target " + std::to_string(t.id) + " ('" + printableExcerpt(t.metric) + "')";
    const auto s = std::find_if(all.begin(), all.end(), [&](const Spec& x) { return t.manoeuvre == x.name; });
    if (s == all.end()) {
      std::string known;
      for (const Spec& x : all) known += (known.empty() ? "" : ", ") + std::string(x.name);
      problems += "; " + which + ": no manoeuvre '" + printableExcerpt(t.manoeuvre) + "' (known: " + known + ")";
    } else if (std::find(s->metrics.begin(), s->metrics.end(), t.metric) == s->metrics.end()) {
      std::string known;
      for (const std::string& m : s->metrics) known += (known.empty() ? "" : ", ") + m;
      problems += "; " + which + ": " + t.manoeuvre + " has no such metric (its metrics: " + known + ")";
    } else if (t.manoeuvre == name) {
      out.push_back(&t);
    }
  }
  if (!problems.empty()) throw std::invalid_argument("the project's targets table: " + problems.substr(2));
  return out;
}

}  // namespace manoeuvre_impl

namespace mi = manoeuvre_impl;

BicycleModel bicycleModel(const Project& project, const VehicleSetup& v, double speed, const RollInputs& roll) {
  using mi::kDeg;
  BicycleModel out;
  const auto tyred = SuspensionModel::build(project);
  const int n = static_cast<int>(tyred->wheels.size());
  for (const ModelWheel& w : tyred->wheels)
    if (!w.tyre) throw std::invalid_argument("bicycle model: wheel " + std::to_string(w.id) + " has no tyre");
  // Static loads: the vehicle free on the rig's pads at its design heights.
  const Project bare = mi::withoutTyres(project);
  const auto free = SuspensionModel::build(bare);
  std::vector<double> heights;  // the wheel centres at the run's ride height (the body as modelled)
  if (!roll.travel.empty()) {
    Workspace w0(*free);
    State s0;
    free->initialState(s0.r, s0.v);
    calcBodyKinematics(*free, s0, w0);
    calcMarkerKinematics(*free, w0);
    for (int i = 0; i < n; ++i) heights.push_back(wheelChannels(free->wheels[i], w0)[kCentreZ] + roll.travel[i]);
  }
  const KcDesign freeDesign = solveDesign(*free, 1e-8, heights);
  // Compliances, roll steer and camber, steering gains: the vehicle body held.
  const auto fixed = SuspensionModel::build(mi::heldVehicle(project, v.body));
  const KcDesign design = solveDesign(*fixed, 1e-8, heights);
  const std::vector<KcMetric> metrics = designMetrics(*fixed, design);
  const std::vector<double> gains = mi::steeringGains(*fixed, v.steeringInput);
  const double ratio = mi::steeringRatio(gains);
  auto metric = [&](const std::string& prefix, int w) {
    for (const KcMetric& m : metrics)
      if (m.name.rfind(prefix, 0) == 0 && m.wheel == fixed->wheels[w].name) return m.value;
    throw std::logic_error("bicycle model: K&C metric " + prefix + " missing");
  };
  Workspace ws(*fixed);
  calcBodyKinematics(*fixed, design.state, ws);
  calcMarkerKinematics(*fixed, ws);
  // The compliances with the wheel heights held: the run's suspension roll (roll steer and
  // camber below) is every wheel's travel, the part a lateral force's jacking gives included, so
  // the compliances must not move the wheels vertically a second time.
  std::vector<MatX> byFy, byMz;
  for (int j = 0; j < n; ++j) {
    byFy.push_back(wheelCompliance(*fixed, design, j, kFyContact, PadsHold::Heights));
    byMz.push_back(wheelCompliance(*fixed, design, j, kMzContact, PadsHold::Heights));
  }
  // The whole vehicle's centre of mass (every free body of the project).
  double mass = 0.0, xm = 0.0;
  for (const BodyRow& b : project.bodies)
    if (!b.fixed) {
      mass += b.mass;
      xm += b.mass * (b.position + rotation::matrix(b.orientation) * b.com).x();
    }
  const double xg = xm / mass;
  // Per wheel: x from the centre of mass, steering gain, tyre slip stiffnesses at the static load
  // and camber (ISO: gamma = -side camber), roll steer and roll camber.
  std::vector<double> x(n), g(n), K(n), G(n), N(n), H(n), Zy(n), Zz(n), rho(n), lean(n), dFz(n);
  double frontLoad = 0, rearLoad = 0, frontK = 0, rearK = 0;
  for (int i = 0; i < n; ++i) {
    const ModelWheel& w = tyred->wheels[i];
    const auto ch = wheelChannels(fixed->wheels[i], ws);
    x[i] = ch[kCentreX] - xg;
    g[i] = gains[i];
    const double fz = freeDesign.wheelLoads[kWheelLoads * i + kFzContact];
    MfPartials P;
    // at the static slip angle (the toe: alpha = -steer = side toe when running straight) and camber
    magicFormula(*w.tyre, MfState{0.0, w.side * ch[kToe], -w.side * ch[kCamber], fz, speed}, w.tyreMirrored, P);
    K[i] = P[kMfFy][kMfAlpha], G[i] = P[kMfFy][kMfGamma], N[i] = P[kMfMz][kMfAlpha], H[i] = P[kMfMz][kMfGamma];
    Zy[i] = P[kMfFy][kMfFz], Zz[i] = P[kMfMz][kMfFz];
    dFz[i] = -w.side * (x[i] > 0 ? roll.frontTransfer : roll.rearTransfer);  // the outer (right) tyre gains
    // In a left turn (roll > 0, right side down) the suspension's roll phi_s puts the outer wheel in
    // bump and the inner in rebound: both steer by roll steer x phi_s and lean (top to the right,
    // ISO gamma) by roll camber x phi_s, and the body's roll tilts both by its own angle.
    const double phiS = x[i] > 0 ? roll.frontRoll : roll.rearRoll;
    rho[i] = metric("roll steer", i) * phiS;
    lean[i] = metric("roll camber", i) * phiS + roll.roll;
    (x[i] > 0 ? frontLoad : rearLoad) += fz;
    (x[i] > 0 ? frontK : rearK) += std::abs(K[i]);
  }
  // Unknowns per unit of lateral acceleration: sideslip, steering-wheel angle, Fy and Mz of each tyre.
  // The effects of the suspension and the load transfer, each one switchable (the budget).
  enum : int { kFySteer = 1, kFyCamber = 2, kMzSteer = 4, kMzCamber = 8, kRollSteer = 16, kRollCamber = 32, kTransfer = 64, kAll = 127 };
  auto solve = [&](int mask) {
    const bool suspension = mask != 0;
    const int m = 2 + 2 * n;
    MatX A = MatX::Zero(m, m);
    VecX b = VecX::Zero(m);
    for (int i = 0; i < n; ++i) {
      const double side = tyred->wheels[i].side;
      for (int row = 0; row < 2; ++row) {  // Fy_i, then Mz_i: F - Ka alpha - Kg gamma = 0
        const int r = row == 0 ? 2 + i : 2 + n + i;
        const double ka = row == 0 ? K[i] : N[i], kg = row == 0 ? G[i] : H[i], kz = row == 0 ? Zy[i] : Zz[i];
        A(r, r) += 1.0;
        // alpha_i = beta + x_i / V^2 - g_i delta_H - steer_i (compliance and roll)
        A(r, 0) -= ka;
        A(r, 1) += ka * g[i];
        b(r) += ka * x[i] / (speed * speed);
        if (suspension) {
          for (int j = 0; j < n; ++j) {
            // steer = -side toe, gamma = -side camber, per Fy_j and Mz_j (global y and z)
            if (mask & kFySteer) A(r, 2 + j) += ka * -side * byFy[j](i, kToe);
            if (mask & kFyCamber) A(r, 2 + j) -= kg * -side * byFy[j](i, kCamber);
            if (mask & kMzSteer) A(r, 2 + n + j) += ka * -side * byMz[j](i, kToe);
            if (mask & kMzCamber) A(r, 2 + n + j) -= kg * -side * byMz[j](i, kCamber);
          }
          if (mask & kRollSteer) b(r) -= ka * rho[i];
          if (mask & kRollCamber) b(r) += kg * lean[i];
          if (mask & kTransfer) b(r) += kz * dFz[i];
        }
      }
      A(0, 2 + i) = 1.0;  // sum Fy = m a_y
      A(1, 2 + i) = x[i];  // sum (x Fy + Mz) = 0
      A(1, 2 + n + i) = 1.0;
    }
    b(0) = mass;
    const VecX z = A.fullPivLu().solve(b);
    if (mask == kAll) {  // each axle's steer angle against the body: steering, compliance and roll steer
      double steer[2] = {0.0, 0.0};
      int count[2] = {0, 0};
      for (int i = 0; i < n; ++i) {
        const double side = tyred->wheels[i].side;
        double s = g[i] * z(1) + rho[i];
        for (int j = 0; j < n; ++j) s -= side * (byFy[j](i, kToe) * z(2 + j) + byMz[j](i, kToe) * z(2 + n + j));
        steer[x[i] > 0] += s, ++count[x[i] > 0];
      }
      out.frontSteer = steer[1] / std::max(count[1], 1) * mi::kG * kDeg;
      out.rearSteer = steer[0] / std::max(count[0], 1) * mi::kG * kDeg;
    }
    return (z(1) / ratio - v.wheelbase / (speed * speed)) * mi::kG * kDeg;
  };
  out.understeer = solve(kAll);
  out.tyresAlone = solve(0);
  out.lateralComplianceSteer = solve(kFySteer) - out.tyresAlone;
  out.aligningComplianceSteer = solve(kMzSteer) - out.tyresAlone;
  out.rollSteer = solve(kRollSteer) - out.tyresAlone;
  out.camber = solve(kFyCamber | kMzCamber | kRollCamber) - out.tyresAlone;
  out.loadTransfer = solve(kTransfer) - out.tyresAlone;
  out.frontLoad = frontLoad, out.rearLoad = rearLoad;
  out.frontCornering = frontK / kDeg, out.rearCornering = rearK / kDeg;
  out.steeringRatio = ratio;
  return out;
}

namespace manoeuvre_impl {

void steadyStateCircle(Context& c) {
  const double aMax = c.p("lateral acceleration max"), rate = c.p("lateral acceleration rate");
  const double from = c.p("fit from"), to = c.p("fit to");
  if (!(aMax > 0.0) || !(rate > 0.0) || !(to > from) || !(from >= 0.0))
    throw std::invalid_argument("steady-state-circle: 'lateral acceleration max' and '... rate' must be positive, 0 <= 'fit from' < 'fit to'");
  if (to > aMax) throw std::invalid_argument("steady-state-circle: 'fit to' lies above 'lateral acceleration max'");
  const double gain = c.steadyGain(10.0);           // (m/s^2)/deg
  const double steerRate = rate / std::abs(gain);  // deg/s
  const double sign = gain > 0.0 ? 1.0 : -1.0;      // a left turn
  const double tEnd = c.settle + 3.0 * aMax / rate;  // the ramp runs past a_max if the car saturates
  Drive d = c.driveWith(ramp(c.settle, tEnd, sign * steerRate * (tEnd - c.settle) / kDeg), tEnd);
  const double settle = c.settle;
  d.stop = [&](const Row& r) { return r[kmTime] > settle + 0.5 && r[kmLateral] >= aMax; };
  std::vector<double> travel;  // the ride height on the tyres when the steering starts
  d.travel = &travel;
  d.travelTime = c.settle;
  c.note("steering ramp " + significant(sign * steerRate) + " deg/s (" + significant(rate) + " m/s^3 at the calibration's gain)");
  std::vector<Row> rows = drive(c.project, c.vehicle, d, c.progress);
  const double t0 = c.settle;
  const Line steer = fit(rows, kmLateral, kmSteer, from, to, t0);
  // path curvature 1/R = yaw rate / speed [1/m]
  const Line curvature = fitOf(rows, kmLateral, [](const Row& r) { return r[kmYawRate] / kDeg / r[kmSpeed]; }, from, to, t0);
  const Line roll = fit(rows, kmLateral, kmRoll, from, to, t0);
  const Line beta = fit(rows, kmLateral, kmSideslip, from, to, t0);
  double ayMax = 0.0;
  for (const Row& r : rows)
    if (r[kmTime] > t0) ayMax = std::max(ayMax, r[kmLateral]);
  const double L = c.vehicle.wheelbase;
  const Line frontRoll = fit(rows, kmLateral, kmFrontRoll, from, to, t0), rearRoll = fit(rows, kmLateral, kmRearRoll, from, to, t0);
  const Line frontTransfer = fit(rows, kmLateral, kmFrontTransfer, from, to, t0);
  for (double t : travel)
    if (!std::isfinite(t)) throw std::invalid_argument("steady-state-circle: the bicycle model needs every wheel on a tyre");
  const Line rearTransfer = fit(rows, kmLateral, kmRearTransfer, from, to, t0);
  // at the speed the run held over the fit (the follower's error grows with the turn's drag)
  double speedSum = 0.0;
  int speedCount = 0;
  for (const Row& r : rows)
    if (r[kmTime] >= t0 && r[kmLateral] >= from && r[kmLateral] <= to) speedSum += r[kmSpeed], ++speedCount;
  const BicycleModel bicycle = bicycleModel(
      c.project, c.vehicle, speedSum / std::max(speedCount, 1),
      {roll.slope / kDeg, frontRoll.slope / kDeg, rearRoll.slope / kDeg, frontTransfer.slope, rearTransfer.slope, travel});
  const double ratio = bicycle.steeringRatio;  // by a K&C steering sweep, the body held
  const double understeer = (steer.slope / ratio - L * curvature.slope * kDeg) * kG;
  c.note("gradients fitted over " + significant(from) + " to " + significant(to) + " m/s^2 (" + std::to_string(steer.n) +
         " samples); overall steering ratio by a K&C steering sweep of +-2 deg without tyres, the body held");
  c.metric("steering-wheel angle gradient", "deg/g", steer.slope * kG, "d(steering-wheel angle)/d(lateral acceleration)");
  c.metric("overall steering ratio", "", ratio, "steering-wheel angle per mean steer angle of the steered wheels (kinematic)");
  c.metric("understeer gradient", "deg/g", understeer,
           "(steering-wheel angle gradient) / (overall steering ratio) - wheelbase d(1/R)/d(lateral acceleration) (ISO 4138)");
  c.metric("Ackermann curvature gradient", "1/(m g)", curvature.slope * kG, "d(yaw rate / speed)/d(lateral acceleration)");
  c.metric("roll gradient", "deg/g", roll.slope * kG, "d(roll angle)/d(lateral acceleration)");
  c.metric("sideslip gradient", "deg/g", beta.slope * kG, "d(sideslip angle)/d(lateral acceleration)");
  c.metric("front suspension roll gradient", "deg/g", frontRoll.slope * kG, "the body against the front wheel centres' line");
  c.metric("rear suspension roll gradient", "deg/g", rearRoll.slope * kG, "the body against the rear wheel centres' line");
  const Line frontSteer = fit(rows, kmLateral, kmFrontSteer, from, to, t0), rearSteer = fit(rows, kmLateral, kmRearSteer, from, to, t0);
  c.metric("front axle steer gradient", "deg/g", frontSteer.slope * kG,
           "d(front wheels' mean steer angle against the body)/d(lateral acceleration): steering, compliance and roll steer");
  c.metric("rear axle steer gradient", "deg/g", rearSteer.slope * kG,
           "d(rear wheels' mean steer angle against the body)/d(lateral acceleration): compliance and roll steer");
  c.metric("front lateral load transfer", "N/g", frontTransfer.slope * kG, "load moved to the outer front tyre per g");
  c.metric("rear lateral load transfer", "N/g", rearTransfer.slope * kG, "load moved to the outer rear tyre per g");
  c.metric("maximum lateral acceleration", "m/s^2", ayMax, "the highest reached in the run");
  c.metric("understeer gradient, linear bicycle model", "deg/g", bicycle.understeer,
           "from the tyres' slip stiffnesses at the static loads, the K&C compliance steer and camber, roll steer and "
           "camber at the run's roll gradients (docs/manoeuvres.md)");
  c.metric("front axle steer gradient, linear bicycle model", "deg/g", bicycle.frontSteer,
           "the bicycle model's front wheels' mean steer angle against the body per g");
  c.metric("rear axle steer gradient, linear bicycle model", "deg/g", bicycle.rearSteer,
           "the bicycle model's rear wheels' mean steer angle against the body per g");
  c.metric("understeer gradient, tyres alone", "deg/g", bicycle.tyresAlone, "the bicycle model with a rigid suspension");
  c.metric("understeer budget: roll steer", "deg/g", bicycle.rollSteer, "added to the tyres alone by the roll steer");
  c.metric("understeer budget: lateral force compliance steer", "deg/g", bicycle.lateralComplianceSteer,
           "added to the tyres alone by the toe compliance under the lateral forces");
  c.metric("understeer budget: aligning torque compliance steer", "deg/g", bicycle.aligningComplianceSteer,
           "added to the tyres alone by the toe compliance under the aligning torques");
  c.metric("understeer budget: camber", "deg/g", bicycle.camber, "added to the tyres alone by roll camber, body roll and camber compliance");
  c.metric("understeer budget: load transfer", "deg/g", bicycle.loadTransfer,
           "added to the tyres alone by the tyres' load sensitivity at their static slip and camber");
  c.metric("front axle cornering stiffness", "N/deg", bicycle.frontCornering, "both tyres at their static loads");
  c.metric("rear axle cornering stiffness", "N/deg", bicycle.rearCornering, "both tyres at their static loads");
  c.metric("front axle load", "N", bicycle.frontLoad, "static, on the K&C rig's pads at the design heights");
  c.metric("rear axle load", "N", bicycle.rearLoad, "static, on the K&C rig's pads at the design heights");
  c.result.series = std::move(rows);
}

void sineWithDwell(Context& c) {
  const double f = c.p("frequency"), dwell = c.p("dwell"), dir = c.p("direction") >= 0.0 ? 1.0 : -1.0;
  if (!(f > 0.0) || !(dwell >= 0.0)) throw std::invalid_argument("sine-with-dwell: 'frequency' must be positive and 'dwell' not negative");
  double amplitude = std::abs(c.p("angle"));
  if (amplitude == 0.0) {
    const double a03 = std::abs(c.angleFor(0.3 * kG));
    amplitude = c.p("scalar") * a03;
    c.note("0.3 g angle " + significant(a03) + " deg, amplitude " + significant(c.p("scalar")) + " x");
  }
  // The profile: a sine to its second peak, the dwell there, the last quarter back to zero.
  const double bos = c.settle, T = 1.0 / f, cos_ = bos + T + dwell, end = cos_ + 2.0;
  SignalRow steer;
  steer.type = SignalType::Table;
  const double step = 1e-3;
  for (double t = bos; t <= cos_ + 0.5 * step; t += step) {
    const double tau = t - bos;
    double phase = 2.0 * M_PI * f * tau;
    if (tau > 0.75 * T) phase = tau < 0.75 * T + dwell ? 1.5 * M_PI : 2.0 * M_PI * f * (tau - dwell);
    steer.table.push_back({t, dir * amplitude / kDeg * std::sin(phase)});
  }
  steer.table.push_back({cos_ + step, 0.0});
  // The standard's driver releases the throttle at the start: the vehicle coasts (no follower).
  Drive coast = c.driveWith(steer, end);
  coast.gain = 0.0;
  std::vector<Row> rows = drive(c.project, c.vehicle, coast, c.progress);
  // The first peak of the yaw rate after the second steering reversal (opposite to the first lobe).
  double peak = 0.0;
  for (const Row& r : rows)
    if (r[kmTime] >= bos + 0.5 * T && r[kmTime] <= cos_ + 1.0 && -dir * r[kmYawRate] > -dir * peak) peak = r[kmYawRate];
  const double r1 = 100.0 * at(rows, kmYawRate, cos_ + 1.0) / peak, r2 = 100.0 * at(rows, kmYawRate, cos_ + 1.75) / peak;
  // Lateral displacement of the centre of mass at BOS + 1.07 s, across the heading at BOS.
  const double psi0 = at(rows, kmHeading, bos) / kDeg;
  const double dx = at(rows, kmX, bos + 1.07) - at(rows, kmX, bos), dy = at(rows, kmY, bos + 1.07) - at(rows, kmY, bos);
  const double lateral = dir * (-std::sin(psi0) * dx + std::cos(psi0) * dy);
  c.metric("amplitude", "deg", amplitude, "steering-wheel angle of the sine");
  c.metric("peak yaw rate", "deg/s", peak, "first peak after the second steering reversal");
  c.metric("yaw rate ratio at COS + 1.00 s", "%", r1, "yaw rate 1 s after the completion of steer over the peak (FMVSS 126)",
           "<= 35 %", r1 <= 35.0);
  c.metric("yaw rate ratio at COS + 1.75 s", "%", r2, "yaw rate 1.75 s after the completion of steer over the peak (FMVSS 126)",
           "<= 20 %", r2 <= 20.0);
  c.metric("lateral displacement at BOS + 1.07 s", "m", lateral,
           "of the centre of mass, across the heading at the beginning of steer, towards the first steer (FMVSS 126, GVWR <= 3500 kg)",
           ">= 1.83 m", lateral >= 1.83);
  c.result.series = std::move(rows);
}

void sweptSine(Context& c) {
  const double f0 = c.p("frequency from"), f1 = c.p("frequency to"), T = c.p("sweep time"), fr = c.p("reference frequency");
  if (!(f0 > 0.0) || !(f1 > f0) || !(T > 0.0) || !(fr >= f0 && fr <= f1))
    throw std::invalid_argument("swept-sine: 0 < 'frequency from' < 'frequency to', 'sweep time' > 0, the reference frequency within the sweep");
  double amplitude = std::abs(c.p("angle"));
  if (amplitude == 0.0) amplitude = std::abs(c.angleFor(c.p("lateral acceleration")));
  const double t0 = c.settle, t1 = t0 + T, end = t1 + 4.0;  // 4 s for the response to die away
  SignalRow steer;
  steer.type = SignalType::Chirp;
  steer.t0 = t0;
  steer.t1 = t1;
  steer.amplitude = amplitude / kDeg;
  steer.frequency = f0;
  steer.frequency2 = f1;
  std::vector<Row> rows = drive(c.project, c.vehicle, c.driveWith(steer, end), c.progress);
  // The Fourier transforms of the input and the responses' changes over [t0, end] (a record
  // that starts and ends at rest): Y(f) = H(f) U(f) for the linear part of the vehicle.
  const double yaw0 = at(rows, kmYawRate, t0), ay0 = at(rows, kmLateral, t0);
  auto response = [&](double f) {
    std::complex<double> U, Yr, Ya;
    for (const Row& r : rows) {
      if (r[kmTime] < t0) continue;
      const std::complex<double> e = std::polar(1.0, -2.0 * M_PI * f * (r[kmTime] - t0));
      U += r[kmSteer] * e;
      Yr += (r[kmYawRate] - yaw0) * e;
      Ya += (r[kmLateral] - ay0) * e;
    }
    return std::array<std::complex<double>, 2>{Yr / U, Ya / U};
  };
  const auto href = response(fr);
  const auto hlow = response(f0);
  double peakGain = 0.0, peakFreq = f0;
  const int n = 60;
  for (int k = 0; k <= n; ++k) {
    const double f = f0 * std::pow(f1 / f0, static_cast<double>(k) / n);
    const auto h = response(f);
    if (std::abs(h[0]) > peakGain) peakGain = std::abs(h[0]), peakFreq = f;
    c.result.frequencyResponse.push_back({f, std::abs(h[0]), std::arg(h[0]) * kDeg, std::abs(h[1]), std::arg(h[1]) * kDeg});
  }
  const double ayPhase = std::arg(href[1]) * kDeg;
  c.metric("amplitude", "deg", amplitude, "steering-wheel angle of the sweep");
  c.metric("yaw rate gain at the start frequency", "1/s", std::abs(hlow[0]), "|yaw rate / steering-wheel angle| at 'frequency from'");
  c.metric("yaw rate gain peak ratio", "", peakGain / std::abs(hlow[0]), "largest yaw rate gain over the gain at the start frequency");
  c.metric("yaw rate gain peak frequency", "Hz", peakFreq, "frequency of the largest yaw rate gain");
  c.metric("yaw rate gain ratio at the reference frequency", "", std::abs(href[0]) / std::abs(hlow[0]),
           "yaw rate gain at the reference frequency over the gain at the start frequency");
  c.metric("yaw rate phase at the reference frequency", "deg", std::arg(href[0]) * kDeg, "negative: the yaw rate lags the steering");
  c.metric("lateral acceleration phase at the reference frequency", "deg", ayPhase, "negative: the lateral acceleration lags");
  c.metric("lateral acceleration time lag at the reference frequency", "ms", -ayPhase / 360.0 / fr * 1e3,
           "phase lag as time");
  c.note("frequency response from the Fourier transforms of the whole record (sweep and 4 s at rest after it)");
  c.result.series = std::move(rows);
}

}  // namespace manoeuvre_impl


const ManoeuvreMetric* ManoeuvreResult::metric(const std::string& name) const {
  for (const ManoeuvreMetric& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> manoeuvreNames() {
  std::vector<std::string> names;
  for (const mi::Spec& s : mi::specs()) names.push_back(s.name);
  return names;
}

std::vector<ManoeuvreParameter> manoeuvreParameters(const std::string& name) { return mi::spec(name).parameters; }

std::vector<std::string> manoeuvreMetrics(const std::string& name) { return mi::spec(name).metrics; }

VehicleSetup vehicleSetup(const Project& p, const std::map<std::string, double>& params) {
  VehicleSetup v;
  auto given = [&](const char* key) {
    auto it = params.find(key);
    return it == params.end() || it->second < 0.0 ? -1 : static_cast<int>(std::lround(it->second));
  };
  std::string problems;
  v.body = given("body");
  const BodyRow* body = nullptr;
  for (const BodyRow& b : p.bodies) {
    if (b.fixed) continue;
    v.mass += b.mass;
    if (v.body < 0 ? (!body || b.mass > body->mass) : b.id == v.body) body = &b;
  }
  if (!body)
    problems += v.body < 0 ? "; the project has no free body" : "; body " + std::to_string(v.body) + " is no free body";
  else
    v.body = body->id;
  v.steeringInput = given("steering input");
  if (v.steeringInput < 0) {
    if (p.steeringRacks.size() == 1)
      v.steeringInput = p.steeringRacks[0].input;
    else
      problems += p.steeringRacks.empty()
                      ? "; the project has no steering rack: name the steering-wheel angle's input with the parameter 'steering input'"
                      : "; the project has several steering racks: name the steering-wheel angle's input with 'steering input'";
  } else if (std::none_of(p.inputs.begin(), p.inputs.end(), [&](const InputRow& in) { return in.id == v.steeringInput; })) {
    problems += "; input " + std::to_string(v.steeringInput) + " does not exist";
  }
  std::vector<const WheelRow*> tyred;
  for (const WheelRow& w : p.wheels)
    if (!w.tyre.empty()) tyred.push_back(&w);
  if (tyred.size() < 3) problems += "; a manoeuvre needs a vehicle on at least three wheels with tyres (has " + std::to_string(tyred.size()) + ")";
  double radius = 0.0;
  for (const WheelRow* w : tyred)
    if (w->driveInput) v.driveInputs.push_back(*w->driveInput), radius += w->radius;
  if (!v.driveInputs.empty()) v.rollingRadius = radius / static_cast<double>(v.driveInputs.size());
  std::sort(v.driveInputs.begin(), v.driveInputs.end());
  v.driveInputs.erase(std::unique(v.driveInputs.begin(), v.driveInputs.end()), v.driveInputs.end());
  if (body && !tyred.empty()) {
    const double xc = body->position.x() + (rotation::matrix(body->orientation) * body->com).x();
    double front = 0, rear = 0;
    int nf = 0, nr = 0;
    for (const WheelRow* w : tyred) {
      const double x = mi::markerPosition(p, w->marker).x();
      if (x > xc) front += x, ++nf;
      else rear += x, ++nr;
    }
    if (nf && nr) v.wheelbase = front / nf - rear / nr;
    else problems += "; the tyred wheels are not on both sides of the vehicle body's centre of mass (no wheelbase)";
  }
  if (!problems.empty()) throw std::invalid_argument("manoeuvre: " + problems.substr(2));
  return v;
}

std::string manoeuvreJson(const ManoeuvreResult& r) {
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json doc;
  doc["manoeuvre"] = r.name;
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const ManoeuvreParameter& p : r.parameters) params.push_back({{"key", p.key}, {"unit", p.unit}, {"value", number(p.value)}});
  doc["parameters"] = params;
  doc["vehicle"] = {{"body", r.vehicle.body},          {"steering input", r.vehicle.steeringInput},
                    {"drive inputs", r.vehicle.driveInputs}, {"mass [kg]", r.vehicle.mass},
                    {"wheelbase [m]", r.vehicle.wheelbase}};
  nlohmann::ordered_json metrics = nlohmann::ordered_json::array();
  for (const ManoeuvreMetric& m : r.metrics) {
    nlohmann::ordered_json j{{"name", m.name}, {"unit", m.unit}, {"value", number(m.value)}, {"definition", m.definition}};
    if (!m.limit.empty()) j["limit"] = m.limit, j["pass"] = m.pass;
    if (m.targetId >= 0) {
      nlohmann::ordered_json t{{"id", m.targetId}};
      if (m.lower) t["lower"] = *m.lower;
      if (m.upper) t["upper"] = *m.upper;
      t["met"] = m.met;
      j["target"] = t;
    }
    metrics.push_back(j);
  }
  doc["metrics"] = metrics;
  if (!r.lanes.empty()) {
    nlohmann::ordered_json lanes = nlohmann::ordered_json::array();
    for (const auto& l : r.lanes) lanes.push_back({{"from [m]", l[0]}, {"to [m]", l[1]}, {"right [m]", l[2]}, {"left [m]", l[3]}});
    doc["lanes"] = lanes;
  }
  doc["notes"] = r.notes;
  return doc.dump(2) + "\n";
}

std::string manoeuvreSeriesCsv(const ManoeuvreResult& r) {
  std::string csv;
  for (std::size_t c = 0; c < kManoeuvreColumns.size(); ++c) csv += (c ? "," : "") + std::string(kManoeuvreColumns[c]);
  csv += "\n";
  for (const auto& row : r.series) {
    for (std::size_t c = 0; c < row.size(); ++c) csv += (c ? "," : "") + shortestText(row[c]);
    csv += "\n";
  }
  return csv;
}

ManoeuvreResult runManoeuvre(const Project& project, const std::string& name, const std::map<std::string, double>& given,
                             const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
  ManoeuvreResult result;
  result.name = name;
  std::vector<ManoeuvreParameter> params = mi::resolved(name, given);
  std::map<std::string, double> values;
  for (const ManoeuvreParameter& p : params) values[p.key] = p.value;
  result.vehicle = vehicleSetup(project, values);
  const double speed = mi::param(params, "speed"), settle = mi::param(params, "settle");
  if (!(speed > 0.0) || !(settle >= 0.5))
    throw std::invalid_argument("manoeuvre " + name + ": 'speed' must be positive and 'settle' at least 0.5 s");
  double gain = mi::param(params, "follower gain");
  if (gain == 0.0) gain = 6.0 * result.vehicle.mass * result.vehicle.rollingRadius;
  for (ManoeuvreParameter& p : params)
    if (p.key == "follower gain") p.value = gain;
  const std::vector<const TargetRow*> targets = mi::targetsOf(project, name);
  mi::Context c{project, result.vehicle, params, speed, settle, gain, progress, cancel, result};
  if (name == "step-steer") mi::stepSteer(c);
  else if (name == "steady-state-circle") mi::steadyStateCircle(c);
  else if (name == "sine-with-dwell") mi::sineWithDwell(c);
  else if (name == "swept-sine") mi::sweptSine(c);
  else if (name == "double-lane-change") mi::doubleLaneChange(c);
  else mi::doubleLaneChangeLimit(c);
  result.parameters = c.params;
  std::vector<std::string> names;
  for (const ManoeuvreMetric& m : result.metrics) names.push_back(m.name);
  if (names != mi::spec(name).metrics) throw std::logic_error("manoeuvre " + name + ": its metrics differ from its declared list");
  for (const TargetRow* t : targets)
    for (ManoeuvreMetric& m : result.metrics) {
      if (m.name != t->metric) continue;
      m.targetId = t->id;
      m.lower = t->lower;
      m.upper = t->upper;
      m.met = withinTarget(m.value, t->lower, t->upper);
    }
  return result;
}

}  // namespace ek
