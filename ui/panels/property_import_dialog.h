// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file property_import_dialog.h
/// Edit > Import: a preview of what an Adams property file would change, before it is applied
/// (docs/import.md): the file's type and units, a table of every law it sets with the element's
/// law now and the file's, each law plotted (the file's against the current one, in the display
/// units), and what the file holds that is not imported. Apply puts it into the project as one
/// undo step; Cancel changes nothing.

#include <QDialog>
#include <QStringList>
#include <vector>

#include "engine/model/adams_import.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace ek::ui {

class PropertyImportDialog : public QDialog {
  Q_OBJECT
 public:
  /// `before`: the project now; `result`: it with the file imported onto the element.
  PropertyImportDialog(const Project& before, const PropertyImport& result, ImportTarget target, int id,
                       const QString& path, QWidget* parent = nullptr);

  /// What the user sees, for tests: the laws listed, the plot of the law chosen, the notes.
  QTableWidget* lawTable() const { return table_; }
  QComboBox* lawChoice() const { return choice_; }
  QCustomPlot* plot() const { return plot_; }
  QString notes() const;
  int lawCount() const { return static_cast<int>(laws_.size()); }

 private:
  /// One law the file sets: the element's before and after (a curve id in its project, or a constant).
  struct Law {
    QString name, unit, xUnit;  ///< "x stiffness", "N", "m" (the plot's axes)
    QString coefficientUnit;    ///< of a constant: "N/m", "N s/m", "N m s/rad"
    LawRow before, after;
  };
  void showLaw(int k);

  Project before_, after_;
  std::vector<Law> laws_;
  QTableWidget* table_;
  QComboBox* choice_;
  QCustomPlot* plot_;
  QLabel* header_;
  QPlainTextEdit* notes_;
};

}  // namespace ek::ui
