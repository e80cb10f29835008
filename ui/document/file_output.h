// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file file_output.h
/// Every file the workbench writes goes through the engine's OutputFile (engine/core/output_file.h):
/// a failure leaves the old file as it was, a symlink's target is replaced, a device is streamed.
/// Documents are drawn into memory first (QBuffer), then written.

#include <QByteArray>
#include <QString>
#include <string>
#include <vector>

namespace ek::ui {

/// The files the open projects read (each project file and the files it reads), which no export
/// of the workbench replaces: compared by identity (engine sameFile: links, hard links, "..").
/// A ProjectDocument keeps its own entry current; every export checks clash() first.
namespace open_inputs {
/// Sets (replaces) the files `owner` reads; an empty list removes the entry.
void set(const void* owner, const std::vector<std::string>& paths);
/// Empty, or the message saying that `path` is one of them and that exports never replace it.
QString clash(const QString& path);
}  // namespace open_inputs

/// Writes `bytes` to `path` (refused when it is an open project's input, open_inputs::clash()).
/// @returns empty, or the message naming the path and the reason.
QString writeFileBytes(const QString& path, const QByteArray& bytes, const QString& what);

/// Checks that `path` could be written (engine checkWritable). @returns empty or the message.
QString checkFileWritable(const QString& path, const QString& what);

}  // namespace ek::ui
