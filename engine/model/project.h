// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file project.h
/// The project tables exactly as the user edits them and the project file stores them
/// (docs/project-format.md): rows joined only by ids. No derived data lives here.

#include <array>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/types.h"
#include "engine/fe/floating_frame.h"

namespace ek {

struct BodyRow {
  int id = 0;
  std::string name;
  bool fixed = false;          ///< ground / vehicle body / test rig: no degrees of freedom
  std::string subsystem;       ///< free text used for grouping and colouring
  double mass = 0.0;           ///< [kg], free bodies only
  Vec3 com = Vec3::Zero();     ///< centre of mass in the body frame [m]
  /// Inertia about the centre of mass in body axes: Ixx, Iyy, Izz, Ixy, Ixz, Iyz [kg m^2]
  /// (products of inertia as the tensor's off-diagonal entries, I = [Ixx Ixy Ixz; ...]).
  std::array<double, 6> inertia{};
  Vec3 position = Vec3::Zero();     ///< body frame origin in the global frame [m]
  Vec3 orientation = Vec3::Zero();  ///< Cardan angles (alpha_z, alpha_y', alpha_x'') [rad]
  Vec3 velocity = Vec3::Zero();         ///< initial velocity of the centre of mass, global [m/s]
  Vec3 angularVelocity = Vec3::Zero();  ///< initial angular velocity, body frame [rad/s]
  bool operator==(const BodyRow&) const = default;
};

/// The inertia tensor of BodyRow::inertia.
inline Mat3 inertiaTensor(const std::array<double, 6>& i) {
  Mat3 I;
  I << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  return I;
}

struct MarkerRow {
  int id = 0;
  std::string name;
  int body = 0;
  Vec3 position = Vec3::Zero();     ///< in the body frame [m]
  Vec3 orientation = Vec3::Zero();  ///< Cardan angles relative to the body frame [rad]
  bool operator==(const MarkerRow&) const = default;
};

/// A body reduced from a finite-element model outside Elastokin (`elastokin-sim --import-fe`):
/// its floating-frame data as stored; its nodes are the interfaces' reference nodes (relative to
/// the centre of mass, body axes), node k carried by marker interfaceMarkers[k].
struct ReducedBodyRow {
  std::string source;                 ///< what it was reduced from, for the reader
  std::vector<int> interfaceMarkers;  ///< marker id per reference node
  fe::ModalBody modal;
  bool operator==(const ReducedBodyRow& o) const {
    return source == o.source && interfaceMarkers == o.interfaceMarkers && fe::sameModalData(modal, o.modal);
  }
};

/// A free body made flexible (docs/flexible-bodies.md): a chain of straight 3D beam elements along
/// `points` (the body frame), one section and material, reduced by Craig-Bampton onto the nodes
/// that carry the body's markers (each marker rides on its nearest node, the offset a rigid arm)
/// plus `modes` fixed-interface normal modes. The body's mass, centre of mass and inertia are the
/// beams' (the body row's must be left 0). With `reduced` the body comes from an FE model instead.
struct FlexibleBodyRow {
  int id = 0;
  std::string name;
  int body = 0;                     ///< the free body it makes flexible
  std::vector<Vec3> points;         ///< the beam axis, body frame [m], at least two
  int elementsPerSegment = 4;       ///< elements between two consecutive points
  Vec3 up = Vec3::UnitZ();          ///< fixes the section's local y axis (z = axis x up), body frame
  fe::BeamSection section;          ///< SI: m^2, m^4, m^6
  fe::BeamMaterial material;        ///< Pa, kg/m^3
  int modes = 6;                    ///< fixed-interface normal modes kept
  /// Hz, > 0: the elastic modes of the reduced body above it are left out (0: all kept)
  double maxFrequency = 0.0;
  /// Modal damping (docs/flexible-bodies.md): c_k = 2 zeta_k omega_k + alpha + beta omega_k^2 of
  /// elastic mode k, zeta_k from `dampingRatios` if given, else `dampingRatio`; alpha and beta the
  /// proportional damping C = alpha M + beta K.
  double dampingRatio = 0.01;         ///< modal damping ratio of every elastic mode
  std::vector<double> dampingRatios;  ///< per elastic mode by rising frequency; replaces dampingRatio
  double massDamping = 0.0;           ///< alpha [1/s]
  double stiffnessDamping = 0.0;      ///< beta [s]
  /// Set: the body comes reduced from an FE model and the beam fields above are not used.
  std::optional<ReducedBodyRow> reduced;
  bool operator==(const FlexibleBodyRow& o) const {
    auto sec = [](const fe::BeamSection& s) {
      return std::array<double, 7>{s.area, s.iy, s.iz, s.torsion, s.warping, s.shearY, s.shearZ};
    };
    auto mat = [](const fe::BeamMaterial& m) {
      return std::array<double, 3>{m.youngsModulus, m.shearModulus, m.density};
    };
    return id == o.id && name == o.name && body == o.body && points == o.points &&
           elementsPerSegment == o.elementsPerSegment && up == o.up && sec(section) == sec(o.section) &&
           mat(material) == mat(o.material) && modes == o.modes && maxFrequency == o.maxFrequency &&
           dampingRatio == o.dampingRatio && dampingRatios == o.dampingRatios && massDamping == o.massDamping &&
           stiffnessDamping == o.stiffnessDamping && reduced == o.reduced;
  }
};

/// A force law of one direction as stored: a constant coefficient or a curve id.
struct LawRow {
  double coefficient = 0.0;
  std::optional<int> curve;
  bool operator==(const LawRow&) const = default;
};

/// A Maxwell branch of a viscoelastic bushing direction: a spring k in series with a damper c
/// (paper 002 eqs. 4-5). Its spring's deflection x_k is a state: x_k' = x' - (k / c) x_k; the
/// branch adds k x_k to the direction's force.
struct MaxwellBranchRow {
  double stiffness = 0.0;  ///< k [N/m] or [N m/rad], > 0
  double damping = 0.0;    ///< c [N s/m] or [N m s/rad], > 0
  bool operator==(const MaxwellBranchRow&) const = default;
};

struct BushingDirectionRow {
  LawRow stiffness;  ///< force vs deflection [N/m] or [N m/rad]; the static stiffness k0 with branches
  LawRow damping;    ///< force vs deflection rate [N s/m] or [N m s/rad]
  double preload = 0.0;  ///< force on marker I at zero deflection, J frame [N] or [N m]
  std::vector<MaxwellBranchRow> maxwell;  ///< generalized Maxwell branches (none: elastic + damper)
  /// Branch stiffness k_i S'(x) / S'(0) (and relaxation rate likewise): the branches follow the
  /// static curve's local slope (docs/method.md, "Maxwell branches"). Off: constant k_i.
  bool maxwellScaledBySlope = false;
  bool operator==(const BushingDirectionRow&) const = default;
};

inline constexpr std::array<const char*, 6> kBushingDirections{"x", "y", "z", "rx", "ry", "rz"};

struct BushingRow {
  int id = 0;
  std::string name;
  int markerI = 0;
  int markerJ = 0;
  std::array<BushingDirectionRow, 6> directions{};  ///< x, y, z, rx, ry, rz in marker J's frame
  bool operator==(const BushingRow&) const = default;
};

struct StopRow {
  double clearance = 0.0;  ///< travel from the free length before the stop engages [m]
  LawRow law;              ///< force vs penetration beyond the clearance [N]
  bool operator==(const StopRow&) const = default;
};

struct P2PRow {
  int id = 0;
  std::string name;
  int markerI = 0;
  int markerJ = 0;
  std::optional<double> freeLength;  ///< [m]; absent: the distance of the markers as modelled
  double preload = 0.0;              ///< tension at the free length [N]
  LawRow spring;                     ///< tension vs extension [N]
  LawRow damper;                     ///< tension vs extension rate [N]
  std::optional<StopRow> bumpStop;     ///< engages in compression
  std::optional<StopRow> reboundStop;  ///< engages in extension
  bool operator==(const P2PRow&) const = default;
};

/// A steering rack driven by the steering-wheel angle (docs/steering.md): the rack (marker I's
/// body) is pulled along marker J's z axis (J on the housing: subframe or vehicle body) towards
/// the travel the angle gives through the ratio, through the column's torsional compliance.
/// With g = s - s0 - ratio u (s = (p_I - p_J) . z_J, s0 its value as modelled, u the angle) the
/// force on the rack is -(k g + c g') z_J at p_I with k = column stiffness / ratio^2 and c =
/// column damping / ratio^2; the reaction acts on J's body at p_I. The column's torque, which the
/// driver holds, is ratio times that force.
struct SteeringRackRow {
  int id = 0;
  std::string name;
  int input = 0;     ///< the steering-wheel angle: a rotation input (it turns the steering wheel's body)
  int markerI = 0;   ///< on the rack
  int markerJ = 0;   ///< on the housing; its z axis is the rack's axis
  double ratio = 0.0;            ///< rack travel per steering-wheel angle [m/rad] (the pinion radius), != 0
  double columnStiffness = 0.0;  ///< torsional, column and torsion bar in series [N m/rad], > 0
  double columnDamping = 0.0;    ///< torsional [N m s/rad], >= 0
  /// A variable ratio instead of `ratio`: the curve of the rack's travel [m] against the
  /// steering-wheel angle [rad]; its slope is the ratio (docs/steering.md, "Variable ratio").
  std::optional<int> travelCurve;
  bool operator==(const SteeringRackRow&) const = default;
};

struct CurveRow {
  int id = 0;
  std::string name;
  std::string interpolation = "pchip";
  std::string extrapolation = "linear";
  std::vector<std::array<double, 2>> points;
  bool operator==(const CurveRow&) const = default;
};

/// Force and torque load a body (eq. 2b h_u); translation and rotation prescribe the motion of
/// the marker's fixed body (a driven rig body: a K&C wheel pad, a road profile, a steering rack).
enum class InputKind { Force, Torque, Translation, Rotation };
enum class InputFrame { Global, Marker };

inline bool isMotion(InputKind k) { return k == InputKind::Translation || k == InputKind::Rotation; }
/// "force", "torque", "translation", "rotation"
const char* inputKindName(InputKind k);
/// Unit of the input's value: N, N m, m or rad.
const char* inputUnit(InputKind k);

/// An input channel u_i along a fixed direction: a force or torque at a marker, or a
/// displacement (u * direction) or a rotation (u about the unit direction through the marker)
/// of the marker's fixed body from its pose as modelled.
struct InputRow {
  int id = 0;
  std::string name;
  int marker = 0;
  InputKind kind = InputKind::Force;
  InputFrame frame = InputFrame::Global;
  Vec3 direction = Vec3::UnitX();
  bool operator==(const InputRow&) const = default;
};

enum class WheelSide { Left, Right };

/// A wheel: the body that spins, where its centre and spin axis are, how it is carried and the
/// tyre's unloaded radius. Alignment channels and K&C analyses refer to wheels (docs/analyses.md).
struct WheelRow {
  int id = 0;
  std::string name;
  int marker = 0;    ///< on the wheel body, at the wheel centre; its x axis is the spin axis
  int carrier = 0;   ///< body carrying the wheel bearing (knuckle, wheel mount): reacts brake torque
  double radius = 0.0;  ///< unloaded tyre radius [m]
  WheelSide side = WheelSide::Left;
  /// Steering (kingpin) axis through two markers on the carrier side, upper first (e.g. the
  /// ball joints); absent: caster, kingpin inclination, scrub radius and trail are not defined.
  std::optional<std::array<int, 2>> steeringAxis;
  /// Without steering-axis markers (a multilink): the motion input that steers the wheel (a
  /// rack's translation or rotation); the K&C analyses then take the steering axis as the
  /// carrier's instantaneous screw axis under that input, wheel heights held (docs/analyses.md).
  std::optional<int> steeringInput;
  /// A Magic Formula tyre on the road (docs/tyres.md): its .tir file (relative to the project's
  /// folder); empty: no tyre (the wheel is only a K&C reference). The wheel then spins as a state
  /// of its own and carries two contact deflections.
  std::string tyre;
  double spinInertia = 0.0;      ///< of the spinning parts about the axis [kg m^2]; 0: the file's IYY
  double lowSpeedDamping = 0.0;  ///< k_low0 of the tyre below VXLOW [N s/m]
  double roadHeight = 0.0;       ///< the road plane z = roadHeight under the wheel [m]
  /// With a tyre: torque inputs that drive and brake the wheel's spin (docs/tyres.md). Each
  /// reacts on the body of its input's marker (drive: the differential's or the vehicle's body,
  /// or the hub for a wheel motor; brake: the carrier, or the differential for inboard brakes).
  std::optional<int> driveInput;  ///< u [N m], positive drives forwards
  std::optional<int> brakeInput;  ///< u >= 0 [N m], the brake's torque capacity
  bool operator==(const WheelRow&) const = default;
};

/// Vehicle data the anti-dive / anti-lift metrics need (Adams/Car's suspension parameters).
struct VehicleRow {
  bool frontAxle = true;        ///< the suspension is the front (true) or the rear axle
  double wheelbase = 2.7;       ///< [m]
  double cgHeight = 0.55;       ///< centre of gravity above the ground [m]
  double frontBrakeShare = 0.65;  ///< share of the braking force on the front axle, 0..1
  double frontDriveShare = 0.0;   ///< share of the drive force on the front axle, 0..1
  /// Brakes of this axle inboard (at the differential or the subframe: the brake torque reacts on
  /// the vehicle through the drive shaft, the braking force acts through the wheel centre) instead
  /// of outboard (in the wheel: the carrier reacts it, the force acts at the carrier-fixed point at
  /// the contact patch).
  bool inboardBrakes = false;
  /// For the vehicle's roll gradient (optional: a sprung mass of 0 leaves it out): the sprung mass,
  /// the share of it on the front axle, and the other axle's roll stiffness and roll centre height.
  double sprungMass = 0.0;                ///< [kg]
  double frontMassShare = 0.5;            ///< 0..1
  double otherAxleRollStiffness = 0.0;    ///< [N m/deg]
  double otherAxleRollCentreHeight = 0.0; ///< above the ground [m]
  bool operator==(const VehicleRow&) const = default;
};

enum class SignalType { Constant, Step, Ramp, Sine, Chirp, Table, Bump };

/// A scalar time signal. Parameters not used by a type stay at their defaults.
struct SignalRow {
  SignalType type = SignalType::Constant;
  double value = 0.0;       ///< constant value; value before step/ramp/sine/chirp start (offset)
  double value2 = 0.0;      ///< step/ramp: value after
  double t0 = 0.0;          ///< step time, ramp/sine/chirp start [s]
  double t1 = 0.0;          ///< ramp/chirp end [s]
  double amplitude = 0.0;   ///< sine/chirp; bump height
  double frequency = 0.0;   ///< sine frequency, chirp start frequency [Hz]
  double frequency2 = 0.0;  ///< chirp end frequency [Hz]
  double phase = 0.0;       ///< sine phase [rad]
  std::string file;         ///< table: CSV file (time, value), relative to the project file
  /// table: the points loaded from `file` (not stored in JSON); without a file, points given in
  /// memory (a manoeuvre's steering profile, engine/analysis/manoeuvre.h)
  std::vector<std::array<double, 2>> table;
  bool operator==(const SignalRow& o) const {
    return type == o.type && value == o.value && value2 == o.value2 && t0 == o.t0 && t1 == o.t1 &&
           amplitude == o.amplitude && frequency == o.frequency && frequency2 == o.frequency2 &&
           phase == o.phase && file == o.file;
  }
};

enum class InitialState { Equilibrium, AsModelled };

/// A driver that holds a vehicle's speed (docs/steering.md, "Speed follower"): before every step
/// it sets its drive inputs, shared equally, to gain (speed - V), V the forward speed of the
/// vehicle body's centre of mass (along the body's x axis). A proportional law with no state:
/// it settles gain / (m R) per second and leaves the driving resistance's torque / gain of speed.
struct SpeedFollowerRow {
  int body = 0;                  ///< the vehicle body (free)
  double speed = 0.0;            ///< the speed to hold [m/s]
  std::vector<int> driveInputs;  ///< torque inputs that are wheels' drive inputs
  double gain = 0.0;             ///< total drive torque per speed error [N m s/m], > 0
  /// From this time on [s] the driver lifts off: the drive inputs are held at zero (infinite: never)
  double until = std::numeric_limits<double>::infinity();
  bool operator==(const SpeedFollowerRow&) const = default;
};

/// A driver that steers a vehicle along a path (docs/steering.md, "Path follower"): before every
/// step it sets the steering-wheel angle to gain times the curvature of the arc that leaves the
/// vehicle body's centre of mass along its heading and passes through the preview point, the
/// point of the path `preview time` times the forward speed (at least `minimum preview`) ahead
/// of the path's point nearest to the centre of mass (pure pursuit). With a reaction time it acts
/// on what it saw that long before (rounded to the run's step; before the run it held its first
/// command).
struct PathFollowerRow {
  int body = 0;                             ///< the vehicle body (free)
  int steeringInput = 0;                    ///< a steering rack's input: the steering-wheel angle
  std::vector<std::array<double, 2>> path;  ///< x, y [m], global; beyond its ends straight on
  double previewTime = 0.0;                 ///< [s], > 0
  double minimumPreview = 0.0;              ///< [m], > 0
  double gain = 0.0;                        ///< steering-wheel angle per curvature [rad m], > 0
  double reactionTime = 0.0;                ///< [s], 0 to 2
  bool operator==(const PathFollowerRow&) const = default;
};

struct LoadCaseRow {
  std::string name;
  double duration = 1.0;  ///< [s]
  InitialState initialState = InitialState::Equilibrium;
  struct Drive {
    int input = 0;
    SignalRow signal;
    bool operator==(const Drive&) const = default;
  };
  std::vector<Drive> drives;
  std::optional<SpeedFollowerRow> speedFollower;  ///< drives its inputs instead of signals
  std::optional<PathFollowerRow> pathFollower;    ///< steers instead of a signal
  bool operator==(const LoadCaseRow&) const = default;
};

enum class OutputQuantity {
  MarkerPosition,      ///< x, y, z [m], global
  MarkerDisplacement,  ///< x, y, z [m], global, from the design position (as modelled)
  MarkerVelocity,      ///< x, y, z [m/s], global
  BodyAngles,          ///< rz, ry, rx: the Cardan angles [rad]
  BodyAngularVelocity, ///< rx, ry, rz [rad/s], body frame
  BushingForce,        ///< x, y, z [N], rx, ry, rz [N m]: on marker I, J frame
  BushingDeflection,   ///< x, y, z [m], rx, ry, rz [rad]
  BushingBranchDeflection,  ///< a Maxwell branch's spring deflection, component direction and branch
                            ///< number ("x1", "rz2": parseBranchComponent) [m] or [rad]
  P2PForce,            ///< tension [N]
  P2PLength,           ///< length [m]
  Input,               ///< the input's value [N] or [N m]
  Wheel,               ///< a wheel's alignment channel (kWheelComponents), ISO 8855 [rad] or [m]
  ErrorEstimate,       ///< the integrator's local error estimate of the step that ended at the sample
                       ///< (kErrorEstimateComponents) [m], [rad], [m/s], [rad/s]; no element
  ModalCoordinate,     ///< an elastic mode of a flexible body (element: its body): component "q3" the
                       ///< coordinate of mode 3 (by rising frequency), "qd3" its rate; the modes are
                       ///< mass-normalized: [m kg^0.5], [m kg^0.5/s]
  Tyre,                ///< a Magic Formula tyre's force, moment, slip or spin (kTyreComponents; element: its
                       ///< wheel), forces and moments in the tyre's ISO W axes at the contact point
  SteeringRack,        ///< a steering rack's travel, force or column (kSteeringRackComponents; element: its id)
};
inline constexpr OutputQuantity kLastOutputQuantity = OutputQuantity::SteeringRack;

/// The component of a modal coordinate output: "q" or "qd" followed by the mode's number from 1.
/// Returns false for any other text.
inline bool parseModalComponent(const std::string& c, int& mode, bool& rate) {
  rate = c.rfind("qd", 0) == 0;
  const std::size_t start = rate ? 2 : (c.rfind("q", 0) == 0 ? 1 : std::string::npos);
  if (start == std::string::npos || start >= c.size() || c.size() - start > 4 || c[start] == '0') return false;
  mode = 0;
  for (std::size_t k = start; k < c.size(); ++k) {
    if (c[k] < '0' || c[k] > '9') return false;
    mode = 10 * mode + (c[k] - '0');
  }
  return mode >= 1;
}

/// Components of the error-estimate quantity: the largest estimated error of any coordinate of
/// each kind (LocalErrorEstimate in dynamics/workspace.h).
inline constexpr std::array<const char*, 4> kErrorEstimateComponents{"position", "angle", "velocity",
                                                                     "angular velocity"};

/// The component of a branch deflection output: a direction (x ... rz) followed by the branch's
/// number from 1 ("x1", "ry3"). Returns false for any other text.
inline bool parseBranchComponent(const std::string& c, int& direction, int& branch) {
  static const char* names[] = {"x", "y", "z", "rx", "ry", "rz"};
  for (int d = 5; d >= 0; --d) {  // rx before x
    const std::string n = names[d];
    if (c.size() <= n.size() || c.compare(0, n.size(), n) != 0) continue;
    const std::string digits = c.substr(n.size());
    if (digits.size() > 4 || digits[0] == '0' || digits.find_first_not_of("0123456789") != std::string::npos) return false;
    direction = d;
    branch = std::stoi(digits);
    return true;
  }
  return false;
}

/// Components of the wheel quantity, in this order (WheelChannel in dynamics/wheels.h).
inline constexpr std::array<const char*, 13> kWheelComponents{
    "toe",      "camber",   "spin",     "centre x", "centre y", "centre z", "contact x",
    "contact y", "contact z", "caster", "kingpin inclination", "scrub radius", "trail"};

/// Components of the tyre quantity, in this order: Fx, Fy, Fz, Mx, My, Mz at the contact point
/// (ISO W axes) [N, N m], the slip ratio kappa [-], slip angle alpha and inclination gamma [rad] the
/// formula sees, the contact's forward speed V_x [m/s], the wheel's spin rate [rad/s] and its
/// effective rolling radius [m] (docs/tyres.md).
inline constexpr std::array<const char*, 12> kTyreComponents{
    "fx", "fy", "fz", "mx", "my", "mz", "slip ratio", "slip angle", "inclination", "speed", "spin rate", "rolling radius"};

/// Components of the steering-rack quantity: the rack's travel along the housing's z axis from
/// its position as modelled [m], the force on the rack along that axis [N], the column's torque
/// (what the driver holds; positive against a positive angle's turn) [N m] and the column's twist
/// (steering-wheel angle minus the angle the rack's travel stands for) [rad].
inline constexpr std::array<const char*, 4> kSteeringRackComponents{"travel", "force", "column torque",
                                                                    "column twist"};

struct OutputRow {
  std::string name;
  OutputQuantity quantity = OutputQuantity::MarkerPosition;
  int element = 0;        ///< id of the marker, body, bushing, p2p element, input or wheel (0: none)
  std::string component;  ///< x, y, z, rx, ry, rz; empty for scalar quantities
  bool operator==(const OutputRow&) const = default;
};

/// A target (project table `targets`): the range a metric should lie in, in the unit it is
/// reported in: a K&C metric of the design position (docs/analyses.md) or, with `manoeuvre`, a
/// manoeuvre's metric (docs/manoeuvres.md).
struct TargetRow {
  int id = 0;
  std::string metric;                  ///< the metric's name as the K&C analyses or the manoeuvre list it
  std::string manoeuvre;               ///< empty: a K&C metric; else the manoeuvre whose metric it is
  std::string wheel;                   ///< a wheel's name; empty: every wheel of a per-wheel metric, or the axle's
  std::optional<double> lower, upper;  ///< at least one
  std::string note;
  bool operator==(const TargetRow&) const = default;
};

struct SimulationDefaults {
  double step = 1e-3;        ///< [s]
  int linearizeEvery = 1;    ///< steps between linearizations
  double sampleRate = 1000;  ///< output samples per second [Hz]
  bool operator==(const SimulationDefaults&) const = default;
};

/// Largest number of steps of one run (about 25 days of simulated time at 1 ms).
inline constexpr long long kMaxSteps = 2147483647;
/// Largest number of values a run records (times included): 800 MB of doubles.
inline constexpr long long kMaxRecordedValues = 100000000;

/// All tables of one suspension project.
struct Project {
  std::string name;
  std::string description;
  Vec3 gravity{0.0, 0.0, -9.81};
  SimulationDefaults simulation;
  std::vector<BodyRow> bodies;
  std::vector<MarkerRow> markers;
  std::vector<FlexibleBodyRow> flexibleBodies;
  std::vector<BushingRow> bushings;
  std::vector<P2PRow> p2ps;
  std::vector<SteeringRackRow> steeringRacks;
  std::vector<CurveRow> curves;
  std::vector<InputRow> inputs;
  std::vector<WheelRow> wheels;
  std::optional<VehicleRow> vehicle;
  std::vector<LoadCaseRow> loadCases;
  std::vector<OutputRow> outputs;
  std::vector<TargetRow> targets;
  std::string sourcePath;  ///< file it was read from (for messages and relative paths); not stored
  bool operator==(const Project& o) const {
    return name == o.name && description == o.description && gravity == o.gravity &&
           simulation == o.simulation && bodies == o.bodies && markers == o.markers &&
           flexibleBodies == o.flexibleBodies &&
           bushings == o.bushings && p2ps == o.p2ps && steeringRacks == o.steeringRacks && curves == o.curves && inputs == o.inputs &&
           wheels == o.wheels && vehicle == o.vehicle && loadCases == o.loadCases && outputs == o.outputs &&
           targets == o.targets;
  }
};

}  // namespace ek
