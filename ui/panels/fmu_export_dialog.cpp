// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/fmu_export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "engine/core/text.h"
#include "fmu/fmu_export.h"
#include "ui/document/file_output.h"

namespace ek::ui {

namespace {

QString causalityName(fmu::Causality c) {
  switch (c) {
    case fmu::Causality::Independent: return QObject::tr("independent");
    case fmu::Causality::Input: return QObject::tr("input");
    case fmu::Causality::Output: return QObject::tr("output");
    case fmu::Causality::Parameter: return QObject::tr("parameter");
  }
  return {};
}

/// "1 input", "5 inputs".
QString count(int n, const QString& one, const QString& many) { return QString("%1 %2").arg(n).arg(n == 1 ? one : many); }

}  // namespace

FmuExportDialog::FmuExportDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Export FMU"));
  auto* form = new QFormLayout;
  version_ = new QComboBox(this);
  version_->addItem(tr("FMI 3.0 co-simulation"), 3);
  version_->addItem(tr("FMI 2.0 co-simulation"), 2);
  form->addRow(tr("Standard:"), version_);
  loadCase_ = new QComboBox(this);
  loadCase_->setToolTip(tr("Its signals drive the inputs the importer leaves unconnected, and its initial state is used: "
                           "an FMU run without inputs reproduces the load case. None: inputs at their start values, "
                           "the static equilibrium."));
  form->addRow(tr("Load case built in:"), loadCase_);
  integrator_ = new QComboBox(this);
  integrator_->addItem(tr("LSRT2 (linear-implicit, 2nd order)"), "lsrt2");
  integrator_->addItem(tr("ROS34PW2 (Rosenbrock-W, 3rd order)"), "ros34pw2");
  form->addRow(tr("Integrator:"), integrator_);
  step_ = new QDoubleSpinBox(this);
  step_->setRange(0.01, 10.0);
  step_->setDecimals(3);
  step_->setSuffix(" ms");
  step_->setToolTip(tr("The FMU's fixed internal step: every communication interval is a whole number of them"));
  form->addRow(tr("Internal step:"), step_);
  linEvery_ = new QSpinBox(this);
  linEvery_->setRange(1, 100);
  linEvery_->setToolTip(tr("Steps between two linearizations (1: every step, as the papers do)"));
  form->addRow(tr("Linearize every:"), linEvery_);
  parameters_ = new QPlainTextEdit(this);
  parameters_->setPlaceholderText(tr("one table cell path per line, e.g. bushings/3/y.stiffness [N/m]\n"
                                     "(or a cell's context menu: Add as FMU parameter)"));
  parameters_->setMaximumHeight(90);
  form->addRow(tr("Tunable parameters:"), parameters_);
  sources_ = new QCheckBox(tr("Include the sources (for real-time targets that build FMUs themselves)"), this);
  sources_->setToolTip(tr("Adds sources/ with buildDescription.xml (FMI 3) or the source file list (FMI 2): any C++20 "
                          "compiler builds the FMU's library from them, no other library needed (docs/fmi.md)"));
  form->addRow(tr("Sources:"), sources_);
  auto* pathRow = new QHBoxLayout;
  path_ = new QLineEdit(this);
  auto* browse = new QPushButton(tr("Browse..."), this);
  pathRow->addWidget(path_, 1);
  pathRow->addWidget(browse);
  form->addRow(tr("File:"), pathRow);

  variables_ = new QTableWidget(0, 5, this);
  variables_->setHorizontalHeaderLabels({tr("Name"), tr("Causality"), tr("Unit"), tr("Start"), tr("Description")});
  variables_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  variables_->horizontalHeader()->setStretchLastSection(true);
  variables_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  variables_->verticalHeader()->setVisible(false);
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  export_ = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(export_, &QPushButton::clicked, this, [this] {
    QString path = path_->text().trimmed();
    if (path.isEmpty()) {
      path = QFileDialog::getSaveFileName(this, tr("Export FMU"), QString(), tr("FMUs (*.fmu)"));
      if (path.isEmpty()) return;
      path_->setText(path);
    }
    exportTo(path);
  });
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export FMU"), path_->text(), tr("FMUs (*.fmu)"));
    if (!path.isEmpty()) path_->setText(path);
  });

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(new QLabel(tr("Variables as the importer sees them:"), this));
  layout->addWidget(variables_, 1);
  layout->addWidget(summary_);
  layout->addWidget(buttons);

  for (QComboBox* c : {version_, loadCase_, integrator_})
    connect(c, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(step_, &QDoubleSpinBox::valueChanged, this, [this] { refresh(); });
  connect(linEvery_, &QSpinBox::valueChanged, this, [this] { refresh(); });
  connect(parameters_, &QPlainTextEdit::textChanged, this, [this] { refresh(); });
  resize(820, 640);
}

void FmuExportDialog::setProject(const Project& project) {
  const QString lc = loadCase_->currentData().toString();
  const bool first = project_.sourcePath != project.sourcePath || loadCase_->count() == 0;
  project_ = project;
  const QSignalBlocker block(loadCase_);
  loadCase_->clear();
  loadCase_->addItem(tr("none (inputs at their start values, static equilibrium)"), QString());
  for (const LoadCaseRow& l : project.loadCases) loadCase_->addItem(QString::fromStdString(l.name), QString::fromStdString(l.name));
  const int keep = first ? -1 : loadCase_->findData(lc);
  loadCase_->setCurrentIndex(keep >= 0 ? keep : (project.loadCases.empty() ? 0 : 1));
  if (first) {
    const QSignalBlocker b1(step_), b2(linEvery_);
    step_->setValue(project.simulation.step * 1e3);
    linEvery_->setValue(project.simulation.linearizeEvery);
    if (!project.sourcePath.empty()) {
      const QFileInfo source(QString::fromStdString(project.sourcePath));
      path_->setText(source.absoluteDir().filePath(source.completeBaseName() + ".fmu"));
    }
  }
  refresh();
}

