// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file bushing_dynamics_panel.h
/// A bushing direction in the frequency domain, beside the curve editor: its dynamic stiffness
/// and loss angle over a logarithmic frequency axis (engine/analysis/bushing_dynamics.h), redrawn
/// as the project is edited; its Maxwell branches as an editable table; and the identification
/// of branches from a measured dynamic-stiffness CSV: measurement and fit drawn over the model,
/// the fit's residual and parameters, and "Accept fit" as one undo step.

#include <QWidget>
#include <optional>

#include "engine/analysis/bushing_dynamics.h"
#include "ui/document/project_document.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ek::ui {

class BushingDynamicsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit BushingDynamicsPanel(ProjectDocument* doc, QWidget* parent = nullptr);

  /// Shows direction `direction` (0..5) of the bushing with this id.
  void showBushing(int id, int direction = 0);
  int currentBushingId() const;
  int currentDirection() const;
  /// Loads a measurement (the "Load measurement..." button's action). @returns an error or empty.
  QString loadMeasurement(const QString& path);
  /// Fits `branches` branches to the loaded measurement. @returns an error or empty.
  QString fit(int branches);
  /// Writes the fit into the bushing direction as one undo step. @returns an error or empty.
  QString acceptFit();
  /// Sets branch k's stiffness (column 0) or damping (column 1) as one undo step (the table's edit).
  QString editBranch(int k, int column, double value);
  /// Scales the direction's branches with the static curve's slope (or not), one undo step.
  QString setScaledBySlope(bool scaled);

  QCustomPlot* magnitudePlot() const { return magnitude_; }
  QCustomPlot* lossPlot() const { return loss_; }
  QString fitReport() const;
  QString lastError() const;
  const std::optional<FitResult>& lastFit() const { return fit_; }

  /// Graphs of both plots, in this order.
  enum Graph { Model, Measurement, Fitted };

 private:
  void fillBushings();
  void refresh();
  void setBranches(std::vector<MaxwellBranchRow> branches, const QString& what);
  int bushingIndex() const;

  ProjectDocument* doc_;
  QComboBox* bushing_;
  QComboBox* direction_;
  QLabel* statics_;
  QTableWidget* branches_;
  QCheckBox* scaled_;
  QCustomPlot* magnitude_;
  QCustomPlot* loss_;
  QSpinBox* branchCount_;
  QCheckBox* fitStatic_;
  QPushButton* acceptButton_;
  QLabel* report_;
  QLabel* error_;
  std::optional<StiffnessMeasurement> measurement_;
  std::optional<FitResult> fit_;
  bool filling_ = false;
};

}  // namespace ek::ui
