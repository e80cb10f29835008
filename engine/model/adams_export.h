// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file adams_export.h
/// A project's bushing, spring, damper or stop written as the Adams property file of the matching
/// type (bus, spr, dpr, bum, reb) in the units the user chooses, so that tuned elements go back to
/// a full-vehicle model (docs/import.md, "Export"). The inverse of adams_import.h: reading the
/// file back gives the same laws (the same force at every deflection to round-off).

#include <string>
#include <vector>

#include "engine/model/adams_import.h"
#include "engine/model/project.h"
#include "engine/model/property_units.h"

namespace ek {

struct PropertyExport {
  std::string text;                  ///< the file
  PropertyType type = PropertyType::Bushing;
  std::vector<std::string> written;  ///< one line per law written
  std::vector<std::string> leftOut;  ///< what the element has and the file type cannot hold
};

/// "bushing:ID", "spring:ID", "damper:ID", "bumpstop:ID", "reboundstop:ID" (a P2P element's id for
/// the last four). @returns false for anything else.
bool parseExportElement(const std::string& spec, PropertyType& type, int& id);

/// Writes the element as a property file in `units`. A bushing: its six stiffness laws as
/// [FX_CURVE] ... [TZ_CURVE] (a constant as a straight line through zero), damping constants in
/// [DAMPING], damping curves as [FX_DAMPING_CURVE] ..., preloads in [PRELOAD]; Maxwell branches
/// cannot be written (listed in leftOut). A spring: [SPRING_DATA] FREE_LENGTH and [CURVE] {disp
/// force} (compression against compressive force; the preload folded into the curve). A damper:
/// [CURVE] {vel force}. A stop: [CURVE] {disp force} and its CLEARANCE.
/// @throws ModelError naming the element when it does not exist, has no such law, or a law's
///   curve is missing.
PropertyExport exportPropertyFile(const Project& project, PropertyType type, int id, const PropertyUnits& units);

}  // namespace ek
