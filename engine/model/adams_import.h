// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file adams_import.h
/// Import of Adams/Car-style property files (TeimOrbit text: [BLOCK]s, KEY = value attributes,
/// {label} tables, '$' comments, a [UNITS] block) onto a bushing or a P2P element of a project:
/// bushings (.bus), springs (.spr), dampers (.dpr), bump and rebound stops (.bst, .reb). Tables
/// become curves (new rows of the curves table), values are converted to SI. What is supported,
/// and the sign conventions assumed, are in docs/import.md.

#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/model/project.h"

namespace ek {

enum class ImportTarget { Bushing, P2P };

struct PropertyImport {
  Project project;                   ///< the input project with the element's laws replaced and curves added
  std::vector<Diagnostic> warnings;  ///< blocks not imported, laws kept, values assumed (file and line)
  std::vector<std::string> changes;  ///< one line per law set ("x stiffness: curve 12, 9 points")
  std::string fileType;              ///< bus, spr, dpr, bst or reb
};

/// Imports the property file at `path` onto the bushing (target Bushing) or P2P element (P2P)
/// with id `id` of `project`. The file's FILE_TYPE decides what is set: a bushing's directions
/// (stiffness, damping, preload); a P2P element's spring and free length, damper, bump stop or
/// rebound stop.
/// @throws ModelError with every problem of the file (file, line and reason), or naming the
///   element when it does not exist or the file type does not fit it.
PropertyImport importPropertyFile(const Project& project, ImportTarget target, int id, const std::string& path);
/// The same from the file's text (`path` names it in messages).
PropertyImport importPropertyText(const Project& project, ImportTarget target, int id, const std::string& text,
                                  const std::string& path);

}  // namespace ek
