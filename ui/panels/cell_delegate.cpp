// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/cell_delegate.h"

#include <QComboBox>
#include <QLineEdit>

#include "ui/document/number_entry.h"
#include "ui/document/table_models.h"

namespace ek::ui {

QWidget* CellDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  const auto* model = qobject_cast<const TableModel*>(index.model());
  const QStringList choices = model ? model->choices(index.column()) : QStringList();
  if (!choices.isEmpty()) {
    auto* combo = new QComboBox(parent);
    combo->addItems(choices);
    return combo;
  }
  // Not Qt's spin box for doubles: it reads by the user's locale (under German settings a typed
  // "0.9" became 9) and rounds to two decimals.
  if (index.data(Qt::EditRole).typeId() == QMetaType::Double) {
    auto* edit = new QLineEdit(parent);
    edit->setFrame(false);
    edit->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return edit;
  }
  return QStyledItemDelegate::createEditor(parent, option, index);
}

void CellDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
  if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    const QString id = index.data(Qt::EditRole).toString();
    for (int k = 0; k < combo->count(); ++k)
      if (combo->itemText(k).section(':', 0, 0) == id) combo->setCurrentIndex(k);
    return;
  }
  const QVariant v = index.data(Qt::EditRole);
  if (auto* edit = qobject_cast<QLineEdit*>(editor); edit && v.typeId() == QMetaType::Double) {
    edit->setText(numberText(v.toDouble()));
    return;
  }
  QStyledItemDelegate::setEditorData(editor, index);
}

void CellDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const {
  if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    model->setData(index, combo->currentText().section(':', 0, 0), Qt::EditRole);
    return;
  }
  if (auto* edit = qobject_cast<QLineEdit*>(editor)) {
    model->setData(index, edit->text(), Qt::EditRole);
    return;
  }
  QStyledItemDelegate::setModelData(editor, model, index);
}

}  // namespace ek::ui
