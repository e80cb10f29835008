// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file plot_panel.h
/// Live plots (QCustomPlot): several stacked plots, each showing one selectable output channel;
/// a scrolling window during a run, the full history after; a cursor readout; export to PNG, PDF
/// and SVG. Samples are kept for the whole run (also for CSV export).

#include <QStringList>
#include <QWidget>
#include <vector>

#include "ui/simulation_worker.h"

class QCustomPlot;
class QComboBox;
class QLabel;
class QTimer;

namespace ek::ui {

class PlotPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlotPanel(QWidget* parent = nullptr, int plots = 2);
  /// A run starts: channels, units; the default channels are selected (names containing the
  /// given fragments, in order).
  void startRun(const QStringList& channels, const QStringList& units, double duration,
                const QStringList& preferred = {});
  void append(const SampleBlock& block);
  void setRunning(bool running);
  /// Replots at most this often while running (a fixed-rate timer drives it).
  void replotNow();

  int plotCount() const { return static_cast<int>(plots_.size()); }
  QCustomPlot* plot(int k) const { return plots_[k]; }
  int selectedChannel(int plot) const;
  void selectChannel(int plot, int channel);
  const std::vector<double>& times() const { return t_; }
  const std::vector<std::vector<double>>& values() const { return v_; }
  const QStringList& channels() const { return channels_; }
  const QStringList& units() const { return units_; }
  /// Writes all channels as CSV ("time [s],name [unit],..."). @returns an error text or empty.
  QString exportCsv(const QString& path) const;
  /// Exports plot k by file extension: .png, .pdf or .svg. @returns an error text or empty.
  QString exportPlot(int k, const QString& path) const;

 private:
  void refill(int k);
  std::vector<QCustomPlot*> plots_;
  std::vector<QComboBox*> selectors_;
  std::vector<QLabel*> readouts_;
  QTimer* timer_;
  QStringList channels_, units_;
  std::vector<double> t_;
  std::vector<std::vector<double>> v_;
  double duration_ = 1.0, window_ = 2.0;
  bool running_ = false, dirty_ = false;
};

}  // namespace ek::ui
