// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file cell_delegate.h
/// The table views' cell editor: reference cells with a combo box of the existing ids (from
/// TableModel::choices, ui/document/table_models.h), number cells with a line edit holding the
/// number as the workbench writes numbers (ui/document/number_entry.h); what is typed goes to
/// the model as text, which reads it by that one rule or marks the cell with why not.

#include <QStyledItemDelegate>

namespace ek::ui {

/// Set on every table view.
class CellDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  void setEditorData(QWidget* editor, const QModelIndex& index) const override;
  void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;
};

}  // namespace ek::ui
