// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/project_document.h"

#include "engine/model/model.h"
#include "engine/model/project_io.h"

namespace ek::ui {

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent) {}

void ProjectDocument::reset(Project project, const QString& path) {
  project_ = std::move(project);
  path_ = path;
  undo_.clear();
  undo_.setClean();
  emit projectReset();
}

void ProjectDocument::open(const QString& path) {
  Project p = readProject(path.toStdString());
  validate(p);  // a broken project is reported and the current one kept
  reset(std::move(p), path);
}

void ProjectDocument::saveAs(const QString& path) {
  writeProject(project_, path.toStdString());
  path_ = path;
  project_.sourcePath = path.toStdString();
  undo_.setClean();
}

void ProjectDocument::notifyChanged(Table table, int row) { emit tableChanged(table, row); }

}  // namespace ek::ui
