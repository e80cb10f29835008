// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file table_models.h
/// One QAbstractTableModel per project table, all built from one generic row model and a list of
/// column descriptions (header with unit, getter, parser). Every edit is a QUndoCommand (repeated
/// edits of one cell merge); an edit the engine's validation rejects is not applied, and the
/// model keeps the message for the view (lastError()).

#include <QAbstractTableModel>
#include <QString>
#include <functional>
#include <memory>
#include <vector>

#include "ui/document/project_document.h"

namespace ek::ui {

/// A table model over one of the document's tables.
class TableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  TableModel(ProjectDocument* doc, Table table);
  Table table() const { return table_; }
  /// The engine's message for the last rejected edit (empty if the last edit was accepted).
  QString lastError() const { return lastError_; }
  /// For reference columns: the existing ids to choose from, as "id: name" (empty: free entry).
  virtual QStringList choices(int column) const = 0;
  /// The cell a diagnostic points at: the row by its key ("id 3" or "'LC1'"), the column by the
  /// engine's field name (the row's first column when no column has it). Invalid: no such row.
  virtual QModelIndex locate(const QString& row, const QString& field) const {
    (void)row, (void)field;
    return {};
  }
  /// The cell as a study's design variable path (docs/studies.md: TABLE/ROW/FIELD; a curve's
  /// cells: curves/ID/scale). Empty when the cell is not a number of a table a study can vary.
  virtual QString cellPath(const QModelIndex& index) const {
    (void)index;
    return {};
  }
  /// Kinds of new row to choose from when adding (e.g. the bushings' joint presets); empty:
  /// just addRow().
  virtual QStringList addVariants() const { return {}; }
  /// Adds a row of variant k of addVariants(); one undoable command.
  virtual bool addRowVariant(int k) {
    (void)k;
    return false;
  }
  /// Row operations, each one undoable command.
  virtual bool addRow() = 0;
  virtual bool duplicateRow(int row) = 0;
  virtual bool removeRowAt(int row) = 0;

 signals:
  void editRejected(const QString& message);

 protected:
  void setError(const QString& message);
  ProjectDocument* doc_;
  Table table_;
  QString lastError_;
};

/// What a column means, for its header's tooltip: from the header's words (a law, a reference,
/// a position, ...) and its unit. Never empty.
QString columnHelp(const QString& header);

/// Creates the model of a table.
std::unique_ptr<TableModel> makeTableModel(ProjectDocument* doc, Table table);

/// Replaces curve `index` by `row` as one undo step, if the engine's validation accepts it.
/// @returns the engine's message when it rejects the curve (nothing changes), else empty.
QString editCurve(ProjectDocument* doc, int index, const CurveRow& row, const QString& what);

/// Replaces bushing `index` by `row` as one undo step, if the engine's validation accepts it.
/// @returns the engine's message when it rejects the row (nothing changes), else empty.
QString editBushing(ProjectDocument* doc, int index, const BushingRow& row, const QString& what);

/// The engine's table name ("bushings", "p2p elements", ...).
const char* tableName(Table table);

}  // namespace ek::ui
