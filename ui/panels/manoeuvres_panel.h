// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file manoeuvres_panel.h
/// The Manoeuvres tab (docs/manoeuvres.md): a standard manoeuvre of the vehicle on tyres chosen
/// with its parameters, run on a worker thread with progress; its metrics in a table (with the
/// standard's limits and verdicts) beside the kept runs' values, and the manoeuvre's standard
/// plot with the kept runs overlaid: yaw rate and lateral acceleration over time (step steer,
/// sine with dwell), steering-wheel angle over lateral acceleration (steady-state circle), yaw
/// rate gain over frequency (swept sine).

#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "engine/analysis/manoeuvre.h"
#include "engine/model/model.h"

class QCustomPlot;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QThread;

namespace ek::ui {

class ManoeuvresPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ManoeuvresPanel(QWidget* parent = nullptr);
  ~ManoeuvresPanel() override;

  /// The model whose project is driven (null: none, e.g. while the tables have errors).
  void setModel(std::shared_ptr<const SuspensionModel> model);
  /// Chooses a manoeuvre by name and shows its parameters with their defaults.
  void setManoeuvre(const QString& name);
  /// Sets a parameter's value (the table's edit). @returns false for an unknown key.
  bool setParameter(const QString& key, double value);
  /// Starts the manoeuvre on a worker thread; finished() follows.
  void run();
  void cancel();
  bool isRunning() const { return running_; }
  /// Keeps the current result as a comparison column and plot overlay. @returns false if none.
  bool keepCurrent();
  void clearResults();

  const ManoeuvreResult* current() const { return current_ ? &*current_ : nullptr; }
  int keptCount() const { return static_cast<int>(kept_.size()); }
  QTableWidget* parameters() const { return parameters_; }
  QTableWidget* metrics() const { return metrics_; }
  QCustomPlot* plot() const { return plot_; }
  QLabel* status() const { return status_; }

 signals:
  void finished(bool ok, const QString& message);

 private:
  void fillParameters();
  void onResult(std::optional<ManoeuvreResult> result, QString error);
  void showResult();
  void updateControls();
  QString manoeuvre() const;

  std::shared_ptr<const SuspensionModel> model_;
  QComboBox* name_;
  QTableWidget* parameters_;
  QPushButton* runButton_;
  QPushButton* cancelButton_;
  QPushButton* keepButton_;
  QProgressBar* progress_;
  QLabel* status_;
  QTableWidget* metrics_;
  QCustomPlot* plot_;
  QThread* thread_ = nullptr;
  std::atomic<bool> cancel_{false};
  bool running_ = false;
  std::optional<ManoeuvreResult> current_;
  std::vector<ManoeuvreResult> kept_;
};

}  // namespace ek::ui
