// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/table_pane.h"

#include <QCursor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/document/hardpoints.h"
#include "ui/panels/problems_panel.h"
#include "ui/panels/cell_delegate.h"
#include "ui/panels/signal_form.h"

namespace ek::ui {
namespace {

const std::pair<Table, const char*> kTableTabs[] = {
    {Table::Bodies, "Bodies"}, {Table::Markers, "Markers"}, {Table::Bushings, "Bushings"}, {Table::P2Ps, "P2P"},
    {Table::Curves, "Curves"}, {Table::Inputs, "Inputs"},   {Table::LoadCases, "Load cases"},
    {Table::Signals, "Signals"}, {Table::Outputs, "Outputs"}, {Table::Hardpoints, "Hardpoints"},
    {Table::FlexibleBodies, "Flexible bodies"}, {Table::SteeringRacks, "Steering"}};

/// Keeps a table view where the user was across a reset of its model (an edit rebuilds the
/// hardpoint list, an undo or redo the table's rows): scroll position and current cell.
void keepViewState(QTableView* view, TableModel* model) {
  struct State {
    int h = 0, v = 0, row = -1, column = -1;
  };
  auto state = std::make_shared<State>();
  QObject::connect(model, &QAbstractItemModel::modelAboutToBeReset, view, [view, state] {
    state->h = view->horizontalScrollBar()->value();
    state->v = view->verticalScrollBar()->value();
    state->row = view->currentIndex().row();
    state->column = view->currentIndex().column();
  });
  QObject::connect(model, &QAbstractItemModel::modelReset, view, [view, model, state] {
    if (state->row >= 0 && state->row < model->rowCount() && state->column >= 0)
      view->selectionModel()->setCurrentIndex(model->index(state->row, std::min(state->column, model->columnCount() - 1)),
                                               QItemSelectionModel::NoUpdate);
    view->horizontalScrollBar()->setValue(state->h);
    view->verticalScrollBar()->setValue(state->v);
  });
}

}  // namespace

TablePane::TablePane(ProjectDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  tabs_ = new QTabWidget(this);
  tabs_->setUsesScrollButtons(true);
  layout->addWidget(tabs_, 1);
  auto* rowButtons = new QHBoxLayout;
  for (auto [label, op] : {std::pair{tr("Add"), 0}, std::pair{tr("Duplicate"), 1}, std::pair{tr("Delete"), 2}}) {
    auto* b = new QPushButton(label, this);
    rowButtons->addWidget(b);
    connect(b, &QPushButton::clicked, this, [this, op = op] {
      QTableView* view = currentView();
      auto* model = view ? qobject_cast<TableModel*>(view->model()) : nullptr;
      if (!model) return;
      const int row = view->currentIndex().isValid() ? view->currentIndex().row() : model->rowCount() - 1;
      if (op == 0 && !model->addVariants().isEmpty()) {  // e.g. the bushings' joint presets
        QMenu menu;
        const QStringList variants = model->addVariants();
        for (int k = 0; k < variants.size(); ++k)
          menu.addAction(variants[k], this, [model, k] { model->addRowVariant(k); });
        menu.exec(QCursor::pos());
      } else if (op == 0) model->addRow();
      else if (op == 1) model->duplicateRow(row);
      else model->removeRowAt(row);
    });
  }
  // The Signals table's rows edited as a whole: type and parameters with their units.
  auto* signalForm = new QPushButton(tr("Signal..."), this);
  signalForm->setToolTip(tr("Edit the selected signal's type and parameters in a form (Signals table)"));
  rowButtons->addWidget(signalForm);
  connect(signalForm, &QPushButton::clicked, this, &TablePane::editSignalOfCurrentRow);
  // Symmetric editing: an edit sets the left/right twin too (Hardpoints, Bushings and P2P tabs).
  symmetric_ = new QPushButton(tr("Symmetric"), this);
  symmetric_->setObjectName("symmetricHardpoints");
  symmetric_->setCheckable(true);
  symmetric_->setToolTip(tr("Hardpoints: an edit moves the joint at the mirror point (x, -y, z) too; bushings and "
                            "P2P elements: a value (or an imported property file) goes to the row named with left and "
                            "right swapped too; in one undo step"));
  symmetric_->setVisible(false);
  rowButtons->addWidget(symmetric_);
  connect(symmetric_, &QPushButton::toggled, this, [this](bool on) {
    if (auto* hp = qobject_cast<HardpointModel*>(model(Table::Hardpoints))) hp->setSymmetric(on);
    doc_->setSymmetricEdits(on);
  });
  // One tab's own button at a time: the row stays as narrow as the pane.
  connect(tabs_, &QTabWidget::currentChanged, this, [this, signalForm] {
    const Table t = models_.empty() ? Table::Bodies : currentTable();
    symmetric_->setVisible(t == Table::Hardpoints || t == Table::Bushings || t == Table::P2Ps);
    signalForm->setVisible(t == Table::Signals || t == Table::LoadCases);
  });
  rowButtons->addStretch();
  layout->addLayout(rowButtons);
  error_ = new QLabel(this);
  error_->setWordWrap(true);  // a long message wraps; it never widens the window
  error_->setMinimumWidth(1);
  error_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  error_->setStyleSheet("color: #b00020;");
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->setMaximumHeight(4 * error_->fontMetrics().lineSpacing() + 4);  // the rest in the tooltip
  layout->addWidget(error_);
  problems_ = new ProblemsPanel(this);
  problems_->setMaximumHeight(140);
  problems_->setVisible(false);
  layout->addWidget(problems_);
  connect(problems_, &ProblemsPanel::goTo, this, &TablePane::goToCell);
}

TablePane::~TablePane() = default;

void TablePane::rebuild() {
  tabs_->clear();
  models_.clear();
  for (auto [t, label] : kTableTabs) {
    models_.push_back(makeTableModel(doc_, t));
    auto* view = new QTableView(tabs_);
    view->setModel(models_.back().get());
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->setAlternatingRowColors(true);
    view->setItemDelegate(new CellDelegate(view));
    keepViewState(view, models_.back().get());
    // A cell's context menu: the cell as a design variable of a parameter study.
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QTableView::customContextMenuRequested, this, [this, view](const QPoint& at) {
      const QModelIndex i = view->indexAt(at);
      auto* model = qobject_cast<TableModel*>(view->model());
      const QString path = model && i.isValid() ? model->cellPath(i) : QString();
      if (path.isEmpty()) return;
      QMenu menu;
      menu.addAction(tr("Add as design variable (%1)").arg(path), this, [this, path] { emit designVariableRequested(path); });
#ifdef ELASTOKIN_HAVE_FMU
      menu.addAction(tr("Add as FMU parameter (%1)").arg(path), this, [this, path] { emit fmuParameterRequested(path); });
#endif
      menu.exec(view->viewport()->mapToGlobal(at));
    });
    if (auto* hp = qobject_cast<HardpointModel*>(models_.back().get())) hp->setSymmetric(symmetric_->isChecked());
    tabs_->addTab(view, tr(label));
    if (t == Table::Bushings)  // the bushing dynamics tab follows the bushing row the user is on
      connect(view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this, view](const QModelIndex& i) {
        if (i.isValid()) emit bushingRowChanged(view->model()->index(i.row(), 0).data().toInt());
      });
    connect(models_.back().get(), &TableModel::editRejected, this, [this](const QString& m) {
      setError(m);
      emit editRejected(m);
    });
  }
}

