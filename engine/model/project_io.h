// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file project_io.h
/// Reading and writing the JSON project format (docs/project-format.md,
/// resources/project.schema.json). Reading checks syntax, field names, types and per-row values;
/// cross-references are checked by validate() in validate.h.

#include <string>

#include "engine/model/project.h"

namespace ek {

/// Reads a project file. @throws ModelError naming file, table, row and field (malformed JSON:
/// line and column).
Project readProject(const std::string& path);

/// Parses project text; `path` is used for messages and relative file names only.
Project parseProject(const std::string& text, const std::string& path);

/// Serializes a project to canonical JSON text (stable key order, shortest round-trip numbers).
std::string writeProjectText(const Project& project);

/// The project as a file at `path` must hold it to read the same files: every signal table named
/// relative to the project's file (project.sourcePath; the working directory without one) named
/// relative to path's folder instead, and sourcePath = path. Absolute names and names in a
/// project that stays in its folder are kept as written.
Project relocatedProject(const Project& project, const std::string& path);

/// Writes relocatedProject(project, path) via a temporary file and a rename, so a failure never
/// leaves a half-written project and the saved project reads the files this one reads.
/// @throws ModelError naming the load case and the field when `path` is a file the project reads
/// (it is never replaced); std::runtime_error when the file cannot be written.
void writeProject(const Project& project, const std::string& path);

const char* toString(OutputQuantity q);
const char* toString(SignalType t);

}  // namespace ek
