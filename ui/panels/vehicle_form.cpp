// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/panels/vehicle_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QVBoxLayout>

#include "engine/core/error.h"
#include "engine/model/validate.h"
#include "ui/document/number_entry.h"
#include "ui/document/project_document.h"

namespace ek::ui {

VehicleForm::VehicleForm(const std::optional<VehicleRow>& vehicle, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Vehicle data"));
  const VehicleRow v = vehicle.value_or(VehicleRow{});
  auto* layout = new QVBoxLayout(this);
  enabled_ = new QCheckBox(tr("vehicle data (anti-dive / anti-lift / anti-squat, roll gradient)"), this);
  enabled_->setChecked(vehicle.has_value());
  layout->addWidget(enabled_);
  auto* form = new QFormLayout;
  axle_ = new QComboBox(this);
  axle_->addItems({"front", "rear"});
  axle_->setCurrentIndex(v.frontAxle ? 0 : 1);
  axle_->setToolTip(tr("Which axle of the vehicle this project is"));
  form->addRow(tr("axle"), axle_);
  brakes_ = new QComboBox(this);
  brakes_->addItems({"outboard", "inboard"});
  brakes_->setCurrentIndex(v.inboardBrakes ? 1 : 0);
  brakes_->setToolTip(tr("outboard: in the wheel, the carrier reacts the brake torque; inboard: at the differential "
                         "or the subframe, the drive shaft carries it to the vehicle"));
  form->addRow(tr("brakes"), brakes_);
  const struct {
    const char* label;
    double VehicleRow::*member;
    const char* help;
  } all[] = {
      {"wheelbase [m]", &VehicleRow::wheelbase, "distance between the axles"},
      {"cg height [m]", &VehicleRow::cgHeight, "centre of gravity above the ground"},
      {"front brake share", &VehicleRow::frontBrakeShare, "share of the braking force on the front axle, 0..1"},
      {"front drive share", &VehicleRow::frontDriveShare, "share of the drive force on the front axle, 0..1"},
      {"sprung mass [kg]", &VehicleRow::sprungMass, "for the roll gradient; 0: no roll gradient"},
      {"sprung mass front share", &VehicleRow::frontMassShare, "share of the sprung mass on the front axle, 0..1"},
      {"other axle roll stiffness [N m/deg]", &VehicleRow::otherAxleRollStiffness,
       "the axle this project does not hold (e.g. from its own project's K&C metrics)"},
      {"other axle roll centre height [m]", &VehicleRow::otherAxleRollCentreHeight, "above the ground"}};
  for (const auto& f : all) {
    auto* edit = new QLineEdit(numberText(v.*(f.member)), this);
    edit->setToolTip(tr(f.help));
    form->addRow(tr(f.label), edit);
    fields_.push_back({f.label, edit, f.member});
  }
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  auto enable = [this](bool on) {
    axle_->setEnabled(on);
    brakes_->setEnabled(on);
    for (const Field& f : fields_) f.edit->setEnabled(on);
  };
  connect(enabled_, &QCheckBox::toggled, this, enable);
  enable(enabled_->isChecked());
}

QLineEdit* VehicleForm::field(const QString& label) const {
  for (const Field& f : fields_)
    if (f.label == label) return f.edit;
  return nullptr;
}

std::optional<VehicleRow> VehicleForm::vehicle(QString* error) const {
  if (!enabled_->isChecked()) return std::nullopt;
  VehicleRow v;
  v.frontAxle = axle_->currentIndex() == 0;
  v.inboardBrakes = brakes_->currentIndex() == 1;
  QStringList problems;
  for (const Field& f : fields_) {
    double x = 0.0;
    QString why;
    if (parseTypedNumber(f.edit->text(), x, &why)) v.*(f.member) = x;
    else problems << tr("%1: %2").arg(f.label, why);
  }
  if (error) *error = problems.join("\n");
  return v;
}

QString editVehicle(ProjectDocument* doc, const std::optional<VehicleRow>& vehicle) {
  const Project& p = doc->project();
  if (vehicle == p.vehicle) return {};  // no change: not modified
  Project after = p;
  after.vehicle = vehicle;
  try {
    validate(after);
  } catch (const ModelError& e) {
    return QString::fromStdString(e.what());
  }
  replaceProject(doc, after, vehicle ? QObject::tr("edit vehicle data") : QObject::tr("remove vehicle data"));
  return {};
}

}  // namespace ek::ui
