// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/file_output.h"

#include <QFile>

#include "engine/core/error.h"
#include "engine/core/output_file.h"

namespace ek::ui {

QString writeFileBytes(const QString& path, const QByteArray& bytes, const QString& what) {
  try {
    writeFile(QFile::encodeName(path).toStdString(), std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
              what.toStdString());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

QString checkFileWritable(const QString& path, const QString& what) {
  try {
    checkWritable(QFile::encodeName(path).toStdString(), what.toStdString());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace ek::ui
