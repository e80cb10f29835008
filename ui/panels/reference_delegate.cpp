// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/reference_delegate.h"

#include <QComboBox>

#include "ui/document/table_models.h"

namespace ek::ui {

QWidget* ReferenceDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                                         const QModelIndex& index) const {
  const auto* model = qobject_cast<const TableModel*>(index.model());
  const QStringList choices = model ? model->choices(index.column()) : QStringList();
  if (choices.isEmpty()) return QStyledItemDelegate::createEditor(parent, option, index);
  auto* combo = new QComboBox(parent);
  combo->addItems(choices);
  return combo;
}

void ReferenceDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
  if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    const QString id = index.data(Qt::EditRole).toString();
    for (int k = 0; k < combo->count(); ++k)
      if (combo->itemText(k).section(':', 0, 0) == id) combo->setCurrentIndex(k);
    return;
  }
  QStyledItemDelegate::setEditorData(editor, index);
}

void ReferenceDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const {
  if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    model->setData(index, combo->currentText().section(':', 0, 0), Qt::EditRole);
    return;
  }
  QStyledItemDelegate::setModelData(editor, model, index);
}

}  // namespace ek::ui
