// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file adams_import.h
/// Adams/Car property files as real databases hold them (DESIGN.md section 9; docs/import.md):
/// bushings (`bus`), springs (`spr`), dampers (`dpr`), bump stops (`bum`, also `bst`), rebound
/// stops (`reb`) and hydro bushings (`hbu`), read into SI (readPropertyText) and put onto one
/// element of a project (importPropertyFile): tables become curves (new rows of the curves
/// table), constants law coefficients. A hydro bushing's dynamic-stiffness tables are data for the
/// Maxwell identification (analysis/bushing_dynamics.h: importHydroBushing).
///
/// Strict: a file from which nothing usable can be read is an error naming the blocks expected; a
/// value or block given twice, a table and a coefficient for the same direction, a first column
/// that does not increase: errors naming line and block. Every problem of a file is reported at
/// once.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/model/project.h"
#include "engine/model/property_units.h"

namespace ek {

/// The six directions' force names as Adams property files write them (FX_CURVE, FX_DAMPING, ...).
inline constexpr const char* kAdamsForceNames[] = {"FX", "FY", "FZ", "TX", "TY", "TZ"};

enum class PropertyType { Bushing, Spring, Damper, BumpStop, ReboundStop, HydroBushing };
/// "bus", "spr", "dpr", "bum", "reb", "hbu".
const char* propertyTypeName(PropertyType type);

/// A table of a property file in SI, with where it came from.
struct PropertyTable {
  std::vector<std::array<double, 2>> points;
  std::string interpolation = "pchip";  ///< Adams' Akima spline: read as PCHIP (monotone, no overshoot)
  std::string extrapolation = "linear";
  std::string block;  ///< e.g. "FX_CURVE"
  int line = 0;
};

/// A law read from a file: a table or a constant (never both), or nothing.
struct PropertyLaw {
  std::optional<PropertyTable> table;
  std::optional<double> coefficient;
  bool given() const { return table || coefficient; }
};

/// One measured point of a hydro bushing: dynamic stiffness magnitude and loss angle.
struct HydroPoint {
  double frequency = 0.0;  ///< [Hz]
  double magnitude = 0.0;  ///< [N/m] or [N m/rad]
  double lossAngle = 0.0;  ///< [rad]
};

/// A hydro bushing's measurement at one excitation amplitude in one direction.
struct HydroTable {
  int direction = 2;       ///< 0..5: x, y, z, rx, ry, rz
  double amplitude = 0.0;  ///< [m] or [rad]; 0: not given
  std::vector<HydroPoint> points;  ///< increasing frequency
  std::string block;
  int line = 0;
};

/// What a property file holds, in SI.
struct PropertyData {
  std::string path;
  PropertyType type = PropertyType::Bushing;
  PropertyUnits units;
  // bus: x, y, z, rx, ry, rz (force on I from the motion of I relative to J, in J)
  std::array<PropertyLaw, 6> stiffness, damping;
  std::array<std::optional<double>, 6> preload;  ///< [N], [N m]
  std::array<std::optional<double>, 6> offset;   ///< deflection at which the stiffness law is zero [m], [rad]
  // spr, dpr, bum, reb: the file's curve (spring: tension vs extension, already mirrored)
  PropertyLaw law;
  std::optional<double> freeLength;  ///< spr [m]
  std::optional<double> clearance;   ///< bum, reb [m]
  // hbu
  std::vector<HydroTable> hydro;
  std::vector<std::string> leftOut;  ///< blocks and values not imported, and why
  std::vector<Diagnostic> warnings;
};

/// Reads a property file into SI. @throws ModelError with every problem of the file, or naming
/// the file and the blocks expected when nothing usable is in it; IoError when it cannot be read.
PropertyData readPropertyFile(const std::string& path);
PropertyData readPropertyText(const std::string& text, const std::string& path);

enum class ImportTarget { Bushing, P2P };

struct PropertyImport {
  Project project;                   ///< the input project with the element's laws replaced and curves added
  std::vector<Diagnostic> warnings;  ///< values assumed or kept (file and line)
  std::vector<std::string> changes;  ///< one line per law set ("x stiffness: curve 12, 9 points")
  std::vector<std::string> leftOut;  ///< what the file holds that was not imported, and why
  std::string fileType;              ///< bus, spr, dpr, bum, reb or hbu
  std::string units;                 ///< the file's units ("mm, newton, degrees, second, kg")
};

/// Puts `data` onto the bushing (target Bushing) or P2P element (P2P) with id `id`: a bushing's
/// directions (stiffness, damping, preload; an offset shifts the stiffness law); a P2P element's
/// spring and free length, damper, bump stop or rebound stop. Not for hydro bushings (their
/// tables need the identification: importHydroBushing).
/// @throws ModelError naming the element when it does not exist or the type does not fit it, and
///   the project's new errors when the result is not a valid model.
PropertyImport importPropertyData(const Project& project, ImportTarget target, int id, const PropertyData& data);
/// readPropertyFile() and importPropertyData() in one.
PropertyImport importPropertyFile(const Project& project, ImportTarget target, int id, const std::string& path);

/// Checks that `result.project` adds no error to `before` (checks both). @throws ModelError with
/// the new errors, each saying it came from importing `path`.
void checkImportResult(const Project& before, const Project& after, const std::string& path);

}  // namespace ek
