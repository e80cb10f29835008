// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file flexible_import_dialog.h
/// File > Import FE model or SID file: a preview of what a SID file or a CalculiX model would make of a
/// body, before it is applied (docs/import.md): the file's nodes and degrees of freedom, the body's
/// mass now and from the file, the elastic modes kept with their frequencies, the node or node set
/// each marker of the body rides on, and what was derived or left out. Apply puts it into the project as one
/// undo step; Cancel changes nothing.

#include <QDialog>

#include "engine/model/fe_import.h"

class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace ek::ui {

class FlexibleImportDialog : public QDialog {
  Q_OBJECT
 public:
  FlexibleImportDialog(const FeImport& result, int bodyId, const QString& path, QWidget* parent = nullptr);

  /// What the user sees, for tests.
  QString header() const;
  QTableWidget* modeTable() const { return modes_; }
  QTableWidget* markerTable() const { return markers_; }
  QString notes() const;

 private:
  QLabel* header_;
  QTableWidget* modes_;
  QTableWidget* markers_;
  QPlainTextEdit* notes_;
};

}  // namespace ek::ui
