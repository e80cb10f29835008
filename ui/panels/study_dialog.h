// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file study_dialog.h
/// The workbench's parameter studies (docs/studies.md): design variables picked from table cells
/// (a cell's context menu, "Add as design variable"), criteria from the project's channels, the
/// study type and its settings; a run on all cores on a worker thread with progress and the time
/// left; the results as a sortable table and a plot of any criterion against any variable or
/// criterion; "Apply this design" as one undo step; the study saved and opened as a study file.

#include <QDialog>
#include <atomic>
#include <memory>
#include <thread>

#include "engine/analysis/study_runner.h"
#include "ui/document/project_document.h"

class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ek::ui {

class StudyDialog : public QDialog {
  Q_OBJECT
 public:
  StudyDialog(ProjectDocument* doc, QWidget* parent = nullptr);
  ~StudyDialog() override;

  /// Adds a design variable for a cell path, bounds about its value: +-10 mm for a coordinate,
  /// +-0.05 rad for an angle, x 0.5 to 2 on a log scale for another positive value, else
  /// +-max(1, |value|/2). @returns the engine's message when
  /// the path names no number of the project (nothing is added), else empty.
  QString addVariable(const QString& path);
  /// Adds a criterion on the first channel and load case (edited in the table).
  void addCriterion();
  /// The study file's text of what the dialog shows.
  QString studyText() const;
  /// Fills the dialog from a study file's text; @returns the errors (the dialog is unchanged).
  QString setStudyText(const QString& text, const QString& path);
  /// Starts the study on a worker thread. @returns the study's errors (it does not start), else empty.
  QString run();
  void stop();
  bool running() const { return worker_.joinable(); }
  /// Sets the selected result's design in the project, one undo step. @returns an error, else empty.
  QString applySelectedDesign();

  QTableWidget* variablesTable() const { return variables_; }
  QTableWidget* criteriaTable() const { return criteria_; }
  QTableWidget* resultsTable() const { return results_; }
  QCustomPlot* plot() const { return plot_; }
  QProgressBar* progressBar() const { return progress_; }
  QComboBox* typeBox() const { return type_; }
  QComboBox* plotX() const { return plotX_; }
  QComboBox* plotY() const { return plotY_; }
  QPlainTextEdit* summary() const { return summary_; }
  QLabel* status() const { return status_; }

 signals:
  void studyFinished(bool completed);

 private:
  bool targetsAsLimits_ = false;  ///< the study file's "targets as limits", kept on saving
  void rebuildChoices();
  /// The display-unit factor of variable row `row` (shown = factor x SI).
  double variableFactor(int row) const;
  /// View > Units changed: the variables' shown values follow.
  void unitsChanged();
  /// A row of the results table for a run (the variables in display units).
  void addResultRow(const StudyRecord& r);
  void updateSettings();
  void onRecord(const StudyRecord& record, long long done, long long expected, double secondsLeft);
  void onFinished(const QString& summary, bool completed);
  void replot();
  void resetResults();

  ProjectDocument* doc_;
  QTableWidget* variables_;
  QTableWidget* criteria_;
  QComboBox* type_;
  QComboBox* plan_;
  QSpinBox* points_;
  QSpinBox* seed_;
  QComboBox* algorithm_;
  QComboBox* objective_;
  QSpinBox* maxEvaluations_;
  QDoubleSpinBox* relativeStep_;
  QSpinBox* threads_;
  QPushButton* runButton_;
  QPushButton* stopButton_;
  QPushButton* applyButton_;
  QProgressBar* progress_;
  QLabel* status_;
  QTableWidget* results_;
  QComboBox* plotX_;
  QComboBox* plotY_;
  QCustomPlot* plot_;
  QPlainTextEdit* summary_;
  QString studyPath_;  ///< the study file, once saved or opened
  bool objectiveChosen_ = false;

  std::unique_ptr<StudyContext> context_;  ///< of the running or last study
  std::vector<StudyRecord> records_;
  std::vector<double> resultFactors_;  ///< display-unit factor per variable column of the results
  std::thread worker_;
  std::atomic<bool> stop_{false};
};

}  // namespace ek::ui
