// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file plot_panel.h
/// Live plots (QCustomPlot) and the session's runs: any number of stacked plots, each showing one
/// selectable output channel of every shown run (a legend names each run and what changed in
/// the project since the run before it) against time or against another channel (X-Y), or its
/// difference to a reference run; a scrolling window during a run, the full history after; a
/// cursor readout, reset zoom; export to PNG, PDF and SVG with a title block. Every run is kept in the results list until the project is replaced;
/// after an edit the newest run is marked as not current (banner, greyed curve) until the next.

#include <QDateTime>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "engine/model/project.h"
#include "ui/simulation_worker.h"

class QCheckBox;
class QComboBox;
class QVBoxLayout;
class QCPGraph;
class QCustomPlot;
class QLabel;
class QPushButton;
class QTimer;
class QTreeWidget;

namespace ek::ui {

/// One run of a load case as kept in the session.
struct RunRecord {
  int number = 0;        ///< 1, 2, ... in the order of the runs
  QString loadCase;
  QDateTime when;        ///< start of the run
  Project project;       ///< the tables it ran with
  QString method;        ///< integrator and step, e.g. "ros34pw2, dt 1 ms"
  QString changes;       ///< what changed (project, method) since the previous run; empty for the first
  QStringList channels, units;
  std::vector<double> t;
  std::vector<std::vector<double>> v;  ///< v[channel][sample]
  bool shown = true;
  bool finished = false;
  QString stopped;       ///< why it ended early; empty when complete (or still running)
  /// "run 2 (LC1, 07:21:04)"
  QString title() const;
  /// Index of a channel by name, -1 if the run has none of that name.
  int channel(const QString& name) const;
};

class PlotPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlotPanel(QWidget* parent = nullptr, int plots = 2);
  /// A run starts: a new entry in the results list with the project it runs, its method (integrator
  /// and step) and what changed since the previous run; the plots' channels are those of this run (the selection is kept
  /// by name, otherwise names containing the `preferred` fragments are chosen, in order).
  void startRun(const QStringList& channels, const QStringList& units, double duration,
                const QStringList& preferred = {}, const Project& project = {}, const QString& loadCase = {},
                const QString& method = {});
  void append(const SampleBlock& block);
  /// The newest run ended: `stopped` is empty when it completed, else the reason.
  void finishRun(const QString& stopped = {});
  void setRunning(bool running);
  /// Replots at most this often while running (a fixed-rate timer drives it).
  void replotNow();

  int plotCount() const { return static_cast<int>(slots_.size()); }
  QCustomPlot* plot(int k) const { return slots_[k].plot; }
  int selectedChannel(int plot) const;
  void selectChannel(int plot, int channel);
  /// Adds a plot under the others (its channel: the newest run's first one not yet shown).
  void addPlot();
  /// Removes plot k (the last plot stays).
  void removePlot(int k);
  /// The channel on the x axis of plot k: -1 for time, else an index into channels() (an X-Y
  /// plot of every shown run, e.g. toe against wheel travel).
  void setXChannel(int plot, int channel);
  int xChannel(int plot) const;
  /// Fits plot k's axes to its curves again (after zooming or dragging).
  void resetZoom(int plot);

  // The results list.
  int runCount() const { return static_cast<int>(runs_.size()); }
  const RunRecord& run(int k) const { return runs_[k]; }
  void setShown(int run, bool shown);
  /// The run differences are taken against (-1: the run before the newest).
  void setReference(int run);
  /// The resolved reference run, -1 when there is none.
  int reference() const;
  void setDifference(int plot, bool on);
  bool difference(int plot) const;
  void removeRun(int run);
  /// Forgets every run and empties the plots (a new or other project).
  void clearRuns();
  /// Shows runs read back from a results file (results_file.h) instead of the current ones.
  void restoreRuns(std::vector<RunRecord> runs);
  const std::vector<RunRecord>& runs() const { return runs_; }
  QTreeWidget* runList() const { return list_; }

  /// The project changed after the newest run: banner and greyed curve until the next run.
  void markStale(const QString& what);
  bool isStale() const { return stale_; }
  QLabel* staleLabel() const { return staleLabel_; }

  // The newest run (empty when there is none).
  const std::vector<double>& times() const;
  const std::vector<std::vector<double>>& values() const;
  QStringList channels() const;
  QStringList units() const;
  /// Writes all channels of the newest run (or of run `run`) as CSV ("time [s],name [unit],...").
  /// @returns an error text or empty.
  QString exportCsv(const QString& path) const;
  QString exportRunCsv(int run, const QString& path) const;
  /// Exports plot k by file extension: .png, .pdf or .svg, with a title block naming the
  /// project, load case, runs and date. @returns an error text or empty.
  QString exportPlot(int k, const QString& path) const;

 signals:
  /// The newest run became stale (or current again with a new run, or was removed).
  void staleChanged(bool stale, const QString& text);

 private:
  /// The widgets of one plot.
  struct Slot {
    QWidget* box;
    QCustomPlot* plot;
    QComboBox *channel, *x;
    QCheckBox* difference;
    QLabel* readout;
    QCPGraph* live = nullptr;  ///< the newest run's graph while it runs (time plots)
  };
  void refill(int k);
  void refillAll();
  void fitAxes(int k);
  void fillChannels(Slot& slot, const QStringList& preferred, int k);
  void fillList();
  void updateButtons();
  /// Value of run r's channel c at time t (linear between samples, held beyond the ends).
  double valueAt(const RunRecord& r, int c, double t) const;
  QString channelName(int k) const;
  void setStale(bool stale, const QString& text);

  std::vector<Slot> slots_;
  QWidget* plotArea_;
  QTreeWidget* list_;
  QPushButton *referenceButton_, *removeButton_, *exportButton_;
  QLabel* staleLabel_;
  QTimer* timer_;
  std::vector<RunRecord> runs_;
  int referenceNumber_ = 0;  ///< the chosen reference's run number; 0: the run before the newest
  double window_ = 2.0;
  bool running_ = false, dirty_ = false, stale_ = false, filling_ = false;
};

}  // namespace ek::ui
