// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file sparsity_view.h
/// The block pattern of the coefficient matrix A (paper 003 eq. 19, Fig. 4), rows and columns in
/// the topology solver's elimination order: blocks of A, fill-in of the factorization, and the
/// separator (bodies eliminated last) outlined. Wheel zooms; counts of non-zeros are shown.

#include <QGraphicsView>
#include <memory>

#include "engine/model/model.h"

class QLabel;

namespace ek::ui {

class SparsityView : public QWidget {
  Q_OBJECT
 public:
  explicit SparsityView(QWidget* parent = nullptr);
  void setModel(std::shared_ptr<const SuspensionModel> model);
  int blocksShown() const { return blocks_; }
  int fillShown() const { return fill_; }
  QString summary() const;

 private:
  QGraphicsView* view_;
  QGraphicsScene* scene_;
  QLabel* label_;
  int blocks_ = 0, fill_ = 0, n_ = 0;
  bool separator_ = false;
};

}  // namespace ek::ui
