// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/views/modes_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <cmath>

namespace ek::ui {

ModesView::ModesView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  label_ = new QLabel(this);
  label_->setWordWrap(true);
  table_ = new QTableWidget(0, 5, this);
  table_->setHorizontalHeaderLabels({tr("flexible body"), tr("mode"), tr("frequency [Hz]"), tr("damping ratio"), tr("period [ms]")});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  animateButton_ = new QPushButton(tr("Animate in 3D"), this);
  animateButton_->setToolTip(tr("Shows the selected mode moving in the 3D view (a double click on a row does too)"));
  animateButton_->setEnabled(false);
  auto* bar = new QHBoxLayout;
  bar->addWidget(animateButton_);
  bar->addStretch();
  layout->addWidget(label_);
  layout->addLayout(bar);
  layout->addWidget(table_);
  connect(table_, &QTableWidget::itemSelectionChanged, this, [this] { animateButton_->setEnabled(selectedMode().first >= 0); });
  connect(animateButton_, &QPushButton::clicked, this, [this] {
    const auto [flex, mode] = selectedMode();
    if (flex >= 0) emit animate(flex, mode);
  });
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    const QTableWidgetItem* item = table_->item(row, 1);
    if (item) emit animate(item->data(Qt::UserRole).toInt(), item->data(Qt::UserRole + 1).toInt());
  });
  setModel(nullptr);
}

std::pair<int, int> ModesView::selectedMode() const {
  const QList<QTableWidgetItem*> items = table_->selectedItems();
  for (const QTableWidgetItem* item : items)
    if (item->column() == 1) return {item->data(Qt::UserRole).toInt(), item->data(Qt::UserRole + 1).toInt()};
  return {-1, -1};
}

void ModesView::setModel(std::shared_ptr<const SuspensionModel> model) {
  table_->setRowCount(0);
  if (!model) {
    label_->setText(tr("No model."));
    return;
  }
  int modes = 0;
  for (const ModelFlexibleBody& f : model->flexibleBodies) modes += f.modes();
  if (model->flexibleBodies.empty()) {
    label_->setText(tr("No flexible body in this project: the table \"Flexible bodies\" makes a body flexible."));
    return;
  }
  const int bodies = static_cast<int>(model->flexibleBodies.size());
  label_->setText((bodies == 1 ? tr("1 flexible body, ") : tr("%1 flexible bodies, ").arg(bodies)) +
                  (modes == 1 ? tr("1 elastic mode") : tr("%1 elastic modes").arg(modes)) +
                  tr(" of the free body (unsupported), as the step carries them after the reduction and the "
                     "frequency cut; modes of unit modal mass, the damping ratio per mode from the table "
                     "\"Flexible bodies\"."));
  table_->setRowCount(modes);
  int row = 0, flex = 0;
  for (const ModelFlexibleBody& f : model->flexibleBodies) {
    const ModelBody& body = model->bodies[static_cast<std::size_t>(f.body)];
    const QString name = QStringLiteral("%1 (body %2, %3 kg)")
                             .arg(QString::fromStdString(f.name))
                             .arg(body.id)
                             .arg(f.modal.mass, 0, 'g', 4);
    for (int k = 0; k < f.modes(); ++k, ++row) {
      const double hz = f.modal.frequencies[k];
      const double omega = 2.0 * M_PI * hz;
      const double zeta = omega > 0.0 ? f.damping[k] / (2.0 * omega) : 0.0;
      const QStringList cells = {name, QString::number(k + 1), QString::number(hz, 'f', hz < 100.0 ? 2 : 1),
                                 QString::number(zeta, 'g', 3), QString::number(1000.0 / hz, 'f', 3)};
      for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (c == 1) {
          item->setData(Qt::UserRole, flex);
          item->setData(Qt::UserRole + 1, k);
        }
        table_->setItem(row, c, item);
      }
    }
    ++flex;
  }
}

QString ModesView::summary() const { return label_->text(); }

}  // namespace ek::ui
