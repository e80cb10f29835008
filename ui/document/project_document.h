// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file project_document.h
/// The open project of the workbench: the engine's tables, the file they came from, and the undo
/// stack through which every edit goes.

#include <QObject>
#include <QString>
#include <QUndoStack>

#include "engine/model/project.h"

namespace ek::ui {

enum class Table { Bodies, Markers, Bushings, P2Ps, Curves, Inputs, LoadCases, Signals, Outputs, Hardpoints };

class ProjectDocument : public QObject {
  Q_OBJECT
 public:
  explicit ProjectDocument(QObject* parent = nullptr);
  ~ProjectDocument() override;

  const Project& project() const { return project_; }
  /// Mutable access for undo commands only (edits must go through the undo stack).
  Project& projectForCommand() { return project_; }
  QUndoStack* undoStack() { return &undo_; }

  /// Replaces the project (open/new): clears the undo history.
  void reset(Project project, const QString& path);
  /// Loads a file. @throws ModelError (the project stays unchanged).
  void open(const QString& path);
  /// Saves (temporary file + rename). @throws std::runtime_error.
  void saveAs(const QString& path);
  QString path() const { return path_; }
  bool isModified() const { return !undo_.isClean(); }

  /// Called by commands after they changed a table.
  void notifyChanged(Table table, int row);

 signals:
  void tableChanged(ek::ui::Table table, int row);  ///< row -1: rows added or removed
  void projectReset();

 private:
  /// The project file and the files it reads, which no export may replace (open_inputs).
  void registerInputs();
  Project project_;
  QString path_;
  QUndoStack undo_;
};

/// Replaces the whole project by `after` as one undo step named `text` (every table notified).
void replaceProject(ProjectDocument* doc, const Project& after, const QString& text);

}  // namespace ek::ui
