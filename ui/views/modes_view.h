// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file modes_view.h
/// The elastic modes of the model's flexible bodies as the engine carries them (after the
/// reduction and the frequency cut): per body its modes with frequency, damping ratio and the
/// mass of the body, in a table; a line above says how many bodies and modes there are.

#include <QWidget>
#include <memory>

#include "engine/model/model.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace ek::ui {

class ModesView : public QWidget {
  Q_OBJECT
 public:
  explicit ModesView(QWidget* parent = nullptr);
  void setModel(std::shared_ptr<const SuspensionModel> model);
  QString summary() const;
  QTableWidget* table() const { return table_; }
  /// The selected row's flexible body (SuspensionModel::flexibleBodies) and mode; -1 when none.
  std::pair<int, int> selectedMode() const;

 signals:
  /// "Animate in 3D" or a double click on a row.
  void animate(int flex, int mode);

 private:
  QLabel* label_;
  QTableWidget* table_;
  QPushButton* animateButton_;
};

}  // namespace ek::ui
