// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file plot_panel.h
/// The Plots tab, a view of the session's runs (ui/document/run_history.h): any number of stacked
/// plots, each showing one selectable output channel of every shown run against time or against
/// another channel (X-Y), or its difference to the reference run; each run in its own colour and
/// dash, the newest on top and drawn thinner than the others' outline so none hides another; the
/// legend in a row under the axes; a scrolling window during a run, the full history after; a
/// cursor readout, reset zoom; export to PNG, PDF and SVG with a title block; the list of runs
/// with show / reference / remove / export.

#include <QStringList>
#include <QWidget>
#include <vector>

#include "ui/document/run_history.h"

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

class PlotPanel : public QWidget {
  Q_OBJECT
 public:
  /// A view of `runs` (not owned).
  explicit PlotPanel(RunHistory* runs, QWidget* parent = nullptr, int plots = 2);
  RunHistory* history() const { return runs_; }
  /// Channel-name fragments chosen for the plots, in order, when a run's channels are new.
  void setPreferred(const QStringList& fragments) { preferred_ = fragments; }
  /// While running the plots scroll and are redrawn at a fixed rate, not per sample block.
  void setRunning(bool running);
  /// Redraws what changed (a fixed-rate timer drives it while running).
  void replotNow();
  int plotCount() const { return static_cast<int>(slots_.size()); }
  QCustomPlot* plot(int k) const { return slots_[k].plot; }
  int selectedChannel(int plot) const;
  void selectChannel(int plot, int channel);
  /// Adds a plot under the others (its channel: the newest run's first one not yet shown).
  void addPlot();
  /// Removes plot k (the last plot stays).
  void removePlot(int k);
  /// The channel on the x axis of plot k: -1 for time, else an index into the newest run's
  /// channels (an X-Y plot of every shown run, e.g. toe against wheel travel).
  void setXChannel(int plot, int channel);
  int xChannel(int plot) const;
  /// Fits plot k's axes to its curves again (after zooming or dragging).
  void resetZoom(int plot);
  void setDifference(int plot, bool on);
  bool difference(int plot) const;
  QTreeWidget* runList() const { return list_; }
  QLabel* staleLabel() const { return staleLabel_; }
  /// Exports plot k by file extension: .png, .pdf or .svg, with a title block naming the
  /// project, load case, runs and date. @returns an error text or empty.
  QString exportPlot(int k, const QString& path) const;
  /// How often the plots were redrawn (for the GUI benchmark).
  long long replots() const { return replots_; }

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
  void onRunStarted();
  void onAppended(const SampleBlock& block);
  void refill(int k);
  void refillAll();
  void fitAxes(int k);
  void fillChannels(Slot& slot, const QStringList& preferred, int k);
  void fillList();
  void updateButtons();
  QString channelName(int k) const;

  RunHistory* runs_;
  std::vector<Slot> slots_;
  QStringList preferred_;
  QWidget* plotArea_;
  QTreeWidget* list_;
  QPushButton *referenceButton_, *removeButton_, *exportButton_;
  QLabel* staleLabel_;
  QTimer* timer_;
  double window_ = 2.0;
  long long replots_ = 0;
  bool running_ = false, dirty_ = false, filling_ = false;
};

}  // namespace ek::ui
