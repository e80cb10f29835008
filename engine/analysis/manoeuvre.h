// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file manoeuvre.h
/// Standard handling manoeuvres of a vehicle on tyres and their metrics (docs/manoeuvres.md):
/// step steer (ISO 7401), steady-state circular driving at constant speed (ISO 4138), sine with
/// dwell (FMVSS 126 / ISO 19365), a swept sine (ISO 7401's frequency response) and the double
/// lane change (ISO 3888-2 / -1, closed loop: the path follower steers). Each builds a load case
/// on a copy of the project (every body starting at the test speed, a speed follower on the drive
/// inputs, the steering-wheel angle as the manoeuvre prescribes or the path follower sets), runs it with the
/// project's integrator settings and reduces the vehicle body's motion to the standard figures.

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/project.h"

namespace ek {

/// A manoeuvre's parameter: its key (as --param and Python take it), unit, default and meaning.
struct ManoeuvreParameter {
  std::string key, unit;
  double value = 0.0;  ///< the default; in a result, the value used
  std::string meaning;
};

/// A standard figure of a manoeuvre; `limit` and `pass` for the figures a standard bounds
/// (sine with dwell), else limit empty.
struct ManoeuvreMetric {
  std::string name, unit;
  double value = 0.0;
  std::string definition;
  std::string limit;  ///< e.g. "<= 35 %" (empty: no limit)
  bool pass = true;
  /// The project's target for it (table `targets`, a row naming this manoeuvre), if any; `met`:
  /// the value within it, bounds included (a value that is not finite misses).
  int targetId = -1;
  std::optional<double> lower, upper;
  bool met = true;
};

/// The vehicle a manoeuvre drives, from the project (or from the parameters `body`, `steering
/// input`): the heaviest free body, the steering rack's input, the tyred wheels' drive inputs.
struct VehicleSetup {
  int body = -1;                 ///< body id
  int steeringInput = -1;        ///< input id (a rotation input: the steering-wheel angle)
  std::vector<int> driveInputs;  ///< input ids
  double mass = 0.0;             ///< every free body's mass [kg]
  double wheelbase = 0.0;        ///< mean front to mean rear wheel centre along x, as modelled [m]
  double rollingRadius = 0.0;    ///< mean unloaded radius of the driven wheels [m]
};

struct ManoeuvreResult {
  std::string name;
  VehicleSetup vehicle;
  std::vector<ManoeuvreParameter> parameters;  ///< every parameter with the value used
  std::vector<ManoeuvreMetric> metrics;
  /// Time series of the vehicle (one row per step), columns kManoeuvreColumns.
  std::vector<std::array<double, 17>> series;
  /// Swept sine: per frequency [Hz], the yaw rate gain [1/s] and phase [deg], the lateral
  /// acceleration gain [(m/s^2)/deg] and phase [deg] per steering-wheel angle.
  std::vector<std::array<double, 5>> frequencyResponse;
  /// Double lane change: the track in its own frame (x from the entry gate along the vehicle's
  /// initial heading, y to the left of it), each lane between cones as x from, x to, right and
  /// left boundary [m]; per series row, the centre of mass's x and y in that frame and the
  /// reference path's y at that x.
  std::vector<std::array<double, 4>> lanes;
  std::vector<std::array<double, 3>> trackPath;
  std::vector<std::string> notes;  ///< how the run was set up (calibration runs, fits)
  const ManoeuvreMetric* metric(const std::string& name) const;
};

/// The series' columns with units: time, steering-wheel angle, forward speed, yaw rate, lateral
/// acceleration, sideslip angle, roll angle, pitch angle, the centre of mass's x and y, heading,
/// the suspension's roll of the front and the rear axle (the body's roll against the line
/// through the axle's wheel centres: the body's roll less what the tyres' deflection gives), and
/// each axle's lateral load transfer (half the right tyre's load less the left's), and each
/// axle's steer angle against the vehicle body (the mean of its tyred wheels' heading lines
/// against the body's heading, positive to the left: the steering wheel's share, compliance and
/// roll steer together).
inline constexpr std::array<const char*, 17> kManoeuvreColumns{
    "time [s]", "steering wheel angle [deg]", "speed [m/s]", "yaw rate [deg/s]", "lateral acceleration [m/s^2]",
    "sideslip angle [deg]", "roll angle [deg]", "pitch angle [deg]", "x [m]", "y [m]", "heading [deg]",
    "front suspension roll [deg]", "rear suspension roll [deg]", "front load transfer [N]", "rear load transfer [N]",
    "front steer angle [deg]", "rear steer angle [deg]"};
enum ManoeuvreColumn {
  kmTime, kmSteer, kmSpeed, kmYawRate, kmLateral, kmSideslip, kmRoll, kmPitch, kmX, kmY, kmHeading, kmFrontRoll, kmRearRoll,
  kmFrontTransfer, kmRearTransfer, kmFrontSteer, kmRearSteer
};

/// The manoeuvres' names: "step-steer", "steady-state-circle", "sine-with-dwell", "swept-sine",
/// "double-lane-change", "double-lane-change-limit".
std::vector<std::string> manoeuvreNames();
/// A manoeuvre's parameters with their defaults. @throws std::invalid_argument for an unknown name.
std::vector<ManoeuvreParameter> manoeuvreParameters(const std::string& name);
/// The names of the metrics a manoeuvre reports, in its order (what a target may name).
/// @throws std::invalid_argument for an unknown name.
std::vector<std::string> manoeuvreMetrics(const std::string& name);

/// The vehicle of `project` with `params`' overrides (`body`, `steering input`).
/// @throws std::invalid_argument naming what is missing (no tyres, no steering rack, ...).
VehicleSetup vehicleSetup(const Project& project, const std::map<std::string, double>& params = {});

/// Runs manoeuvre `name` on `project` with parameters `params` (keys of manoeuvreParameters;
/// others are an error naming the known ones). `progress(fraction)` now and then (of the run
/// under way); `cancel` stops it between two steps (std::runtime_error "cancelled"). The
/// project's targets that name this manoeuvre judge its metrics; a target naming a manoeuvre or a
/// metric that does not exist is an error before anything runs.
/// @throws std::invalid_argument (name, parameters, vehicle), ModelError, SimulationError.
ManoeuvreResult runManoeuvre(const Project& project, const std::string& name, const std::map<std::string, double>& params,
                             const std::function<void(double)>& progress = {}, const std::atomic<bool>* cancel = nullptr);

/// The linear single-track (bicycle) model of the vehicle at speed V in a steady turn, built
/// from K&C and tyre data (docs/manoeuvres.md, "Linear bicycle model"): each tyre's slip
/// stiffnesses (Fy and Mz by slip angle and camber) from its formula at its static load and
/// camber; the static loads with the vehicle free on the rig's pads; with the vehicle body held,
/// the compliance steer and camber of every wheel under every wheel's lateral force and aligning
/// torque with the wheel heights held (the run's suspension roll carries all travel), roll steer,
/// roll camber and steering gains. Roll and load transfer, which a bicycle
/// model does not have, enter as gradients per m/s^2 of lateral acceleration (RollInputs).
struct RollInputs {
  double roll = 0.0;                           ///< the body's [rad]: leans the wheels
  double frontRoll = 0.0, rearRoll = 0.0;      ///< the suspension's per axle [rad]: roll steer and camber
  double frontTransfer = 0.0, rearTransfer = 0.0;  ///< lateral load transfer per axle [N]: to the outer tyre
  /// Each wheel's centre's rise against the vehicle body from its position as modelled, at the
  /// run's ride height [m] (model order; empty: the K&C at the position as modelled).
  std::vector<double> travel;
};
struct BicycleModel {
  double understeer = 0.0;       ///< understeer gradient [deg/g]
  double tyresAlone = 0.0;       ///< the same with a rigid suspension and no load transfer [deg/g]
  /// The budget: what each effect alone adds to tyresAlone [deg/g] (the effects couple, so the
  /// parts need not add up to understeer exactly).
  double rollSteer = 0.0, lateralComplianceSteer = 0.0, aligningComplianceSteer = 0.0, camber = 0.0, loadTransfer = 0.0;
  double frontLoad = 0.0, rearLoad = 0.0;            ///< static axle loads [N]
  double frontCornering = 0.0, rearCornering = 0.0;  ///< axle cornering stiffnesses [N/deg]
  /// Each axle's steer angle against the body per lateral acceleration [deg/g]: the mean of its
  /// wheels' g_i delta_H + compliance steer + roll steer.
  double frontSteer = 0.0, rearSteer = 0.0;
  double steeringRatio = 0.0;    ///< overall, kinematic
};
/// @throws ModelError, SimulationError (no design position), std::invalid_argument (a wheel without tyre).
BicycleModel bicycleModel(const Project& project, const VehicleSetup& vehicle, double speed, const RollInputs& roll);

/// The result's parameters, metrics (full precision, units, limits and verdicts) and notes as JSON.
std::string manoeuvreJson(const ManoeuvreResult& result);
/// The time series as CSV (header kManoeuvreColumns), numbers in the C locale's shortest form.
std::string manoeuvreSeriesCsv(const ManoeuvreResult& result);

}  // namespace ek