TableModel* TablePane::model(Table t) const {
  for (const auto& m : models_)
    if (m->table() == t) return m.get();
  return nullptr;
}

QTableView* TablePane::view(Table t) const {
  for (int k = 0; k < static_cast<int>(models_.size()); ++k)
    if (models_[k]->table() == t) return qobject_cast<QTableView*>(tabs_->widget(k));
  return nullptr;
}

Table TablePane::currentTable() const {
  const int k = tabs_->currentIndex();
  return k >= 0 && k < static_cast<int>(models_.size()) ? models_[k]->table() : Table::Bodies;
}

QTableView* TablePane::currentView() const { return qobject_cast<QTableView*>(tabs_->currentWidget()); }

int TablePane::currentId() const {
  QTableView* v = currentView();
  const QModelIndex cur = v ? v->currentIndex() : QModelIndex();
  return cur.isValid() ? v->model()->index(cur.row(), 0).data().toInt() : -1;
}

void TablePane::select(Table t, int id) {
  for (int k = 0; k < static_cast<int>(models_.size()); ++k) {
    if (models_[k]->table() != t) continue;
    auto* view = qobject_cast<QTableView*>(tabs_->widget(k));
    for (int r = 0; r < models_[k]->rowCount(); ++r)
      if (models_[k]->data(models_[k]->index(r, 0), Qt::DisplayRole).toInt() == id) {
        tabs_->setCurrentIndex(k);
        view->selectRow(r);
      }
  }
}

bool TablePane::goToCell(const QString& table, const QString& row, const QString& field) {
  for (int k = 0; k < static_cast<int>(models_.size()); ++k) {
    if (tableName(models_[k]->table()) != table) continue;
    const QModelIndex cell = models_[k]->locate(row, field);
    if (!cell.isValid()) return false;
    tabs_->setCurrentIndex(k);
    auto* view = qobject_cast<QTableView*>(tabs_->widget(k));
    view->setCurrentIndex(cell);
    view->scrollTo(cell);
    view->setFocus();
    return true;
  }
  return false;
}

void TablePane::showTable(const QString& title) {
  for (int k = 0; k < tabs_->count(); ++k)
    if (tabs_->tabText(k) == title) tabs_->setCurrentIndex(k);
}

void TablePane::setError(const QString& text) {
  error_->setText(text);
  error_->setToolTip(text);
}

void TablePane::editSignalOfCurrentRow() {
  showTable(tr("Signals"));
  QTableView* view = currentView();
  int lc = 0, drive = 0;
  const Project& p = doc_->project();
  if (!view || !signalOfRow(p, std::max(0, view->currentIndex().row()), lc, drive)) return;
  QString unit = "N";
  for (const auto& in : p.inputs)
    if (in.id == p.loadCases[lc].drives[drive].input) unit = inputUnit(in.kind);
  SignalForm form(p.loadCases[lc].drives[drive].signal, unit, this);
  form.setWindowTitle(tr("Signal of input %1 in load case %2").arg(p.loadCases[lc].drives[drive].input)
                          .arg(QString::fromStdString(p.loadCases[lc].name)));
  if (form.exec() != QDialog::Accepted) return;
  QString error;
  const SignalRow s = form.signal(&error);
  if (error.isEmpty()) error = editSignal(doc_, lc, drive, s);
  if (!error.isEmpty()) emit problem(tr("Signal"), error);
}

}  // namespace ek::ui
