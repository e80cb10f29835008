// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file project_document.h
/// The open project of the workbench: the engine's tables, the file they came from, and the undo
/// stack through which every edit goes.

#include <QObject>
#include <QString>
#include <QUndoStack>

#include "engine/model/project.h"
#include "engine/model/table_path.h"

namespace ek::ui {

enum class Table {
  Bodies, Markers, Bushings, P2Ps, Curves, Inputs, LoadCases, Signals, Outputs, Hardpoints, FlexibleBodies, SteeringRacks
};

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

  /// Symmetric editing: an edit of a bushing's or P2P element's value (a cell or an imported
  /// property file) sets its left/right twin's too (the row named with left and right swapped),
  /// in the same undo step; hardpoints move their mirror joint (HardpointModel).
  void setSymmetricEdits(bool on) { symmetric_ = on; }
  bool symmetricEdits() const { return symmetric_; }
  /// The row of `rows` named as row `row` with left and right swapped, -1 when there is none.
  template <typename Row>
  static int twinRow(const std::vector<Row>& rows, int row);

 signals:
  void tableChanged(ek::ui::Table table, int row);  ///< row -1: rows added or removed
  void projectReset();

 private:
  /// The project file and the files it reads, which no export may replace (open_inputs).
  void registerInputs();
  Project project_;
  QString path_;
  QUndoStack undo_;
  bool symmetric_ = false;
};

/// Gives the left/right twin of a force element rows[k] (ProjectDocument::twinRow) rows[k]'s
/// values, keeping the twin's id, name and markers. @returns the twin's index, -1 when none.
template <typename Row>
int copyToTwin(std::vector<Row>& rows, int k) {
  const int t = ProjectDocument::twinRow(rows, k);
  if (t < 0) return -1;
  Row copy = rows[k];
  copy.id = rows[t].id;
  copy.name = rows[t].name;
  copy.markerI = rows[t].markerI;
  copy.markerJ = rows[t].markerJ;
  rows[t] = copy;
  return t;
}

template <typename Row>
int ProjectDocument::twinRow(const std::vector<Row>& rows, int row) {
  const std::string twin = swapSides(rows[row].name);
  if (twin == rows[row].name) return -1;
  for (int r = 0; r < static_cast<int>(rows.size()); ++r)
    if (r != row && rows[r].name == twin) return r;
  return -1;
}

/// Replaces the whole project by `after` as one undo step named `text` (every table notified).
void replaceProject(ProjectDocument* doc, const Project& after, const QString& text);

}  // namespace ek::ui