void FmuExportDialog::addParameter(const QString& path) {
  if (parameterPaths().contains(path)) return;
  QString text = parameters_->toPlainText();
  if (!text.isEmpty() && !text.endsWith('\n')) text += '\n';
  parameters_->setPlainText(text + path);
}

QStringList FmuExportDialog::parameterPaths() const {
  QStringList out;
  for (const QString& line : parameters_->toPlainText().split('\n')) {
    const QString p = line.trimmed();
    if (!p.isEmpty()) out << p;
  }
  return out;
}

QString FmuExportDialog::summary() const { return summary_->text(); }

void FmuExportDialog::refresh() {
  variables_->setRowCount(0);
  export_->setEnabled(false);
  fmu::FmuConfig c;
  c.fmiVersion = version_->currentData().toInt();
  c.loadCase = loadCase_->currentData().toString().toStdString();
  c.integrator = integrator_->currentData().toString().toStdString();
  c.step = step_->value() * 1e-3;
  c.linearizeEvery = linEvery_->value();
  for (const QString& p : parameterPaths()) c.parameters.push_back(p.toStdString());
  fmu::FmuVariables v;
  try {
    const auto model = SuspensionModel::build(project_);
    v = fmu::describeVariables(project_, *model, c);
  } catch (const std::exception& e) {
    summary_->setStyleSheet("color: #b00020");
    summary_->setText(tr("Cannot export: %1").arg(QString::fromStdString(e.what())));
    return;
  }
  variables_->setRowCount(static_cast<int>(v.all.size()));
  for (int r = 0; r < static_cast<int>(v.all.size()); ++r) {
    const fmu::FmuVariable& x = v.all[r];
    const bool hasStart = x.causality == fmu::Causality::Input || x.causality == fmu::Causality::Parameter;
    const QStringList cells{QString::fromStdString(x.name), causalityName(x.causality), QString::fromStdString(x.unit),
                            hasStart ? QString::fromStdString(significant(x.start, 6)) : QString(),
                            QString::fromStdString(x.description)};
    for (int k = 0; k < cells.size(); ++k) variables_->setItem(r, k, new QTableWidgetItem(cells[k]));
  }
  summary_->setStyleSheet(QString());
  summary_->setText(tr("FMI %1 co-simulation FMU for Linux x86-64: %2, %3, %4; %5 at %6 ms%7.")
                        .arg(c.fmiVersion == 3 ? "3.0" : "2.0")
                        .arg(count(v.nInputs, tr("input"), tr("inputs")))
                        .arg(count(v.nOutputs, tr("output"), tr("outputs")))
                        .arg(count(v.nParameters, tr("parameter"), tr("parameters")))
                        .arg(integrator_->currentData().toString().toUpper())
                        .arg(QString::fromStdString(significant(step_->value(), 6)))
                        .arg(c.loadCase.empty() ? tr(", no load case (static equilibrium)")
                                                : tr(", load case %1 built in").arg(QString::fromStdString(c.loadCase))));
  export_->setEnabled(true);
}

QString FmuExportDialog::exportTo(const QString& path) {
  if (const QString c = open_inputs::clash(path); !c.isEmpty()) {
    summary_->setStyleSheet("color: #b00020");
    summary_->setText(tr("Not exported: %1").arg(c));
    return c;
  }
  fmu::FmuExportOptions o;
  o.fmiVersion = version_->currentData().toInt();
  o.loadCase = loadCase_->currentData().toString().toStdString();
  o.integrator = integrator_->currentData().toString().toStdString();
  o.step = step_->value() * 1e-3;
  o.linearizeEvery = linEvery_->value();
  for (const QString& p : parameterPaths()) o.parameters.push_back(p.toStdString());
  o.sources = sources_->isChecked();
  QString error;
  try {
    const fmu::FmuExport fmu = fmu::makeFmu(project_, o, fmu::fmuBinaries(), fmu::fmuSources(o));
    fmu::writeFmu(fmu, path.toStdString());
    const QString text = tr("Wrote %1 (%2 MB): FMI %3, %4, %5, %6%7.")
                             .arg(QFileInfo(path).fileName())
                             .arg(QFileInfo(path).size() / 1048576.0, 0, 'f', 1)
                             .arg(o.fmiVersion == 3 ? "3.0" : "2.0")
                             .arg(count(fmu.variables.nInputs, tr("input"), tr("inputs")))
                             .arg(count(fmu.variables.nOutputs, tr("output"), tr("outputs")))
                             .arg(count(fmu.variables.nParameters, tr("parameter"), tr("parameters")))
                             .arg(o.sources ? tr(", with sources") : QString());
    summary_->setStyleSheet(QString());
    summary_->setText(text);
    emit exported(path, text);
    return {};
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
  }
  summary_->setStyleSheet("color: #b00020");
  summary_->setText(tr("Not exported: %1").arg(error));
  return error;
}

}  // namespace ek::ui
