// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file analyses_panel.h
/// The Analyses tab (docs/analyses.md): K&C sweeps, frequency response and modes of the current
/// model, run on a worker thread with progress; K&C curves as in a K&C report (one plot per
/// quantity, both wheels), Bode plots, the metrics or mode table. Results can be kept: kept
/// results overlay the current one with a legend naming what changed in the project since.
/// Export: the current result as CSV, everything shown as a PDF report (ui/views/analysis_report.h).

#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "engine/analysis/kc_measured.h"
#include "ui/views/analysis_report.h"
#include "ui/run/simulation_worker.h"

class QCustomPlot;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QThread;
class QTimer;

namespace ek::ui {

class AnalysesPanel : public QWidget {
  Q_OBJECT
 public:
  using Kind = AnalysisKind;
  using Result = AnalysisResult;

  explicit AnalysesPanel(QWidget* parent = nullptr);
  ~AnalysesPanel() override;

  /// The model to analyse (null: none, e.g. while the tables have errors). Results computed
  /// from another version of the project are marked as such.
  void setModel(std::shared_ptr<const SuspensionModel> model);

  /// Chooses the analysis by runner name and sets the defaults of its range.
  void setAnalysis(const QString& name);
  void setRange(double from, double to, int points);
  /// Starts the chosen analysis on a worker thread; finished() follows.
  void run();
  void cancel();
  bool isRunning() const { return running_; }
  /// Keeps the current result for overlays. @returns false if there is none.
  bool keepCurrent();
  void clearKept();
  /// Forgets the current and the kept results (a new or other project).
  void clearResults();
  int keptCount() const { return static_cast<int>(kept_.size()); }
  const Result* current() const { return hasCurrent_ ? &current_ : nullptr; }

  int plotCount() const { return static_cast<int>(plots_.size()); }
  QCustomPlot* plot(int k) const { return plots_[k]; }
  /// Plots holding curves of the current result.
  int visiblePlots() const;
  /// Shows plot k alone over the plots' whole area (a double click on a plot does the same), or
  /// every plot again with k = -1 (a second double click).
  void enlargePlot(int k);
  int enlargedPlot() const { return enlarged_; }
  /// Folds every plot's legend into one line, or unfolds them (a click on a legend or its line).
  void setLegendsFolded(bool folded);
  bool legendsFolded() const { return legendsFolded_; }
  /// Folds a banner over the plots (stale, limits, measured) to one line or back to its few
  /// lines (a click on it does the same).
  void setBannerFolded(QLabel* banner, bool folded);
  bool bannerFolded(const QLabel* banner) const;
  QTableWidget* table() const { return table_; }
  QLabel* statusLabel() const { return status_; }  ///< one line, cut to its width (tooltip: all)
  QLabel* staleLabel() const { return stale_; }
  QLabel* limitsLabel() const { return limits_; }  ///< where a sweep ended at a travel limit
  QLabel* failureLabel() const { return failure_; }  ///< why the last run stopped, in full
  /// Selects the output shown in the Bode plots.
  void selectOutput(const QString& name);

  /// @returns an error text or empty.
  QString exportCsv(const QString& path) const;
  /// Measured K&C data (engine/analysis/kc_measured.h) drawn over the current sweep's plots as
  /// points, its correlation (RMS and largest deviation per channel) under the buttons; columns
  /// named as the sweep's channels map themselves, `mapping` names the others. Needs a current
  /// K&C result. @returns an error text (every problem of the file) or empty.
  QString loadMeasured(const QString& path, const std::vector<std::pair<std::string, std::string>>& mapping = {});
  QLabel* measuredLabel() const { return measuredLabel_; }
  /// K&C plots as the current result minus the reference (the last kept result).
  void setDifference(bool on);
  /// The report of what is shown (writeAnalysisReport: the current result, the kept ones of the
  /// same analysis overlaid, the Bode pair of the chosen output). @returns an error text or empty.
  QString exportPdf(const QString& path) const;
  /// Pages of the last report: the title pages (the table continues over as many as it needs)
  /// and the plot pages.
  int lastReportPages() const { return report_.total; }
  int lastReportPlotPages() const { return report_.plots; }

  /// Starts / stops the animation of a mode (index into current()->modes.modes).
  void animateMode(int mode);
  void stopAnimation();
  bool isAnimating() const;

 signals:
  void finished(bool ok, QString message);
  /// A pose of the animated mode for the 3D view.
  void modeFrame(ek::ui::Frame frame);
  /// The user asked to see a mode in the 3D view.
  void showModeRequested();
  /// The current result's instant and roll centres changed (kcCentresAtDesign of current()).
  void centresChanged();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void updateControls();
  void onResult(std::optional<Result> r, QString error);
  void redraw();
  void fillTable();
  void updateStale();
  QString legendFor(std::size_t kept) const;
  /// The kept results of the current one's analysis with their legends.
  std::vector<ShownResult> keptShown() const;
  PlotChoices plotChoices() const;
  QString analysisName() const;

  std::shared_ptr<const SuspensionModel> model_;
  QComboBox *analysis_, *wheel_, *load_, *input_, *point_, *output_;
  QDoubleSpinBox *from_, *to_;
  QSpinBox* points_;
  QPushButton *run_, *cancel_, *keep_, *clear_, *csv_, *pdf_, *animate_, *measuredButton_;
  QProgressBar* progress_;
  QCheckBox* difference_;  ///< K&C plots as current minus reference
  QLabel *status_, *stale_, *limits_, *failure_, *measuredLabel_;
  std::optional<MeasuredKc> measured_;  ///< drawn over K&C sweeps
  QString measuredAnalysis_;             ///< the analysis measured_ was loaded for (runner name)
  /// measured_ belongs to the current sweep (loaded for its analysis, in this project).
  bool measuredApplies() const;
  void showCorrelation();
  std::vector<QCustomPlot*> plots_;
  int enlarged_ = -1;  ///< the plot shown alone, -1: all
  bool legendsFolded_ = false;  ///< every legend folded into one line
  QGridLayout* plotGrid_ = nullptr;
  void showPlots();  ///< the plots with curves, or the enlarged one alone over the grid
  void stretchPlotGrid();
  QTableWidget* table_;
  QTimer* animation_;
  double phase_ = 0.0;
  int animatedMode_ = -1;
  QThread* thread_ = nullptr;
  std::atomic<bool> cancel_flag_{false};
  bool running_ = false, hasCurrent_ = false;
  mutable ReportPages report_;
  Result current_;
  std::vector<Result> kept_;
};

}  // namespace ek::ui
