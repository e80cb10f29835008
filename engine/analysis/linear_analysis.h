// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file linear_analysis.h
/// Modes and frequency response from the analytic linearization at an operating point (a static
/// equilibrium, v = 0), docs/analyses.md. With X the body-twist amplitude (dr = K X, dv = jw X),
/// the equations of motion M dv' = J_r dr + J_v dv + b du give
///   (-w^2 M - jw J_v - J_r K) X = b du,
/// solved for many w through one orthogonal Hessenberg reduction of the first-order system
/// matrix S = [[0, K], [M^-1 J_r, M^-1 J_v]] (each frequency then costs O(n^2)).

#include <atomic>
#include <complex>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/dynamics/outputs.h"

namespace ek {

using VecXc = Eigen::VectorXcd;

/// Where the suspension is linearized: a state at rest, the inputs and the K&C wheel loads.
struct OperatingPoint {
  State state;
  VecX u;           ///< nInputs
  VecX wheelLoads;  ///< kWheelLoads per wheel (dynamics/wheels.h)
  std::string description;
};

/// The initial state of a load case (its static equilibrium under the inputs at t = 0, or the
/// pose as modelled) with those inputs. @throws SimulationError, ModelError.
OperatingPoint loadCasePoint(const std::shared_ptr<const SuspensionModel>& model, const std::string& loadCase);

/// The K&C design position (kc.h): wheel centres at their modelled heights, held by the vertical
/// contact forces, which then act as constant forces. @throws SimulationError, std::invalid_argument.
OperatingPoint designPoint(const SuspensionModel& model);

/// The first-order form x' = S x + B du of the linearization at an operating point, with
/// x = (dr, dv / s): S = [[N, s K], [M^-1 J_r / s, M^-1 J_v]]. The velocity half is scaled by
/// s = sqrt(largest |M^-1 J_r|_ii) so that both halves of S have entries of the same size (stiff
/// bushings otherwise put 1e8..1e10 next to 1); eigenvalues do not change.
struct FirstOrderSystem {
  int n = 0;        ///< nDof
  double s = 1.0;   ///< velocity scale [1/s]
  MatX S;           ///< 2n x 2n
  VecX massDiag;    ///< each free body's mass
  std::vector<Mat3> inertia;  ///< each free body's inertia about its centre of mass, body axes
  Workspace ws;     ///< the linearization at the point
  explicit FirstOrderSystem(const SuspensionModel& model) : ws(model) {}
};

/// Linearizes at `point` and fills `sys`. @throws SimulationError naming the first body whose
/// equations are not finite.
void buildFirstOrderSystem(const SuspensionModel& model, const OperatingPoint& point, FirstOrderSystem& sys);

/// One eigenmode. Oscillatory modes come as a conjugate pair; the one with Im(lambda) > 0 is kept.
struct Mode {
  std::complex<double> eigenvalue;  ///< [1/s]
  bool oscillatory = true;
  double frequency = 0.0;        ///< undamped natural frequency |lambda| / 2 pi [Hz]
  double dampedFrequency = 0.0;  ///< Im(lambda) / 2 pi [Hz]; 0 when not oscillatory
  double dampingRatio = 1.0;     ///< -Re(lambda) / |lambda|; 1 when not oscillatory
  /// Shape as state increments dr (nDof: each free body's position and Cardan angles), scaled so
  /// that its largest entry (rotations weighted by 0.1 m) is 1 and real.
  VecXc shape;
  std::vector<double> energy;  ///< kinetic energy share of each free body (sums to 1)
  int dominantBody = -1;       ///< free-body slot with the largest share
  /// A mode shared by two mirror-image halves (a coupled left/right pair: in phase or in
  /// anti-phase): the dominant body's mirror image (its centre of mass at (x, -y, z)) when that
  /// has the same share to 1 %, else -1. The dominant body is then the left one.
  int twinBody = -1;
  bool inPhase = true;  ///< with a twin: the two move as mirror images (vertical motion the same way)
};

/// "wheel left (31 %)", or for a mode shared by mirror images "wheel left + wheel right, in
/// phase (29 % each)": the largest kinetic energy as the runner and the workbench list it.
std::string dominantText(const SuspensionModel& model, const Mode& mode);

struct ModesResult {
  std::vector<Mode> modes;  ///< ascending |lambda|
  int zeroModes = 0;        ///< eigenvalues below 1e-9 |lambda|max: free directions (e.g. wheel spin)
  /// Pairs with one eigenvalue (to 1e-6 relative: halves that do not interact) separated into
  /// the combination with its energy most on the left (y > 0, listed first) and most on the right.
  int separatedPairs = 0;
  std::string point;        ///< the operating point's description
};

/// Eigenvalues and shapes of the linearization at `point`. @throws SimulationError (not finite).
ModesResult computeModes(const SuspensionModel& model, const OperatingPoint& point);

/// What drives a frequency response: a project input (N or N m) or a K&C wheel load.
struct ResponseInput {
  enum class Kind { ProjectInput, WheelLoad };
  Kind kind = Kind::ProjectInput;
  int index = 0;  ///< input index, or wheel index for a wheel load
  int load = 0;   ///< a WheelLoad for Kind::WheelLoad
};

struct FrequencyOptions {
  double from = 0.5, to = 100.0;  ///< [Hz], > 0
  int points = 500;               ///< logarithmically spaced
};

struct FrequencyResponse {
  std::string inputName, inputUnit;
  std::vector<std::string> outputs, units;  ///< output channels and their units
  std::vector<double> frequency;            ///< [Hz]
  /// response[output][k]: complex amplitude of the output per unit input amplitude: an input
  /// a sin(w t) gives the output a |H| sin(w t + arg H).
  std::vector<std::vector<std::complex<double>>> response;
  std::string point;
  bool cancelled = false;  ///< stopped early: the frequencies done so far
  /// Index of the lowest frequency where |response[output]| is largest (to 1e-9 relative).
  std::size_t peak(std::size_t output) const;
};


/// The outputs of a frequency response by default: the project's outputs, then every wheel's
/// alignment channels.
std::vector<Channel> responseChannels(const SuspensionModel& model);

/// Gradients of output channels at a state: dy = Cr dr + Cv dv (rows: channels). Wheel channels
/// are analytic (dynamics/wheels.h); the others are central differences of the channel value
/// (steps 1e-6 m, rad, m/s, rad/s; relative accuracy about 1e-9).
void outputGradients(const SuspensionModel& model, const OperatingPoint& point, const std::vector<Channel>& channels,
                     MatX& Cr, MatX& Cv);

/// Direct dependence of output channels on project input k at the operating point (a marker on
/// a driven body, a bushing to it, the input's own channel): dy = Cu du + Cud du_dot, by central
/// differences (1e-6 m or rad for motion inputs, 1e-3 N or N m for loads).
void inputFeedthrough(const SuspensionModel& model, const OperatingPoint& point, const std::vector<Channel>& channels,
                      int input, VecX& Cu, VecX& Cud);

/// Transfer functions of `channels` to `input` over a log grid. `progress(fraction)` now and
/// then; `cancel` stops between frequencies (the result then holds the frequencies done).
/// @throws SimulationError (not finite, singular at a frequency), std::invalid_argument (options).
FrequencyResponse frequencyResponse(const SuspensionModel& model, const OperatingPoint& point,
                                    const ResponseInput& input, const std::vector<Channel>& channels,
                                    const FrequencyOptions& options, const std::function<void(double)>& progress = {},
                                    const std::atomic<bool>* cancel = nullptr);

/// CSV: frequency [Hz], then per output its magnitude [unit/input unit] and phase [deg].
/// @throws IoError.
void writeFrequencyResponseCsv(const FrequencyResponse& response, const std::string& path);

/// CSV: one row per mode (frequency, damped frequency, damping ratio, eigenvalue, dominant body,
/// energy share per body). @throws IoError.
void writeModesCsv(const SuspensionModel& model, const ModesResult& modes, const std::string& path);

}  // namespace ek
