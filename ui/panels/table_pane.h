// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file table_pane.h
/// The workbench's left pane: one tab per project table (ui/document/table_models.h) with Add /
/// Duplicate / Delete and the signal form, the message of a rejected edit, and the problems list
/// that leads to the cells it names. A view's scroll position and current cell are kept across
/// edits of its table.

#include <QWidget>
#include <memory>
#include <vector>

#include "ui/document/table_models.h"

class QLabel;
class QPushButton;
class QTabWidget;
class QTableView;

namespace ek::ui {

class ProblemsPanel;

class TablePane : public QWidget {
  Q_OBJECT
 public:
  explicit TablePane(ProjectDocument* doc, QWidget* parent = nullptr);
  ~TablePane() override;

  /// New models and views for the document's project (a new or other project).
  void rebuild();
  TableModel* model(Table t) const;
  QTableView* view(Table t) const;
  /// The table of the current tab and its view.
  Table currentTable() const;
  QTableView* currentView() const;
  /// The id in column 0 of the current row of the current tab, -1 when none is current.
  int currentId() const;
  /// Selects the row of a body or force element.
  void select(Table table, int id);
  /// Shows the table cell a diagnostic names (engine table name, row key, field); false if none.
  bool goToCell(const QString& table, const QString& row, const QString& field);
  /// Shows the tab with this title ("Bodies", "Signals", ...).
  void showTable(const QString& title);
  /// The line under the tables: why the tables do not build a model, or the last rejected edit.
  void setError(const QString& text);
  QLabel* errorLabel() const { return error_; }
  ProblemsPanel* problems() const { return problems_; }

 signals:
  void designVariableRequested(const QString& path);
  void fmuParameterRequested(const QString& path);
  /// The user moved to the row of this bushing.
  void bushingRowChanged(int id);
  void editRejected(const QString& message);
  /// An error to show in a dialog (title, text).
  void problem(const QString& title, const QString& text);

 private:
  void editSignalOfCurrentRow();

  ProjectDocument* doc_;
  std::vector<std::unique_ptr<TableModel>> models_;
  QTabWidget* tabs_;
  QLabel* error_;
  ProblemsPanel* problems_;
  QPushButton* symmetric_;
};

}  // namespace ek::ui
