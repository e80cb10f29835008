// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/file_output.h"

#include <QFile>
#include <QObject>
#include <map>
#include <mutex>

#include "engine/core/error.h"
#include "engine/core/output_file.h"

namespace ek::ui {

namespace open_inputs {
namespace {
std::mutex gMutex;
std::map<const void*, std::vector<std::string>> gInputs;
}  // namespace

void set(const void* owner, const std::vector<std::string>& paths) {
  const std::lock_guard<std::mutex> lock(gMutex);
  if (paths.empty()) gInputs.erase(owner);
  else gInputs[owner] = paths;
}

QString clash(const QString& path) {
  const std::string target = QFile::encodeName(path).toStdString();
  const std::lock_guard<std::mutex> lock(gMutex);
  for (const auto& [owner, paths] : gInputs)
    for (const std::string& input : paths)
      if (!input.empty() && sameFile(target, input))
        return QObject::tr("%1 is %2, which an open project reads: an export never replaces it; choose another file")
            .arg(path, input == paths.front() ? QObject::tr("the project file") : QObject::tr("a file (%1)").arg(QString::fromStdString(input)));
  return {};
}
}  // namespace open_inputs

QString writeFileBytes(const QString& path, const QByteArray& bytes, const QString& what) {
  if (const QString c = open_inputs::clash(path); !c.isEmpty()) return c;
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
