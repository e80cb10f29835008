// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/signal_form.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QVBoxLayout>
#include <cmath>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/model/project_io.h"
#include "engine/model/validate.h"
#include "ui/document/project_document.h"
#include "ui/document/table_models.h"

namespace ek::ui {
namespace {

constexpr SignalType kTypes[] = {SignalType::Constant, SignalType::Step, SignalType::Ramp,
                                 SignalType::Sine,     SignalType::Chirp, SignalType::Table,
                                 SignalType::Bump};

/// The parameters a type uses, by name.
QStringList usedBy(SignalType t) {
  switch (t) {
    case SignalType::Constant: return {"value"};
    case SignalType::Step: return {"before", "after", "time"};
    case SignalType::Ramp: return {"from", "to", "start", "end"};
    case SignalType::Sine: return {"offset", "amplitude", "frequency", "phase", "start"};
    case SignalType::Chirp: return {"offset", "amplitude", "start frequency", "end frequency", "start", "end"};
    case SignalType::Table: return {};
    case SignalType::Bump: return {"offset", "height", "start", "end"};
  }
  return {};
}

}  // namespace

SignalForm::SignalForm(const SignalRow& signal, const QString& valueUnit, QWidget* parent)
    : QDialog(parent), original_(signal) {
  setWindowTitle(tr("Signal"));
  auto* layout = new QVBoxLayout(this);
  form_ = new QFormLayout;
  type_ = new QComboBox(this);
  for (SignalType t : kTypes) type_->addItem(QString::fromUtf8(toString(t)), static_cast<int>(t));
  form_->addRow(tr("type"), type_);
  // Several names share a member: the meaning of a field depends on the type.
  const struct {
    const char* name;
    double SignalRow::*member;
    QString unit;
  } all[] = {{"value", &SignalRow::value, valueUnit},
             {"before", &SignalRow::value, valueUnit},
             {"from", &SignalRow::value, valueUnit},
             {"offset", &SignalRow::value, valueUnit},
             {"after", &SignalRow::value2, valueUnit},
             {"to", &SignalRow::value2, valueUnit},
             {"amplitude", &SignalRow::amplitude, valueUnit},
             {"height", &SignalRow::amplitude, valueUnit},
             {"time", &SignalRow::t0, "s"},
             {"start", &SignalRow::t0, "s"},
             {"end", &SignalRow::t1, "s"},
             {"frequency", &SignalRow::frequency, "Hz"},
             {"start frequency", &SignalRow::frequency, "Hz"},
             {"end frequency", &SignalRow::frequency2, "Hz"},
             {"phase", &SignalRow::phase, "rad"}};
  for (const auto& f : all) {
    auto* edit = new QLineEdit(QString::fromStdString(shortestText(signal.*(f.member))), this);
    form_->addRow(QStringLiteral("%1 [%2]").arg(tr(f.name), f.unit), edit);
    fields_.push_back({f.name, edit, f.member});
  }
  file_ = new QLineEdit(QString::fromStdString(signal.file), this);
  form_->addRow(tr("file (time, value CSV)"), file_);
  layout->addLayout(form_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  connect(type_, &QComboBox::currentIndexChanged, this, [this] { showFields(); });
  type_->setCurrentIndex(type_->findData(static_cast<int>(signal.type)));
  showFields();
}

void SignalForm::setType(SignalType type) { type_->setCurrentIndex(type_->findData(static_cast<int>(type))); }

void SignalForm::showFields() {
  const auto type = static_cast<SignalType>(type_->currentData().toInt());
  const QStringList used = usedBy(type);
  for (const Field& f : fields_) form_->setRowVisible(f.edit, used.contains(f.name));
  form_->setRowVisible(file_, type == SignalType::Table);
}

QLineEdit* SignalForm::field(const QString& name) const {
  for (const Field& f : fields_)
    if (f.name == name) return f.edit->isVisibleTo(this) || !isVisible() ? f.edit : nullptr;
  return nullptr;
}

SignalRow SignalForm::signal(QString* error) const {
  SignalRow s = original_;
  s.type = static_cast<SignalType>(type_->currentData().toInt());
  const QStringList used = usedBy(s.type);
  // Parameters the type does not use go back to their defaults (as the project format says).
  const SignalRow defaults;
  for (const Field& f : fields_) s.*(f.member) = defaults.*(f.member);
  for (const Field& f : fields_) {
    if (!used.contains(f.name)) continue;
    bool ok = false;
    const double v = QLocale::c().toDouble(f.edit->text().trimmed(), &ok);
    if ((!ok || !std::isfinite(v)) && error && error->isEmpty())
      *error = tr("%1: expected a finite number, found '%2'").arg(f.name, f.edit->text());
    if (ok && std::isfinite(v)) s.*(f.member) = v;
  }
  s.file = s.type == SignalType::Table ? file_->text().trimmed().toStdString() : std::string();
  return s;
}

bool signalOfRow(const Project& project, int row, int& loadCase, int& drive) {
  for (loadCase = 0; loadCase < static_cast<int>(project.loadCases.size()); ++loadCase) {
    const int n = static_cast<int>(project.loadCases[loadCase].drives.size());
    if (row >= 0 && row < n) {
      drive = row;
      return true;
    }
    row -= n;
  }
  return false;
}

QString editSignal(ProjectDocument* doc, int loadCase, int drive, const SignalRow& signal) {
  const Project& p = doc->project();
  if (loadCase < 0 || loadCase >= static_cast<int>(p.loadCases.size()) || drive < 0 ||
      drive >= static_cast<int>(p.loadCases[loadCase].drives.size()))
    return QObject::tr("no such signal");
  Project after = p;
  after.loadCases[loadCase].drives[drive].signal = signal;
  try {
    validate(after);
  } catch (const ModelError& e) {
    return QString::fromStdString(e.what());
  }
  if (after.loadCases[loadCase] == p.loadCases[loadCase]) return {};  // no change: not modified
  replaceProject(doc, after, QObject::tr("edit signal"));
  return {};
}

}  // namespace ek::ui
