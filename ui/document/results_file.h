// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file results_file.h
/// The session's runs saved beside the project ("<project>.results.json", docs/project-format.md,
/// "Results beside the project") and read back: per run its number, load case, start, what
/// changed, whether it is shown, why it stopped, the project it ran (as a project object) and
/// every channel's samples with exact numbers.

#include <QString>
#include <vector>

#include "ui/document/run_history.h"

namespace ek::ui {

/// "<dir>/<name>.results.json" for "<dir>/<name>.json".
QString resultsPathFor(const QString& projectPath);

/// Writes the runs (temporary file, then renamed over the target). @returns an error text or empty.
QString writeRuns(const QString& path, const std::vector<RunRecord>& runs);

/// Reads runs written by writeRuns. @returns an error text naming the file and the field (runs
/// stay empty then), or empty.
QString readRuns(const QString& path, std::vector<RunRecord>& runs);

}  // namespace ek::ui
