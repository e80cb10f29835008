// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/project_document.h"

#include <QUndoCommand>

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

namespace {

class ReplaceProjectCommand : public QUndoCommand {
 public:
  ReplaceProjectCommand(ProjectDocument* doc, Project before, Project after, const QString& text)
      : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)) {}
  void redo() override { apply(after_); }
  void undo() override { apply(before_); }

 private:
  void apply(const Project& p) {
    const std::string path = doc_->project().sourcePath;
    doc_->projectForCommand() = p;
    doc_->projectForCommand().sourcePath = path;
    for (Table t : {Table::Bodies, Table::Markers, Table::Bushings, Table::P2Ps, Table::Curves, Table::Inputs,
                    Table::LoadCases, Table::Outputs})
      doc_->notifyChanged(t, -1);
  }
  ProjectDocument* doc_;
  Project before_, after_;
};

}  // namespace

void replaceProject(ProjectDocument* doc, const Project& after, const QString& text) {
  doc->undoStack()->push(new ReplaceProjectCommand(doc, doc->project(), after, text));
}

}  // namespace ek::ui
