// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file main_window.h
/// The workbench window: the table pane (left, ui/panels/table_pane.h), the centre tabs (3D view
/// with its playback bar, plots, curves, bushing dynamics, topology, sparsity, analyses), the run
/// toolbar driving the run controller (ui/run/run_controller.h), menus and status bar. It wires
/// the document (ui/document) to the views and panels; it holds no results itself.

#include <QMainWindow>
#include <memory>
#include <vector>

#include "engine/model/adams_import.h"
#include "ui/document/project_document.h"
#include "ui/document/run_history.h"
#include "ui/document/table_models.h"
#include "ui/run/simulation_worker.h"

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
class ManoeuvresPanel;
class BushingDynamicsPanel;
class CurveEditor;
class FmuExportDialog;
class ProblemsPanel;
class PlaybackBar;
class PlotPanel;
class PropertyImportDialog;
class FlexibleImportDialog;
class RunController;
class ModesView;
class SparsityView;
class StudyDialog;
class TablePane;
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
  /// Makes body `bodyId` flexible with a SID file (.SID_FEM, .sid) or a CalculiX deck (.inp; ccx
  /// is run on it when its stored matrices are missing): `interfaces` "NODE=MARKER,..." for a SID file
  /// (the other markers bound by position), "SET=MARKER,..." for a deck (mm, t; 12 modes). Shows
  /// FlexibleImportDialog before it is applied as one undo step; quiet: applied without asking.
  bool importFlexibleBody(const QString& path, int bodyId, const QString& interfaces = {});
  FlexibleImportDialog* flexibleImportPreview() const { return flexiblePreview_; }
  /// Writes element `id` (a bushing, or a P2P element's law by `type`) as an Adams property file
  /// in `units` ("mm,newton,degrees,second"). @returns empty, or the message.
  QString exportPropertyFile(const QString& path, ek::PropertyType type, int id, const QString& units);
  ProjectDocument* document() { return doc_; }
  /// The session's runs (the Plots tab shows them, File > Save runs stores them).
  RunHistory* runs() { return runs_; }
  RunController* runController() { return run_; }
  PlotPanel* plots() { return plots_; }
  View3D* view3d() { return view3d_; }
  TablePane* tablePane() { return tables_; }
  TableModel* tableModel(Table t);
  QLabel* staleViewLabel() const { return staleView_; }
  QSlider* timeSlider() const;
  QLabel* timeLabel() const;
  QPushButton* playButton() const;
  /// The run's poses for playback (kPoseRate per simulated second).
  const std::vector<Frame>& frames() const;
  /// Starts a run with the toolbar's settings (duration < 0: the load case's).
  void startRun(double duration = -1.0);
  /// Real-time pacing of the next runs (the toolbar's check box).
  void setRealtime(bool on);
  bool isRunning() const;
  QString lastRunMessage() const;
  /// The pacer's summary of the last real-time run (empty after an unpaced run).
  QString lastRealtimeReport() const;
  /// The last run's local error estimate as the status bar shows it ("error estimate RMS ...").
  QString lastErrorEstimate() const;
  /// Selects the row of a body or force element in the tables and highlights it in 3D.
  void select(Table table, int id);
  TopologyView* topology() { return topology_; }
  CurveEditor* curveEditor() { return curves_; }
  BushingDynamicsPanel* bushingDynamics() { return dynamics_; }
  SparsityView* sparsity() { return sparsity_; }
  ModesView* modes() { return modes_; }
  AnalysesPanel* analyses() { return analyses_; }
  ManoeuvresPanel* manoeuvres() { return manoeuvres_; }
  ProblemsPanel* problems();
  const SimulationWorker* worker() const;
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
  /// The folder of the projects that ship with Elastokin: File > Open example lists them (by their
  /// names); File > Save never replaces one of them unasked, it asks where to save a copy (starting
  /// in the user's documents folder).
  void setShippedProjects(const QString& folder);
  /// File > Open example: one entry per shipped project.
  QMenu* examplesMenu() const { return examplesMenu_; }
  /// The project file is one of the shipped projects (in that folder or below it).
  bool isShippedProject(const QString& path) const;
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
  QWidget* build3DPage();
  void buildStatusBar();
  void connectRun();
  void buildMenus();
  void buildRunBar();
  void rebuildModel();
  bool maybeSave();
  bool save(bool askPath);
  void updateTitle();
  void updateRecent(const QString& path);
  void message(const QString& title, const QString& text, bool error = true);
  /// Runs ccx on a CalculiX deck whose stored matrices (JOB.sti) are missing.
  /// @throws ModelError when ccx is not installed or writes no matrices.
  void runCalculixWhenNeeded(const QString& deck);
  void onFinished(const QString& message, bool completed);
  /// Forgets every result of the project (File > New / Open).
  void clearResults();
  void openDocument(const QString& relative);
  void reopenResults();
  /// Marks the newest run as not current, naming what changed since (or `ifNothing`; empty: not
  /// marked when nothing changed).
  void markRunsStale(const QString& ifNothing);
  /// A status-bar text cut to fit (the full text goes to the tooltip).
  QString elidedFor(QLabel* label, const QString& text) const;

  ProjectDocument* doc_;
  RunHistory* runs_;
  RunController* run_;
  TablePane* tables_;
  QTabWidget* centre_;
  PlotPanel* plots_;
  View3D* view3d_;
  PlaybackBar* playback_;
  TopologyView* topology_;
  CurveEditor* curves_;
  BushingDynamicsPanel* dynamics_;
  StudyDialog* study_ = nullptr;
  FmuExportDialog* fmuExport_ = nullptr;
  SparsityView* sparsity_;
  ModesView* modes_;
  AnalysesPanel* analyses_;
  ManoeuvresPanel* manoeuvres_;
  QLabel* staleView_;  ///< over the 3D view: the playback is of an earlier version of the project
  QComboBox* loadCase_;
  QComboBox* solver_;
  QComboBox* integrator_;
  QDoubleSpinBox* dt_;
  QSpinBox* linEvery_;
  QDoubleSpinBox* warnError_;  ///< [um], 0: off
  QCheckBox* realtime_;
  QDoubleSpinBox* exaggeration_;
  QAction *runAct_, *pauseAct_, *stopAct_;
  QMenu* recentMenu_;
  QMenu* examplesMenu_;
  QProgressBar* progress_;
  QLabel* rtf_;
  QLabel* errorLabel_;  ///< the running estimate of the integrator's local error
  std::shared_ptr<const SuspensionModel> model_;
  bool quiet_ = false;
  PropertyImportDialog* importPreview_ = nullptr;
  FlexibleImportDialog* flexiblePreview_ = nullptr;
  QString lastDialog_, docsRoot_, lastDocument_, shippedProjects_;
};

}  // namespace ek::ui
