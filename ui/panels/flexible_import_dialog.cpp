// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/flexible_import_dialog.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/core/text.h"

namespace ek::ui {

namespace {

QTableWidget* table(const QStringList& headers, QWidget* parent) {
  auto* t = new QTableWidget(0, headers.size(), parent);
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->hide();
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->horizontalHeader()->setStretchLastSection(true);
  return t;
}

void addRow(QTableWidget* t, const QStringList& cells) {
  const int r = t->rowCount();
  t->insertRow(r);
  for (int c = 0; c < cells.size(); ++c) t->setItem(r, c, new QTableWidgetItem(cells[c]));
}

QString number(double v, int digits) { return QString::fromStdString(significant(v, digits)); }

}  // namespace

FlexibleImportDialog::FlexibleImportDialog(const FeImport& r, int bodyId, const QString& path, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Import flexible body: %1").arg(QFileInfo(path).fileName()));
  auto* layout = new QVBoxLayout(this);
  const auto row = std::find_if(r.project.flexibleBodies.begin(), r.project.flexibleBodies.end(),
                                [&](const FlexibleBodyRow& f) { return f.id == r.flexibleRow; });
  QString name;
  for (const BodyRow& b : r.project.bodies)
    if (b.id == bodyId) name = QString::fromStdString(b.name);
  header_ = new QLabel(
      tr("<b>%1</b> onto body %2 '%3': %4 nodes, %5 degrees of freedom; flexible bodies row %6 %7.<br>"
         "Mass %8 kg from the file (the body row's %9 kg, its centre of mass and inertia replaced); damping ratio %10.")
          .arg(QFileInfo(path).fileName().toHtmlEscaped())
          .arg(bodyId)
          .arg(name.toHtmlEscaped())
          .arg(r.nodes)
          .arg(r.dofs)
          .arg(r.flexibleRow)
          .arg(r.replaced ? tr("replaced") : tr("added"))
          .arg(number(r.mass, 6), number(r.previousMass, 6))
          .arg(row != r.project.flexibleBodies.end() ? number(row->dampingRatio, 4) : QString("?")),
      this);
  header_->setWordWrap(true);
  layout->addWidget(header_);

  auto* tables = new QHBoxLayout;
  modes_ = table({tr("mode"), tr("frequency [Hz]")}, this);
  for (int k = 0; k < r.frequencies.size(); ++k) addRow(modes_, {QString::number(k + 1), number(r.frequencies[k], 6)});
  markers_ = table({tr("marker"), tr("name"), tr("rides on")}, this);
  for (const auto& [id, on] : r.riders) {
    QString markerName;
    for (const MarkerRow& m : r.project.markers)
      if (m.id == id) markerName = QString::fromStdString(m.name);
    addRow(markers_, {QString::number(id), markerName, QString::fromStdString(on)});
  }
  auto* left = new QVBoxLayout;
  left->addWidget(new QLabel(tr("Elastic modes kept (%1)").arg(r.frequencies.size()), this));
  left->addWidget(modes_);
  auto* right = new QVBoxLayout;
  right->addWidget(new QLabel(tr("The body's markers on the model's nodes"), this));
  right->addWidget(markers_);
  tables->addLayout(left);
  tables->addLayout(right, 1);
  layout->addLayout(tables, 1);

  notes_ = new QPlainTextEdit(this);
  notes_->setReadOnly(true);
  QString text;
  for (const std::string& n : r.notes) text += QString::fromStdString(n) + "\n";
  notes_->setPlainText(text.isEmpty() ? tr("Nothing derived or left out.") : text.trimmed());
  notes_->setMaximumHeight(110);
  layout->addWidget(notes_);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  QPushButton* apply = buttons->addButton(tr("Apply"), QDialogButtonBox::AcceptRole);
  apply->setDefault(true);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(720, 520);
}

QString FlexibleImportDialog::header() const { return header_->text(); }
QString FlexibleImportDialog::notes() const { return notes_->toPlainText(); }

}  // namespace ek::ui
