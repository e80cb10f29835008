// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file property_units.h
/// The [UNITS] of an Adams property file: every unit Adams allows for LENGTH, FORCE, ANGLE, MASS
/// and TIME, with its factor to SI; derived units (stiffness, damping, torque) are products of
/// them. Used to read property files into SI and to write them in the units a user chooses.

#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/model/teim_orbit.h"

namespace ek {

enum class UnitKind { Length, Force, Angle, Mass, Time };

struct PropertyUnits {
  double length = 1.0, force = 1.0, angle = 1.0, mass = 1.0, time = 1.0;  ///< SI per file unit
  std::string lengthName = "meter", forceName = "newton", angleName = "radians", massName = "kg", timeName = "second";
  /// "mm, newton, degrees, second" (what a summary prints).
  std::string describe() const;
};

/// The SI factor of a unit name of `kind` ("mm" -> 1e-3); false for an unknown name. Names are
/// case-insensitive; Adams' spellings and common aliases are accepted.
bool unitFactor(UnitKind kind, const std::string& name, double& factor);
/// The names accepted for `kind`, for messages ("'mm', 'cm', 'meter', ...").
std::string knownUnits(UnitKind kind);

/// Reads [UNITS] (null: the file has none): LENGTH and FORCE always, ANGLE when `needAngle`, TIME
/// when `needTime`; MASS when present. Problems go to `diag` with the file's lines.
PropertyUnits readPropertyUnits(const TeimBlock* units, const std::string& path, bool needAngle, bool needTime,
                                Diagnostics& diag);

/// The units of a comma-separated list of names in the order length, force, angle, time (mass
/// optional, fifth): "mm,newton,degrees,second". @throws std::invalid_argument naming the bad name.
PropertyUnits parseUnitList(const std::string& list);

/// The [UNITS] block for these units (names as Adams writes them).
TeimBlock unitsBlock(const PropertyUnits& units);

}  // namespace ek
