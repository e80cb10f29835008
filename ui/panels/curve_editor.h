// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file curve_editor.h
/// Characteristic-curve editor (QCustomPlot): the curve's points, its interpolation and slope
/// (right axis), and the extrapolation beyond the points (dashed). Points are edited in a small
/// table or dragged in the plot; every edit is one undoable, validated change of the project, so
/// the next run uses the edited curve.

#include <QWidget>

#include "ui/document/project_document.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QTableWidget;

namespace ek::ui {

class CurveEditor : public QWidget {
  Q_OBJECT
 public:
  CurveEditor(ProjectDocument* doc, QWidget* parent = nullptr);
  void showCurve(int index);
  int currentCurve() const;
  /// Moves point k of the current curve to (x, y) as one undo step. @returns an error or empty.
  QString movePoint(int k, double x, double y);
  QCustomPlot* plot() const { return plot_; }
  QString lastError() const;

 private:
  void refresh();
  void fillSelect();
  ProjectDocument* doc_;
  QComboBox* select_;
  QTableWidget* points_;
  QCustomPlot* plot_;
  QLabel* error_;
  int dragging_ = -1;
  bool filling_ = false;
};

}  // namespace ek::ui
