// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/project_document.h"

#include <QFile>
#include <QUndoCommand>

#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "engine/model/signal.h"
#include "ui/document/file_output.h"

namespace ek::ui {

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent) {}

ProjectDocument::~ProjectDocument() { open_inputs::set(this, {}); }

void ProjectDocument::registerInputs() {
  std::vector<std::string> files;
  if (!path_.isEmpty()) files.push_back(QFile::encodeName(path_).toStdString());
  for (const std::string& f : referencedFiles(project_)) files.push_back(f);
  if (!files.empty() && path_.isEmpty()) files.insert(files.begin(), std::string());  // no project file yet
  open_inputs::set(this, files);
}

void ProjectDocument::reset(Project project, const QString& path) {
  project_ = std::move(project);
  path_ = path;
  registerInputs();
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
  const std::string target = QFile::encodeName(path).toStdString();
  writeProject(project_, target);
  // From its new folder the project names its signal tables relative to it (the same files).
  Project moved = relocatedProject(project_, target);
  const bool renamed = !(moved.loadCases == project_.loadCases);
  project_ = std::move(moved);
  path_ = path;
  if (renamed) undo_.clear();  // an undo would bring back names relative to the old folder
  undo_.setClean();
  registerInputs();
  if (renamed) {
    emit tableChanged(Table::LoadCases, -1);
    emit tableChanged(Table::Signals, -1);
  }
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
                    Table::LoadCases, Table::Outputs, Table::FlexibleBodies, Table::SteeringRacks})
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
