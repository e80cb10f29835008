// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/problems_panel.h"

namespace ek::ui {
namespace {
enum Role { kTable = Qt::UserRole, kRow, kField, kNavigable };
}

ProblemsPanel::ProblemsPanel(QWidget* parent) : QListWidget(parent) {
  setWordWrap(true);
  setAlternatingRowColors(true);
  setToolTip(tr("Errors and warnings of the project; click one to go to its cell"));
  connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    if (item->data(kNavigable).toBool())
      emit goTo(item->data(kTable).toString(), item->data(kRow).toString(), item->data(kField).toString());
  });
  connect(this, &QListWidget::itemClicked, this, &QListWidget::itemActivated);
}

void ProblemsPanel::setDiagnostics(const std::vector<Diagnostic>& items, std::size_t notShown, bool navigable) {
  clear();
  errors_ = warnings_ = 0;
  for (const Diagnostic& d : items) {
    const bool error = d.severity == Severity::Error;
    (error ? errors_ : warnings_) += 1;
    // The open project's file name is the window's; a file that failed to open is named.
    Location where = d.where;
    if (navigable) where.file.clear();
    QString text = QString::fromStdString(formatLocation(where));
    if (text.startsWith("<project>: ")) text = text.mid(11);
    else if (text == "<project>") text.clear();
    auto* item = new QListWidgetItem((error ? tr("Error: ") : tr("Warning: ")) + text +
                                         (text.isEmpty() ? "" : ": ") + QString::fromStdString(d.message),
                                     this);
    item->setForeground(error ? QColor(176, 0, 32) : QColor(150, 95, 0));
    item->setToolTip(QString::fromStdString(d.text()));
    item->setData(kTable, QString::fromStdString(d.where.table));
    item->setData(kRow, QString::fromStdString(d.where.row));
    item->setData(kField, QString::fromStdString(d.where.field));
    item->setData(kNavigable, navigable && !d.where.table.empty());
  }
  if (notShown > 0) new QListWidgetItem(tr("... and %1 more").arg(notShown), this);
  setVisible(count() > 0);
}

}  // namespace ek::ui
