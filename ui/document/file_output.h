// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file file_output.h
/// Every file the workbench writes goes through the engine's OutputFile (engine/core/output_file.h):
/// a failure leaves the old file as it was, a symlink's target is replaced, a device is streamed.
/// Documents are drawn into memory first (QBuffer), then written.

#include <QByteArray>
#include <QString>

namespace ek::ui {

/// Writes `bytes` to `path`. @returns empty, or the message naming the path and the reason.
QString writeFileBytes(const QString& path, const QByteArray& bytes, const QString& what);

/// Checks that `path` could be written (engine checkWritable). @returns empty or the message.
QString checkFileWritable(const QString& path, const QString& what);

}  // namespace ek::ui
