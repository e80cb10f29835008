// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file main_window.h
/// The workbench window: table editors (left), 3D view and live plots (centre), run controls
/// (toolbar) with the simulation on a worker thread, File and Edit menus.

#include <QMainWindow>
#include <QElapsedTimer>
#include <QThread>
#include <QTimer>
#include <memory>
#include <vector>

#include "engine/model/adams_import.h"
#include "ui/project_document.h"
#include "ui/simulation_worker.h"
#include "ui/table_models.h"

class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QTabWidget;
class QAction;

namespace ek::ui {

class AnalysesPanel;
class BushingDynamicsPanel;
class CurveEditor;
class FmuExportDialog;
class ProblemsPanel;
class PlotPanel;
class PropertyImportDialog;
class SparsityView;
class StudyDialog;
class TopologyView;
class View3D;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens a project; on error shows the engine's message and keeps the current project.
  bool openProject(const QString& path, bool showErrors = true);
  /// Imports an Adams property file onto the bushing or P2P element with this id as one undo
  /// step (docs/import.md); the changes and warnings go to the dialog / lastDialogText().
  /// Reads an Adams property file and shows what it would change (PropertyImportDialog) before
  /// it is applied as one undo step; quiet: applied without asking. Errors in a dialog.
  bool importPropertyFile(const QString& path, Table table, int id);
  /// The preview of the last import (kept until the next one), for tests and screenshots.
  PropertyImportDialog* importPreview() const { return importPreview_; }
  /// Writes element `id` (a bushing, or a P2P element's law by `type`) as an Adams property file
  /// in `units` ("mm,newton,degrees,second"). @returns empty, or the message.
  QString exportPropertyFile(const QString& path, ek::PropertyType type, int id, const QString& units);
  ProjectDocument* document() { return doc_; }
  PlotPanel* plots() { return plots_; }
  View3D* view3d() { return view3d_; }
  TableModel* tableModel(Table t);
  QLabel* staleViewLabel() const { return staleView_; }
  QSlider* timeSlider() const { return timeSlider_; }
  QLabel* timeLabel() const { return timeLabel_; }
  QPushButton* playButton() const { return playButton_; }
  /// The run's poses for playback (kPoseRate per simulated second).
  const std::vector<Frame>& frames() const { return frames_; }
  /// Starts a run with the toolbar's settings (duration < 0: the load case's).
  void startRun(double duration = -1.0);
  /// Real-time pacing of the next runs (the toolbar's check box).
  void setRealtime(bool on);
  bool isRunning() const { return running_; }
  QString lastRunMessage() const { return lastMessage_; }
  /// The pacer's summary of the last real-time run (empty after an unpaced run).
  QString lastRealtimeReport() const { return realtimeReport_; }
  /// The last run's local error estimate as the status bar shows it ("error estimate RMS ...").
  QString lastErrorEstimate() const { return errorEstimate_; }
  /// Selects the row of a body or force element in the tables and highlights it in 3D.
  void select(Table table, int id);
  TopologyView* topology() { return topology_; }
  CurveEditor* curveEditor() { return curves_; }
  BushingDynamicsPanel* bushingDynamics() { return dynamics_; }
  SparsityView* sparsity() { return sparsity_; }
  AnalysesPanel* analyses() { return analyses_; }
  ProblemsPanel* problems() { return problems_; }
  const SimulationWorker* worker() const { return worker_; }
  /// Shows the table cell a diagnostic names (engine table name, row key, field); false if none.
  bool goToCell(const QString& table, const QString& row, const QString& field);
  /// Shows the centre tab with this title ("3D", "Plots").
  void showTab(const QString& title);
  /// Shows the table tab with this title ("Bodies", "Signals", ...).
  void showTable(const QString& title);
  /// For tests: dialogs are not shown (their text goes to lastDialogText()).
  void setQuiet(bool quiet) { quiet_ = quiet; }
  /// The parameter study dialog (made on first use; Study menu).
  StudyDialog* studyDialog();
  /// Adds a table cell (its study path, TableModel::cellPath) as a design variable and shows the
  /// study dialog. @returns the engine's message when the cell is not a number, else empty.
  QString addDesignVariable(const QString& path);
  /// File > Export FMU (made on first use, the project as it is now; null when this build has no
  /// FMU, ELASTOKIN_FMU=OFF).
  FmuExportDialog* fmuExportDialog();
  /// Adds a table cell path as a tunable parameter of the FMU and shows the export dialog.
  void addFmuParameter(const QString& path);
  QString lastDialogText() const { return lastDialog_; }
  /// Where the Help menu finds README.md and docs/ (the source tree).
  void setDocsRoot(const QString& root) { docsRoot_ = root; }
  /// The file the Help menu opened last (in quiet mode it is not shown).
  QString lastDocument() const { return lastDocument_; }
  /// A one-time status-bar hint of what to do first (remembered in the settings).
  void showFirstRunHint();
  /// Saves the kept runs beside the project ("<project>.results.json"; reopened with the project).
  /// @returns an error text or empty.
  QString saveResults();

