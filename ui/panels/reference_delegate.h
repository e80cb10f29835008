// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file reference_delegate.h
/// The table views' editor of reference cells: a combo box of the existing ids, from the
/// model's TableModel::choices (ui/document/table_models.h).

#include <QStyledItemDelegate>

namespace ek::ui {

/// Edits reference cells with a combo box of the existing ids (set on every table view).
class ReferenceDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  void setEditorData(QWidget* editor, const QModelIndex& index) const override;
  void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;
};

}  // namespace ek::ui
