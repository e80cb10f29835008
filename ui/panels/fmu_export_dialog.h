// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file fmu_export_dialog.h
/// File > Export FMU (docs/fmi.md): the project as a co-simulation FMU. The user picks the FMI
/// version, the load case built in (or none), the integrator, its step and how often it
/// linearizes, and the table cells tunable as parameters (one cell path per line, or from a table
/// cell's context menu); the dialog lists the FMU's variables as the importer will see them —
/// name, causality, unit, start value, description — and says what is wrong with the choices
/// before anything is written. Export writes the .fmu through the safe writer.

#include <QDialog>
#include <QString>

#include "engine/model/project.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ek::ui {

class FmuExportDialog : public QDialog {
  Q_OBJECT
 public:
  explicit FmuExportDialog(QWidget* parent = nullptr);

  /// The project to export (the workbench's, as it is now); the choices that still fit it stay.
  void setProject(const Project& project);
  /// A table cell path added to the parameters (once).
  void addParameter(const QString& path);
  /// Writes the FMU to `path`. @returns the error, empty on success (what was written: summary()).
  QString exportTo(const QString& path);

  /// What the user sees, for tests.
  QComboBox* versionChoice() const { return version_; }
  QComboBox* loadCaseChoice() const { return loadCase_; }
  QComboBox* integratorChoice() const { return integrator_; }
  QDoubleSpinBox* stepBox() const { return step_; }
  QSpinBox* linearizeEveryBox() const { return linEvery_; }
  QPlainTextEdit* parametersEdit() const { return parameters_; }
  QCheckBox* sourcesCheck() const { return sources_; }
  QTableWidget* variablesTable() const { return variables_; }
  QLineEdit* pathEdit() const { return path_; }
  QPushButton* exportButton() const { return export_; }
  QString summary() const;

 signals:
  /// An FMU was written (for the main window's status bar).
  void exported(const QString& path, const QString& summary);

 private:
  /// The variables and the summary for the choices now; the Export button only when they are valid.
  void refresh();
  QStringList parameterPaths() const;

  Project project_;
  QComboBox *version_, *loadCase_, *integrator_;
  QDoubleSpinBox* step_;
  QSpinBox* linEvery_;
  QPlainTextEdit* parameters_;
  QCheckBox* sources_;
  QTableWidget* variables_;
  QLabel* summary_;
  QLineEdit* path_;
  QPushButton* export_;
};

}  // namespace ek::ui