 signals:
  void runFinished(bool completed);

 protected:
  void closeEvent(QCloseEvent* e) override;

 private:
  void buildMenus();
  void buildTables();
  void buildRunBar();
  void rebuildModel();
  bool maybeSave();
  bool save(bool askPath);
  void updateTitle();
  void updateRecent(const QString& path);
  void message(const QString& title, const QString& text, bool error = true);
  void onFinished(const QString& message, bool completed);
  /// Forgets every result of the project (File > New / Open).
  void clearResults();
  void stopPlayback();
  void openDocument(const QString& relative);
  void reopenResults();

  ProjectDocument* doc_;
  std::vector<std::unique_ptr<TableModel>> models_;
  QTabWidget* tables_;
  QTabWidget* centre_;
  QLabel* tableError_;
  ProblemsPanel* problems_;
  PlotPanel* plots_;
  View3D* view3d_;
  TopologyView* topology_;
  CurveEditor* curves_;
  BushingDynamicsPanel* dynamics_;
  StudyDialog* study_ = nullptr;
  FmuExportDialog* fmuExport_ = nullptr;
  SparsityView* sparsity_;
  AnalysesPanel* analyses_;
  QSlider* timeSlider_;
  QLabel* staleView_;  ///< over the 3D view: the playback is of an earlier version of the project
  QLabel* timeLabel_;
  QPushButton* playButton_;
  QComboBox* speed_;
  QTimer* playTimer_;
  double playTime_ = 0.0;  ///< simulated time of the playback
  QComboBox* loadCase_;
  QComboBox* solver_;
  QComboBox* integrator_;
  QDoubleSpinBox* dt_;
  QSpinBox* linEvery_;
  QDoubleSpinBox* warnError_;  ///< [um], 0: off
  double runWarnError_ = 0.0;  ///< the running run's threshold [m]
  QCheckBox* realtime_;
  QDoubleSpinBox* exaggeration_;
  QAction *runAct_, *pauseAct_, *stopAct_;
  QMenu* recentMenu_;
  QProgressBar* progress_;
  QLabel* rtf_;
  QLabel* errorLabel_;  ///< the running estimate of the integrator's local error
  QThread thread_;
  SimulationWorker* worker_;
  std::shared_ptr<const SuspensionModel> model_;
  std::vector<Frame> frames_;  ///< poses of the run, for playback
  Project runProject_;         ///< the tables of the run in progress (or the last one)
  QString runLoadCase_;
  QString runMethod_;  ///< integrator and step of the run in progress, for the Plots tab's list
  QTimer* frameTimer_;         ///< renders the newest frame when the 3D view may render again
  QElapsedTimer sinceRender_;
  bool running_ = false, quiet_ = false;
  QString realtimeReport_;
  QString errorEstimate_;
  PropertyImportDialog* importPreview_ = nullptr;
  QString lastMessage_, lastDialog_, docsRoot_, lastDocument_;
};

}  // namespace ek::ui
