// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file kc.h
/// Quasi-static kinematics & compliance (K&C) analyses (docs/analyses.md): sweeps of static
/// equilibria with the vehicle body fixed, wheel travel driven by the vertical force at each
/// contact point (the wheel pad of a K&C rig), static loads at the contact point or the wheel
/// centre, and the metrics at the design position from the analytic linearization.

#include <atomic>
#include <functional>
#include <limits>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/equilibrium.h"
#include "engine/dynamics/wheels.h"

namespace ek {

enum class KcKind {
  ParallelTravel,  ///< all wheels up and down together
  OppositeTravel,  ///< left wheels up while right wheels go down (roll)
  SingleTravel,    ///< one wheel moves, the others stay at design height
  StaticLoad,      ///< one load on every wheel (or one wheel) swept, vertical forces held at design
  Steering,        ///< a motion input (the rack) swept, wheel centres held at their design heights
};

/// Names as the runner takes them: "parallel-travel", "opposite-travel", "single-travel",
/// "static-load", "steering".
const char* toString(KcKind kind);
bool parseKcKind(const std::string& name, KcKind& kind);

struct KcOptions {
  KcKind kind = KcKind::ParallelTravel;
  double from = -0.08, to = 0.08;  ///< travel [m] (opposite: left wheel's), or load [N] / [N m]
  int points = 161;
  int wheel = -1;                  ///< single travel (required), static load (-1: every wheel)
  int load = kFyContact;           ///< static load: a WheelLoad
  int input = -1;                  ///< steering: the translation or rotation input swept (model index)
  double tolerance = 1e-8;         ///< equilibrium tolerance (acceleration, m/s^2 and rad/s^2)
  /// Travel limit: a point where a bushing's or P2P element's force exceeds this multiple of the
  /// load scale (the largest design vertical wheel load, or the swept load where larger) is the
  /// mechanism's end of travel: flagged, and the sweep goes no further in that direction. A load
  /// scale below 1 N (a model without gravity or preloads) has no limit.
  double forceLimitFactor = 20.0;
  /// Travel limit of a travel or steering sweep: a point where a wheel's vertical pad force has
  /// changed from its design value by more than this multiple of the design wheel load (the
  /// mechanism held against its stops or links at full stretch: 65 kN on a double wishbone's
  /// pad at 200 mm rebound) is flagged, and the sweep goes no further in that direction.
  double padForceLimitFactor = 3.0;
};

/// The sweep an analysis of `kind` takes when none is given, in SI: travel +-80 mm (161 points),
/// a load +-5000 N or N m (21 points), a rack +-50 mm or a rotation input +-30 deg (101 points).
KcOptions defaultKcOptions(KcKind kind, bool rotationInput = false);

/// The present name of a metric renamed when the compliances got the signs of their load
/// directions (2026-11), or null: "toe compliance, braking Fx at contact" (then per +Fx) is
/// "toe compliance, braking (-Fx at contact)" (per braking force, the opposite sign).
const char* renamedKcMetric(const std::string& name);

/// What a metric's positive value means (load direction and sign, ISO 8855 axes), or "" for a
/// metric without one: the "sign" of kcMetricsJson and the tables of docs/analyses.md.
const char* kcMetricSign(const std::string& name);

/// A derived figure: the wheel it belongs to (empty for the axle), its value and unit.
struct KcMetric {
  std::string name, wheel, unit;
  double value = 0.0;
};

struct KcResult {
  std::string sweepName, sweepUnit;
  std::vector<std::string> columns, units;  ///< per point: every wheel's channels and forces, then the project outputs
  std::vector<double> sweep;                ///< the swept value of each point, ascending
  std::vector<std::vector<double>> values;  ///< values[point][column]
  std::vector<KcMetric> metrics;            ///< at the design position
  int iterations = 0;                       ///< equilibrium iterations over all points
  int subdividedPoints = 0;                 ///< points reached only through smaller steps
  /// Why the sweep ends short of its range (a travel limit, per direction); the flagged point is
  /// the last one of its direction and has 1 in the column "travel limit".
  std::vector<std::string> warnings;
  bool cancelled = false;                   ///< stopped early: the points done so far, no metrics
  /// Index of a column by name, -1 if absent.
  int column(const std::string& name) const;
};

/// The design position: every wheel centre at its height as modelled (or at `heights`, one per
/// wheel: a ride height other than the model's, e.g. a vehicle's on its tyres), held by the
/// vertical force at its contact point, no other load, inputs zero. @throws SimulationError;
/// std::invalid_argument for `heights` of another length than the wheels.
struct KcDesign {
  State state;
  VecX wheelLoads;
  std::vector<double> centreZ;  ///< each wheel centre's height held [m]
};
KcDesign solveDesign(const SuspensionModel& model, double tolerance = 1e-8, const std::vector<double>& heights = {});

/// Metrics at the design position from the analytic linearization (docs/analyses.md): bump
/// steer and camber, wheel rate, roll centre, track and wheelbase change, anti-dive / anti-lift,
/// roll stiffness, toe / camber compliance and wheel-centre compliance per static load.
std::vector<KcMetric> designMetrics(const SuspensionModel& model, const KcDesign& design);

/// The steering axis of a wheel with a steering input (ModelWheel::steeringInput) at an
/// equilibrium: the carrier's instantaneous screw axis under that input with every wheel centre's
/// height held by its vertical contact force. Returns {point on the axis, unit direction (up)};
/// NaN when the carrier does not turn. @throws SimulationError (singular stiffness).
std::pair<Vec3, Vec3> screwSteeringAxis(const SuspensionModel& model, const State& state, const VecX& wheelLoads,
                                        const VecX& u, int wheel);

/// What the K&C rig's pads hold vertically while a wheel is loaded: the vertical contact forces
/// (the wheels move up and down under a lateral force: jacking) or the wheel centres' heights
/// (the pads' forces change instead).
enum class PadsHold { VerticalForces, Heights };

/// Response of the equilibrium to one load of one wheel: d(channel)/d(load) for every channel of
/// every wheel (rows: wheels, columns: WheelChannel), i.e. -C J_r^-1 B with the vertical forces
/// held, or with the wheel centres' heights held by the pads.
MatX wheelCompliance(const SuspensionModel& model, const KcDesign& design, int wheel, int load,
                     PadsHold pads = PadsHold::VerticalForces);

/// Runs a sweep: the design position, then outwards point by point, each equilibrium warm-started
/// from its neighbour. `progress(fraction)` after every point; `cancel` stops between points (the
/// result then holds the points done, around the design position, and no metrics).
/// @throws SimulationError naming the point that did not converge; std::invalid_argument for
/// options that do not fit the model (no wheels, wheel out of range, fewer than 2 points).
KcResult runKc(const SuspensionModel& model, const KcOptions& options,
               const std::function<void(double)>& progress = {}, const std::atomic<bool>* cancel = nullptr);

/// A project target (TargetRow) against the metrics: one check per wheel it applies to.
struct TargetCheck {
  enum class Status { Met, Missed, NoMetric };
  int id = 0;
  std::string metric, wheel, unit, note;
  std::optional<double> lower, upper;
  double value = std::numeric_limits<double>::quiet_NaN();
  Status status = Status::NoMetric;
  std::string message;  ///< NoMetric: why (an unknown or renamed metric, a wheel without it)
  bool met() const { return status == Status::Met; }
};
const char* toString(TargetCheck::Status status);  ///< "met", "missed", "no metric"

/// Checks every target of the project against the metrics of the design position, in the
/// table's order: a target without a wheel applies to every wheel that has the metric (or to the
/// axle's metric). A value that is not finite misses every range. Targets of a manoeuvre's
/// metric are left to runManoeuvre (manoeuvre.h).
std::vector<TargetCheck> checkTargets(const Project& project, const std::vector<KcMetric>& metrics);

/// Whether `value` lies in a target's range, bounds included (a value that is not finite misses).
inline bool withinTarget(double value, const std::optional<double>& lower, const std::optional<double>& upper) {
  return std::isfinite(value) && (!lower || value >= *lower) && (!upper || value <= *upper);
}

/// "[lower, upper] unit", "at least lower unit", "at most upper unit".
std::string targetRange(const TargetCheck& check);
std::string targetRange(const std::optional<double>& lower, const std::optional<double>& upper, const std::string& unit);

/// Writes the sweep as CSV (RFC 4180, header "name [unit]"), through a temporary file.
/// @throws IoError.
void writeKcCsv(const KcResult& result, const std::string& path);

/// The metrics as JSON, every value to full precision (the shortest text that reads back
/// exactly): {"analysis": ..., "sweep": {"name", "unit"}, "metrics": [{"name", "wheel", "unit",
/// "sign", "value"}, ...], "targets": [{"id", "metric", "wheel", "unit", "lower", "upper", "value",
/// "status", "note"}, ...]} (elastokin-sim --metrics; "targets" when there are any). A value that
/// is not finite is null.
std::string kcMetricsJson(const KcResult& result, const std::string& analysis,
                          const std::vector<TargetCheck>& targets = {});

}  // namespace ek
