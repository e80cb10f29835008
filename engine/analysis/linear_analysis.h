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
};

struct ModesResult {
  std::vector<Mode> modes;  ///< ascending |lambda|
  int zeroModes = 0;        ///< eigenvalues below 1e-9 |lambda|max: free directions (e.g. wheel spin)
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
};

/// Every wheel's alignment channels as output channels ("<wheel name> <component>"), those that
/// need a steering axis only where the wheel has one.
std::vector<Channel> wheelOutputChannels(const SuspensionModel& model);

/// Gradients of output channels at a state: dy = Cr dr + Cv dv (rows: channels). Wheel channels
/// are analytic (dynamics/wheels.h); the others are central differences of the channel value
/// (steps 1e-6 m, rad, m/s, rad/s; relative accuracy about 1e-9).
void outputGradients(const SuspensionModel& model, const OperatingPoint& point, const std::vector<Channel>& channels,
                     MatX& Cr, MatX& Cv);

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
