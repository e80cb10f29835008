// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file bushing_dynamics.h
/// A viscoelastic bushing direction in the frequency domain: its complex (dynamic) stiffness
/// about zero deflection, measured dynamic stiffness read from CSV, and the identification of
/// Maxwell branches from such a measurement by nonlinear least squares (Eigen's
/// Levenberg-Marquardt module; docs/bushing-identification.md).

#include <complex>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/adams_import.h"
#include "engine/model/project.h"

namespace ek {

/// The linear model of one bushing direction about zero deflection: static stiffness k0 (the
/// stiffness law's slope at 0), the direction's damper c0 (the damping law's slope at rate 0)
/// and its Maxwell branches.
struct DirectionDynamics {
  double k0 = 0.0;  ///< [N/m] or [N m/rad]
  double c0 = 0.0;  ///< [N s/m] or [N m s/rad]
  std::vector<MaxwellBranchRow> branches;
  bool rotational = false;
};

/// The direction `direction` (0..5: x ... rz) of bushing `b` of project `p`, its laws evaluated at 0
/// (a curve law: its slope there). @throws ModelError naming the curve when it is missing or invalid.
DirectionDynamics directionDynamics(const Project& p, const BushingRow& b, int direction);

/// K(f) = k0 + j w c0 + sum_i k_i j w c_i / (k_i + j w c_i), w = 2 pi f: the force amplitude per
/// deflection amplitude of a small harmonic deflection (magnitude: dynamic stiffness, argument:
/// loss angle).
std::complex<double> complexStiffness(const DirectionDynamics& d, double frequency);

/// One measured point: frequency [Hz], dynamic stiffness magnitude [N/m or N m/rad] and loss
/// angle [rad], converted to SI from the file's units.
struct StiffnessPoint {
  double frequency = 0.0, magnitude = 0.0, lossAngle = 0.0;
};

struct StiffnessMeasurement {
  std::string path;
  bool rotational = false;  ///< the magnitude's unit was rotational (N m/rad, ...)
  std::vector<StiffnessPoint> points;  ///< in increasing frequency
};

/// Reads a dynamic-stiffness CSV: lines starting with '#' are comments; the first other line is
/// the header, naming the columns "frequency [Hz]", "magnitude [UNIT]" (or "dynamic stiffness
/// [UNIT]"; UNIT one of N/m, N/mm, kN/m, N m/rad, N m/deg, N mm/rad) and "loss angle [deg]" (or
/// [rad]) in any order; further columns are ignored. Every problem of the file (a missing
/// column, a field that is not a finite number, a frequency or magnitude that is not positive, a
/// loss angle outside 0 ... 90 deg, frequencies not increasing, fewer than 3 points) is collected
/// and reported at once with file, line and column.
/// @throws ModelError with every problem found.
StiffnessMeasurement readStiffnessCsv(const std::string& path);
StiffnessMeasurement parseStiffnessCsv(const std::string& text, const std::string& path);

/// Writes a measurement (or a model sampled at its frequencies) in the format read above.
std::string stiffnessCsvText(const StiffnessMeasurement& m, const std::string& comment = {});

struct FitOptions {
  int branches = 2;        ///< number of Maxwell branches, 1 ... 8
  bool fitStatic = true;   ///< also fit k0 (else it stays at `start.k0`, e.g. a curve's slope)
  DirectionDynamics start; ///< k0 (fixed or first guess) and c0 (always fixed); its branches are ignored
};

struct FitResult {
  DirectionDynamics model;       ///< the fitted direction (branches by increasing k/c)
  double rmsMagnitude = 0.0;     ///< RMS relative magnitude error (|K| - |K_m|) / |K_m|
  double rmsLossAngle = 0.0;     ///< RMS loss-angle error [rad]
  double rmsComplex = 0.0;       ///< RMS of |K - K_m| / |K_m|: what was minimized (per point)
  /// Standard errors of the fitted parameters' logarithms (k0 first when fitted, then per branch
  /// log k_i, log(k_i / c_i)), from the residual variance and the Jacobian at the optimum.
  std::vector<double> logStandardErrors;
  int iterations = 0;
  std::string status;  ///< the optimizer's stop reason
};

/// Fits the branches (and k0 when asked) to the measurement: minimizes
/// sum_f |K(f) - K_m(f)|^2 / |K_m(f)|^2 over log k0, log k_i and log(k_i / c_i), so every
/// parameter stays positive, with Levenberg-Marquardt from a linear least-squares start.
/// @throws std::invalid_argument for a branch count outside 1 ... 8 or fewer points than parameters.
FitResult fitMaxwellBranches(const StiffnessMeasurement& m, const FitOptions& options);

/// What a hydro bushing file's identification uses (importHydroBushing).
struct HydroImportOptions {
  int branches = 2;                 ///< Maxwell branches per direction, 1 ... 8
  std::optional<double> amplitude;  ///< the excitation amplitude fitted [m or rad]; default: the smallest
};

struct HydroFit {
  int direction = 2;
  double amplitude = 0.0;
  FitResult fit;
};

struct HydroImport {
  PropertyImport import;  ///< the project with the fitted directions, the summary
  std::vector<HydroFit> fits;
};

/// A hydro bushing file ('hbu', read by readPropertyFile) onto bushing `id`: per direction in the
/// file, the table at the chosen amplitude is fitted with Maxwell branches (fitMaxwellBranches;
/// the direction's static stiffness is fitted too when it is a constant, kept when it is a curve);
/// the branches replace the direction's branches and its damper (the measurement holds all of the
/// direction's damping). The summary gives each fit's RMS
/// magnitude and loss-angle errors and lists the amplitudes not used.
/// @throws ModelError (no such bushing, an amplitude the file does not have, a fit that fails).
HydroImport importHydroBushing(const Project& project, int id, const PropertyData& data, const HydroImportOptions& options);

/// The fit's residual vector (real and imaginary parts of (K - K_m) / |K_m| per point) and its
/// analytic Jacobian with respect to the fit parameters (as in FitResult::logStandardErrors), for
/// the derivative test.
void fitResiduals(const StiffnessMeasurement& m, const FitOptions& options, const Eigen::VectorXd& parameters,
                  Eigen::VectorXd& residuals, Eigen::MatrixXd* jacobian);

}  // namespace ek
