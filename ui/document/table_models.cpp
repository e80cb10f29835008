// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/table_models.h"

#include <QColor>
#include <QLocale>
#include <QRegularExpression>
#include <QUndoCommand>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/model/joint_presets.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "ui/document/hardpoints.h"
#include "ui/document/number_entry.h"
#include "ui/document/units.h"

namespace ek::ui {

QString columnHelp(const QString& header) {
  const QString h = header.toLower();
  struct Rule {
    const char* word;
    const char* help;
  };
  // The first matching rule explains the column (docs/project-format.md has the details).
  static const Rule rules[] = {
      // The steering racks' columns: "stiffness" and "damping" mean laws elsewhere.
      {"column stiffness", "Torsional stiffness of the steering column and torsion bar in series, at the steering wheel."},
      {"column damping", "Torsional damping of the steering column, at the steering wheel."},
      {"ratio", "Rack travel per steering-wheel angle (the pinion radius): 50 mm per turn is 0.00796 m/rad. "
                "Negative: a positive angle moves the rack along -z of marker J. Or \"curve ID\": a variable ratio, "
                "the curve of rack travel [m] against steering-wheel angle [rad] (its slope is the ratio)."},
      {"steering input", "The steering-wheel angle: a rotation input (id) that turns the steering wheel's body."},
      // The flexible bodies' columns first: their words recur in other tables' headers.
      {"beam points", "The beam axis through these points, \"x y z; x y z; ...\" in metres in the body frame (at "
                      "least two)."},
      {"elements per segment", "Beam elements between two consecutive points."},
      {"up x", "A direction across the beam (body frame) that fixes the section's local y axis."},
      {"up y", "A direction across the beam (body frame) that fixes the section's local y axis."},
      {"up z", "A direction across the beam (body frame) that fixes the section's local y axis."},
      {"section area", "Cross-section area of the beam."},
      {"section iy", "Second moment of area about the section's local y axis (bending in the x-z plane)."},
      {"section iz", "Second moment of area about the section's local z axis (bending in the x-y plane)."},
      {"section torsion", "Saint-Venant torsion constant J of the section."},
      {"section warping", "Warping constant of an open thin-walled section (0: no warping degree of freedom)."},
      {"section shear", "Shear correction factor of the section along that axis (5/6 for a rectangle)."},
      {"material e ", "Young's modulus of the beam's material."},
      {"material g ", "Shear modulus of the beam's material."},
      {"material density", "Density of the beam's material."},
      {"reduced from", "beams: built from this row's beams; otherwise the FE model the body was reduced from "
                       "(elastokin-sim --import-fe)."},
      {"modes", "Fixed-interface normal modes kept by the Craig-Bampton reduction, besides the nodes' constraint "
                "modes."},
      {"max frequency", "Elastic modes of the reduced body above this frequency are left out (0: all kept)."},
      {"damping ratio", "Modal damping ratio of every elastic mode."},
      {"stiffness", "Stiffness law: a number (linear, force = coefficient x deflection) or \"curve ID\" (force "
                    "against deflection from the Curves table). Zero: free in this direction."},
      {"damping", "Damping law: a number (force = coefficient x deflection rate) or \"curve ID\" (force against "
                  "rate)."},
      {"damper", "Damper law: a number (force = coefficient x rate of extension) or \"curve ID\"."},
      {"spring", "Spring law: a number (force = coefficient x (length - free length)) or \"curve ID\"."},
      {"preload", "Force (or torque) at zero deflection, on marker I in J's frame."},
      {"free length", "Length at which the spring is unloaded; \"as modelled\": the markers' distance."},
      {"clearance", "Travel before the stop touches."},
      {"marker_i", "Marker I (id): the element's force acts on it, its deflection is I relative to J."},
      {"marker_j", "Marker J (id): the frame in which the deflection is measured."},
      {"marker", "A marker (id; choose from the list)."},
      {"body", "The body (id) the marker belongs to; its position is in that body's frame."},
      {"carrier", "The wheel carrier (id of a body): the knuckle the wheel turns on."},
      {"input", "An input (id) of the Inputs table."},
      {"position", "Position: global for a body's reference point, in the body's frame for a marker."},
      {"orientation", "Cardan angles alpha_z, alpha_y, alpha_x of the frame (R = Rz Ry Rx)."},
      {"direction", "Direction of the force, torque or motion (normalized), in the frame chosen under 'frame'."},
      {"frame", "global: the direction is fixed in space; marker: it turns with the marker."},
      {"kind", "force or torque on a free body; translation or rotation prescribes a fixed body's motion."},
      {"mass", "Mass of the body; fixed bodies have none."},
      {"inertia", "Inertia about the centre of mass in the body frame: Ixx, Iyy, Izz, Ixy, Ixz, Iyz."},
      {"kg m^2", "A moment (Ixx, Iyy, Izz) or product (Ixy, Ixz, Iyz) of inertia about the centre of mass, in the "
                 "body frame."},
      {"signals", "How many signals drive inputs in this load case (edited in the Signals table)."},
      {"speed follower", "The driver that holds the vehicle body's forward speed with the wheels' drive torques "
                         "(docs/steering.md); set in the project file."},
      {"path follower", "The driver that steers the vehicle body along a path with the steering-wheel angle "
                        "(docs/steering.md, pure pursuit of a preview point); set in the project file."},
      {"com", "Centre of mass in the body frame."},
      {"velocity", "Initial velocity (a run starting as modelled)."},
      {"fixed", "yes: the body is ground or a driven rig body (no degrees of freedom)."},
      {"subsystem", "A group name, used for the colours of the 3D view."},
      {"interpolation", "linear, pchip (monotone cubic) or spline between the curve's points."},
      {"extrapolation", "linear (the end slope continues) or constant beyond the points."},
      {"points", "The curve's points as x, y pairs; x increasing."},
      {"load case", "The load case the signal belongs to."},
      {"duration", "Simulated time of the load case."},
      {"value", "Constant value; the value before a step or ramp; the offset of a sine, chirp or bump."},
      {"after", "The value after the step, or at the ramp's end."},
      {"end frequency", "The chirp's frequency at its end."},
      {"time", "The step's time, or the start of a ramp, sine, chirp or bump."},
      {"end", "The end of a ramp, chirp or bump."},
      {"initial state", "equilibrium: the static equilibrium under the inputs at the start; as modelled: the design pose."},
      {"type", "Signal type: constant, step, ramp, sine, chirp, table (CSV file) or bump (cosine)."},
      {"amplitude", "Amplitude of the sine or chirp; height of the bump."},
      {"frequency", "Frequency of the sine, or the chirp's start frequency."},
      {"phase", "Phase of the sine."},
      {"file", "CSV file (time, value) of a table signal, relative to the project file."},
      {"quantity", "What the output measures: marker position, displacement, velocity, body angles, bushing force, ..."},
      {"component", "Which component of the quantity: x, y, z, rx, ry, rz, or a wheel channel."},
      {"element", "The marker, body, bushing, P2P element or input (id) the output measures."},
      {"name", "A name shown in lists, legends and messages."},
      {"id", "Unique number of the row; other tables refer to it."},
  };
  for (const Rule& r : rules)
    if (h.contains(QLatin1String(r.word))) {
      QString text = QObject::tr(r.help);
      const int unit = header.lastIndexOf('[');
      if (unit >= 0) text += QObject::tr(" Unit: %1.").arg(header.mid(unit + 1).chopped(1));
      return text;
    }
  return header;
}

const char* tableName(Table t) {
  switch (t) {
    case Table::Bodies: return "bodies";
    case Table::Markers: return "markers";
    case Table::Bushings: return "bushings";
    case Table::P2Ps: return "p2p elements";
    case Table::SteeringRacks: return "steering racks";
    case Table::Curves: return "curves";
    case Table::Inputs: return "inputs";
    case Table::LoadCases: return "load cases";
    case Table::Signals: return "load cases";  // signals are fields of the load cases table
    case Table::Outputs: return "outputs";
    case Table::Hardpoints: return "hardpoints";  // a view of markers, bushings and P2P elements
    case Table::FlexibleBodies: return "flexible bodies";
  }
  return "";
}

TableModel::TableModel(ProjectDocument* doc, Table table) : QAbstractTableModel(doc), doc_(doc), table_(table) {
  connect(doc, &ProjectDocument::tableChanged, this, [this](Table t, int row) {
    if (t != table_) return;
    if (row >= 0 && row < rowCount()) {
      emit dataChanged(index(row, 0), index(row, columnCount() - 1));
    } else {
      beginResetModel();
      endResetModel();
    }
  });
  connect(doc, &ProjectDocument::projectReset, this, [this] {
    beginResetModel();
    endResetModel();
  });
}

void TableModel::setError(const QString& message) {
  lastError_ = message;
  if (!message.isEmpty()) emit editRejected(message);
}

namespace {

// ---- parsing helpers ------------------------------------------------------------------------

QString parseNumber(const QVariant& v, double& out) {
  if (v.typeId() == QMetaType::Double) {
    if (!std::isfinite(v.toDouble())) return QStringLiteral("value is not finite");
    out = v.toDouble();
    return {};
  }
  QString error;
  return parseTypedNumber(v.toString(), out, &error) ? QString() : error;
}

QString parseInt(const QVariant& v, int& out) {
  bool ok = false;
  const int i = v.toString().trimmed().toInt(&ok);
  if (!ok) return QStringLiteral("expected a whole number, found '%1'").arg(v.toString());
  out = i;
  return {};
}

QString lawText(const LawRow& l) {
  return l.curve ? QStringLiteral("curve %1").arg(*l.curve) : QLocale::c().toString(l.coefficient, 'g', 10);
}

QString parseLaw(const QVariant& v, LawRow& out) {
  const QString s = v.toString().trimmed();
  if (s.startsWith(QLatin1String("curve"))) {
    int id = 0;
    if (!parseInt(s.mid(5), id).isEmpty()) return QStringLiteral("expected a number or 'curve <id>', found '%1'").arg(s);
    out = LawRow{0.0, id};
    return {};
  }
  double d = 0;
  if (!parseNumber(s, d).isEmpty()) return QStringLiteral("expected a number or 'curve <id>', found '%1'").arg(s);
  out = LawRow{d, std::nullopt};
  return {};
}

// ---- generic row model --------------------------------------------------------------------

template <class Row>
struct Column {
  QString header;  ///< with unit
  QString field;   ///< the engine's field name (for matching validation messages)
  std::function<QVariant(const Row&)> get;
  std::function<QString(Row&, const QVariant&)> set;  ///< empty: read-only
  std::function<QStringList(const Project&)> choices = {};  ///< reference columns: "id: name"
};

template <class Rows>
QStringList idChoices(const Rows& rows) {
  QStringList l;
  for (const auto& r : rows) l << QStringLiteral("%1: %2").arg(r.id).arg(QString::fromStdString(r.name));
  return l;
}
QStringList bodyChoices(const Project& p) { return idChoices(p.bodies); }
QStringList markerChoices(const Project& p) { return idChoices(p.markers); }

template <class Row>
using Rows = std::vector<Row> Project::*;

/// Replaces one row; repeated edits of the same cell merge into one undo step.
template <class Row>
class SetRowCommand : public QUndoCommand {
 public:
  SetRowCommand(ProjectDocument* doc, Table t, Rows<Row> rows, int index, int column, Row before, Row after,
                const QString& text)
      : QUndoCommand(text), doc_(doc), t_(t), rows_(rows), index_(index), column_(column), before_(std::move(before)),
        after_(std::move(after)) {}
  void redo() override { apply(after_); }
  void undo() override { apply(before_); }
  int id() const override { return 1000 + static_cast<int>(t_); }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = dynamic_cast<const SetRowCommand*>(other);
    if (!o || o->index_ != index_ || o->column_ != column_) return false;
    after_ = o->after_;
    return true;
  }

 private:
  void apply(const Row& r) {
    (doc_->projectForCommand().*rows_)[index_] = r;
    doc_->notifyChanged(t_, index_);
  }
  ProjectDocument* doc_;
  Table t_;
  Rows<Row> rows_;
  int index_, column_;
  Row before_, after_;
};

/// Inserts (insert = true) or removes one row.
template <class Row>
class RowCommand : public QUndoCommand {
 public:
  RowCommand(ProjectDocument* doc, Table t, Rows<Row> rows, int index, Row row, bool insert, const QString& text)
      : QUndoCommand(text), doc_(doc), t_(t), rows_(rows), index_(index), row_(std::move(row)), insert_(insert) {}
  void redo() override { insert_ ? add() : remove(); }
  void undo() override { insert_ ? remove() : add(); }

 private:
  void add() {
    auto& v = doc_->projectForCommand().*rows_;
    v.insert(v.begin() + index_, row_);
    doc_->notifyChanged(t_, -1);
  }
  void remove() {
    auto& v = doc_->projectForCommand().*rows_;
    v.erase(v.begin() + index_);
    doc_->notifyChanged(t_, -1);
  }
  ProjectDocument* doc_;
  Table t_;
  Rows<Row> rows_;
  int index_;
  Row row_;
  bool insert_;
};

/// A command id that never merges with another (structural changes, whole-row edits).
int unmergeable() {
  static int next = -1;
  return next--;
}

template <class Row>
QString rowKey(const Row& r) {
  if constexpr (requires { r.id; }) return QStringLiteral("id %1").arg(r.id);
  else return QStringLiteral("'%1'").arg(QString::fromStdString(r.name));
}

template <class Row>
class RowTableModel final : public TableModel {
 public:
  RowTableModel(ProjectDocument* doc, Table t, Rows<Row> rows, std::vector<Column<Row>> columns,
                std::function<Row(const Project&)> fresh)
      : TableModel(doc, t), rows_(rows), columns_(std::move(columns)), fresh_(std::move(fresh)) {
    // Headers and numbers follow the display units.
    connect(&Units::instance(), &Units::changed, this, [this] {
      beginResetModel();
      endResetModel();
      emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
    });
  }

  int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(rows().size());
  }
  /// Display value = factor x SI value of column c (1 without a unit).
  double factor(int c) const { return displayHeader(columns_[c].header).second; }
  int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(columns_.size());
  }
  QVariant data(const QModelIndex& i, int role) const override {
    if (!i.isValid() || i.row() >= rowCount() || i.column() >= columnCount()) return {};
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
      const QVariant v = columns_[i.column()].get(rows()[i.row()]);
      // A reference shows "id: name" (the cell is edited, and stored, as the id).
      if (role == Qt::DisplayRole && columns_[i.column()].choices && v.typeId() == QMetaType::Int)
        for (const QString& choice : columns_[i.column()].choices(doc_->project()))
          if (choice.section(':', 0, 0) == v.toString()) return choice;
      const double f = factor(i.column());
      if (f == 1.0) return v;
      bool number = v.typeId() == QMetaType::Double;
      const double si = number ? v.toDouble() : v.toString().toDouble(&number);  // a law: a number or "curve N"
      return number ? QVariant(si * f) : v;
    }
    if (role == Qt::TextAlignmentRole && columns_[i.column()].get(rows()[i.row()]).typeId() == QMetaType::Double)
      return int(Qt::AlignRight | Qt::AlignVCenter);
    // The last rejected edit is marked on its cell, with the engine's message.
    if (i.row() == errorCell_.first && i.column() == errorCell_.second) {
      if (role == Qt::ToolTipRole) return lastError_;
      if (role == Qt::BackgroundRole) return QColor(255, 205, 205);
    }
    return {};
  }
  QVariant headerData(int section, Qt::Orientation o, int role) const override {
    if (o == Qt::Horizontal && role == Qt::ToolTipRole && section < columnCount()) return columnHelp(columns_[section].header);
    if (role != Qt::DisplayRole) return {};
    if (o == Qt::Horizontal) return section < columnCount() ? displayHeader(columns_[section].header).first : QVariant();
    return section + 1;
  }
  QString cellPath(const QModelIndex& i) const override {
    if (!i.isValid() || i.row() >= rowCount() || i.column() >= columnCount()) return {};
    const bool idRows = table_ == Table::Bodies || table_ == Table::Markers || table_ == Table::Bushings ||
                        table_ == Table::P2Ps || table_ == Table::Inputs;
    const QString key = rowKey(rows()[i.row()]);  // "id N"
    if (table_ == Table::Curves) return QStringLiteral("curves/%1/scale").arg(key.mid(3));
    if (!idRows || !key.startsWith("id ")) return {};
    const Column<Row>& col = columns_[i.column()];
    if (col.field == "id" || col.choices) return {};
    // Columns that share a field are the elements of a vector: [n] from 1.
    int element = 0, count = 0;
    for (int c = 0; c < columnCount(); ++c)
      if (columns_[c].field == col.field) {
        ++count;
        if (c <= i.column()) ++element;
      }
    return QStringLiteral("%1/%2/%3").arg(tableName(table_), key.mid(3), col.field) +
           (count > 1 ? QStringLiteral("[%1]").arg(element) : QString());
  }
  QModelIndex locate(const QString& row, const QString& field) const override {
    for (int r = 0; r < rowCount(); ++r) {
      if (rowKey(rows()[r]) != row) continue;
      for (int c = 0; c < columnCount(); ++c)
        if (columns_[c].field == field) return index(r, c);
      return index(r, 0);
    }
    return {};
  }
  Qt::ItemFlags flags(const QModelIndex& i) const override {
    if (!i.isValid()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
    if (columns_[i.column()].set) f |= Qt::ItemIsEditable;
    return f;
  }
  bool setData(const QModelIndex& i, const QVariant& value, int role) override {
    if (role != Qt::EditRole || !i.isValid() || !columns_[i.column()].set) return false;
    const Column<Row>& col = columns_[i.column()];
    Row edited = rows()[i.row()];
    // A number typed in display units goes back to SI; the value shown, typed again, is the same
    // SI value (not one differing in the last bits from the round trip).
    QVariant si = value;
    const double f = factor(i.column());
    double typed = 0.0;
    const bool isNumber = value.typeId() == QMetaType::Double ? (typed = value.toDouble(), true)
                                                               : parseTypedNumber(value.toString(), typed);
    if (f != 1.0 && isNumber) {
      double v = typed / f;
      bool oldNumber = false;
      const double old = col.get(rows()[i.row()]).toString().toDouble(&oldNumber);
      if (oldNumber && std::abs(v - old) <= 1e-12 * std::abs(old)) v = old;
      si = QVariant(v);
    }
    const QString parseError = col.set(edited, si);
    if (!parseError.isEmpty()) {
      markCell(i, QStringLiteral("%1, row %2, '%3': %4").arg(tableName(table_), rowKey(edited), col.header, parseError));
      return false;
    }
    // Symmetric editing: the same value in the left/right twin of a bushing or P2P element (not
    // its name, id or references: the twin has its own markers).
    int twin = -1;
    Row twinEdited{};
    if constexpr (std::is_same_v<Row, BushingRow> || std::is_same_v<Row, P2PRow>) {
      if (doc_->symmetricEdits() && !col.choices && col.field != "id" && col.field != "name") {
        twin = ProjectDocument::twinRow(rows(), i.row());
        if (twin >= 0) {
          twinEdited = rows()[twin];
          if (!col.set(twinEdited, si).isEmpty()) twin = -1;
        }
      }
    }
    // The engine's validation decides; an error located in this row is a rejection.
    Project trial = doc_->project();
    (trial.*rows_)[i.row()] = edited;
    if (twin >= 0) (trial.*rows_)[twin] = twinEdited;
    try {
      validate(trial);
    } catch (const ModelError& e) {
      const QString row = QString::fromStdString(e.where().row);
      if (QString::fromStdString(e.where().table) == tableName(table_) &&
          (row == rowKey(edited) || row == rowKey(rows()[i.row()]))) {
        markCell(i, QString::fromStdString(e.detail()) + QStringLiteral(" (%1)").arg(QString::fromStdString(e.where().field)));
        return false;
      }
    }
    markCell({}, {});
    const bool twinChanges = twin >= 0 && !(twinEdited == rows()[twin]);
    if (edited == rows()[i.row()] && !twinChanges) return true;  // the same value again: nothing to undo, not modified
    const QString text = QStringLiteral("edit %1 %2").arg(tableName(table_), col.header);
    if (twinChanges) doc_->undoStack()->beginMacro(text + QStringLiteral(" (symmetric)"));
    if (!(edited == rows()[i.row()]))
      doc_->undoStack()->push(new SetRowCommand<Row>(doc_, table_, rows_, i.row(), i.column(), rows()[i.row()], edited, text));
    if (twinChanges) {
      doc_->undoStack()->push(new SetRowCommand<Row>(doc_, table_, rows_, twin, i.column(), rows()[twin], twinEdited, text));
      doc_->undoStack()->endMacro();
    }
    return true;
  }
  QStringList choices(int column) const override {
    if (column < 0 || column >= columnCount() || !columns_[column].choices) return {};
    return columns_[column].choices(doc_->project());
  }
  bool addRow() override {
    doc_->undoStack()->push(new RowCommand<Row>(doc_, table_, rows_, rowCount(), fresh_(doc_->project()), true,
                                                QStringLiteral("add row to %1").arg(tableName(table_))));
    return true;
  }
  /// Named kinds of new row, each made from the project.
  void setVariants(std::vector<std::pair<QString, std::function<Row(const Project&)>>> variants) {
    variants_ = std::move(variants);
  }
  QStringList addVariants() const override {
    QStringList names;
    for (const auto& v : variants_) names << v.first;
    return names;
  }
  bool addRowVariant(int k) override {
    if (k < 0 || k >= static_cast<int>(variants_.size())) return false;
    doc_->undoStack()->push(new RowCommand<Row>(doc_, table_, rows_, rowCount(), variants_[k].second(doc_->project()), true,
                                                QStringLiteral("add %1 to %2").arg(variants_[k].first, tableName(table_))));
    return true;
  }
  bool duplicateRow(int row) override {
    if (row < 0 || row >= rowCount()) return false;
    Row copy = rows()[row];
    const Row fresh = fresh_(doc_->project());
    if constexpr (requires { copy.id; }) copy.id = fresh.id;  // a new unique id
    else copy.name = fresh.name;
    doc_->undoStack()->push(new RowCommand<Row>(doc_, table_, rows_, row + 1, copy, true,
                                                QStringLiteral("duplicate row of %1").arg(tableName(table_))));
    return true;
  }
  bool removeRowAt(int row) override {
    if (row < 0 || row >= rowCount()) return false;
    doc_->undoStack()->push(new RowCommand<Row>(doc_, table_, rows_, row, rows()[row], false,
                                                QStringLiteral("delete row of %1").arg(tableName(table_))));
    return true;
  }

 private:
  void markCell(const QModelIndex& i, const QString& message) {
    const auto old = errorCell_;
    errorCell_ = i.isValid() ? std::pair{i.row(), i.column()} : std::pair{-1, -1};
    setError(message);
    for (const auto& cell : {old, errorCell_})
      if (cell.first >= 0 && cell.first < rowCount()) emit dataChanged(index(cell.first, cell.second), index(cell.first, cell.second));
  }
  std::pair<int, int> errorCell_{-1, -1};
  const std::vector<Row>& rows() const { return doc_->project().*rows_; }
  Rows<Row> rows_;
  std::vector<Column<Row>> columns_;
  std::function<Row(const Project&)> fresh_;
  std::vector<std::pair<QString, std::function<Row(const Project&)>>> variants_;
};

/// Markers for a new joint: the first pair on different bodies that coincide as modelled and that
/// no bushing joins yet; else the first two markers on different bodies; else the first two.
std::pair<int, int> jointMarkers(const Project& p) {
  std::vector<Vec3> at;
  std::vector<int> body;
  for (const auto& m : p.markers) {
    at.push_back(markerPositionAsModelled(p, m));
    body.push_back(m.body);
  }
  auto joined = [&](int i, int j) {
    return std::any_of(p.bushings.begin(), p.bushings.end(), [&](const BushingRow& r) {
      return (r.markerI == i && r.markerJ == j) || (r.markerI == j && r.markerJ == i);
    });
  };
  const std::size_t n = p.markers.size();
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b)
      if (body[a] != body[b] && (at[a] - at[b]).norm() < 1e-6 && !joined(p.markers[a].id, p.markers[b].id))
        return {p.markers[a].id, p.markers[b].id};
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b)
      if (body[a] != body[b]) return {p.markers[a].id, p.markers[b].id};
  return {n > 0 ? p.markers[0].id : 0, n > 1 ? p.markers[1].id : 0};
}

template <class Row>
int nextId(const std::vector<Row>& rows) {
  int id = 0;
  for (const auto& r : rows) id = std::max(id, r.id);
  return id + 1;
}

// Column helpers.
template <class Row>
Column<Row> intCol(QString h, QString f, int Row::*m) {
  return {h, f, [m](const Row& r) { return QVariant(r.*m); },
          [m](Row& r, const QVariant& v) { return parseInt(v, r.*m); }};
}
template <class Row>
Column<Row> textCol(QString h, QString f, std::string Row::*m) {
  return {h, f, [m](const Row& r) { return QVariant(QString::fromStdString(r.*m)); },
          [m](Row& r, const QVariant& v) {
            r.*m = v.toString().toStdString();
            return QString();
          }};
}
template <class Row>
Column<Row> numCol(QString h, QString f, std::function<double&(Row&)> ref) {
  return {h, f, [ref](const Row& r) { return QVariant(ref(const_cast<Row&>(r))); },
          [ref](Row& r, const QVariant& v) { return parseNumber(v, ref(r)); }};
}
template <class Row>
void vecCols(std::vector<Column<Row>>& cols, const QString& what, const QString& unit, const QString& field,
             Vec3 Row::*m, const char* names[3]) {
  for (int k = 0; k < 3; ++k)
    cols.push_back(numCol<Row>(QStringLiteral("%1 %2 [%3]").arg(what, names[k], unit), field,
                               [m, k](Row& r) -> double& { return (r.*m)[k]; }));
}
template <class Row>
Column<Row> lawCol(QString h, QString f, std::function<LawRow&(Row&)> ref) {
  return {h, f, [ref](const Row& r) { return QVariant(lawText(ref(const_cast<Row&>(r)))); },
          [ref](Row& r, const QVariant& v) { return parseLaw(v, ref(r)); }};
}

/// "x", "-y", "z", or three numbers separated by commas or spaces.
QString parseDirection(const QString& text, Vec3& out) {
  const QString t = text.trimmed().toLower();
  const double sign = t.startsWith('-') ? -1.0 : 1.0;
  const QString axis = t.startsWith('-') || t.startsWith('+') ? t.mid(1) : t;
  if (axis == "x" || axis == "y" || axis == "z") {
    out = Vec3::Zero();
    out[axis == "x" ? 0 : axis == "y" ? 1 : 2] = sign;
    return {};
  }
  const QStringList parts = t.split(QRegularExpression("[,;\\s]+"), Qt::SkipEmptyParts);
  Vec3 v;
  bool ok = parts.size() == 3;
  for (int k = 0; ok && k < 3; ++k) {
    v[k] = QLocale::c().toDouble(parts[k], &ok);
    ok = ok && std::isfinite(v[k]);
  }
  if (!ok) return QStringLiteral("expected x, y, z (or -x, ...) or three numbers, found '%1'").arg(text);
  if (v.norm() == 0.0) return QStringLiteral("must not be zero");
  out = v;
  return {};
}

/// Every quantity with each of its components, as the outputs' combined cell shows them.
QStringList outputMeasures() {
  QStringList out;
  for (int q = 0; q <= static_cast<int>(kLastOutputQuantity); ++q) {
    const auto quantity = OutputQuantity(q);
    const QString name = toString(quantity);
    QStringList components;
    switch (quantity) {
      case OutputQuantity::MarkerPosition:
      case OutputQuantity::MarkerDisplacement:
      case OutputQuantity::MarkerVelocity: components = {"x", "y", "z"}; break;
      case OutputQuantity::BodyAngles: components = {"rz", "ry", "rx"}; break;
      case OutputQuantity::BodyAngularVelocity: components = {"rx", "ry", "rz"}; break;
      case OutputQuantity::BushingForce:
      case OutputQuantity::BushingDeflection: components = {"x", "y", "z", "rx", "ry", "rz"}; break;
      case OutputQuantity::BushingBranchDeflection:  // the first two branches; more are typed
        for (const char* d : {"x", "y", "z", "rx", "ry", "rz"}) components << QString(d) + "1" << QString(d) + "2";
        break;
      case OutputQuantity::P2PForce:
      case OutputQuantity::P2PLength:
      case OutputQuantity::Input: break;
      case OutputQuantity::Wheel:
        for (const char* w : kWheelComponents) components << w;
        break;
      case OutputQuantity::ErrorEstimate:
        for (const char* e : kErrorEstimateComponents) components << e;
        break;
      case OutputQuantity::ModalCoordinate:  // the first six modes; more are typed
        for (int k = 1; k <= 6; ++k) components << QString("q%1").arg(k) << QString("qd%1").arg(k);
        break;
      case OutputQuantity::Tyre:
        for (const char* t : kTyreComponents) components << t;
        break;
      case OutputQuantity::SteeringRack:
        for (const char* t : kSteeringRackComponents) components << t;
        break;
    }
    if (components.isEmpty()) out << name;
    for (const QString& c : components) out << name + " " + c;
  }
  return out;
}

const char* kXyz[3] = {"x", "y", "z"};
const char* kAngles[3] = {"alpha_z", "alpha_y'", "alpha_x''"};

std::unique_ptr<TableModel> bodies(ProjectDocument* d) {
  std::vector<Column<BodyRow>> c;
  c.push_back(intCol<BodyRow>("id", "id", &BodyRow::id));
  c.push_back(textCol<BodyRow>("name", "name", &BodyRow::name));
  c.push_back({"fixed", "fixed", [](const BodyRow& r) { return QVariant(r.fixed ? "yes" : "no"); },
               [](BodyRow& r, const QVariant& v) {
                 const QString s = v.toString().trimmed().toLower();
                 if (s != "yes" && s != "no" && s != "true" && s != "false") return QString("expected yes or no");
                 r.fixed = s == "yes" || s == "true";
                 return QString();
               }});
  c.back().choices = [](const Project&) { return QStringList{"yes", "no"}; };
  c.push_back(textCol<BodyRow>("subsystem", "subsystem", &BodyRow::subsystem));
  c.push_back(numCol<BodyRow>("mass [kg]", "mass [kg]", [](BodyRow& r) -> double& { return r.mass; }));
  vecCols<BodyRow>(c, "position", "m", "position [m]", &BodyRow::position, kXyz);
  vecCols<BodyRow>(c, "orientation", "rad", "orientation [rad]", &BodyRow::orientation, kAngles);
  vecCols<BodyRow>(c, "com", "m", "com [m]", &BodyRow::com, kXyz);
  const char* in[6] = {"Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz"};
  for (int k = 0; k < 6; ++k)
    c.push_back(numCol<BodyRow>(QStringLiteral("%1 [kg m^2]").arg(in[k]), "inertia [kg m^2]",
                                [k](BodyRow& r) -> double& { return r.inertia[k]; }));
  return std::make_unique<RowTableModel<BodyRow>>(d, Table::Bodies, &Project::bodies, c, [](const Project& p) {
    BodyRow b;
    b.id = nextId(p.bodies);
    b.name = "body " + std::to_string(b.id);
    b.mass = 1.0;
    b.inertia = {0.01, 0.01, 0.01, 0, 0, 0};
    return b;
  });
}

std::unique_ptr<TableModel> markers(ProjectDocument* d) {
  std::vector<Column<MarkerRow>> c;
  c.push_back(intCol<MarkerRow>("id", "id", &MarkerRow::id));
  c.push_back(textCol<MarkerRow>("name", "name", &MarkerRow::name));
  c.push_back(intCol<MarkerRow>("body", "body", &MarkerRow::body));
  c.back().choices = bodyChoices;
  vecCols<MarkerRow>(c, "position", "m", "position [m]", &MarkerRow::position, kXyz);
  vecCols<MarkerRow>(c, "orientation", "rad", "orientation [rad]", &MarkerRow::orientation, kAngles);
  return std::make_unique<RowTableModel<MarkerRow>>(d, Table::Markers, &Project::markers, c, [](const Project& p) {
    MarkerRow m;
    m.id = nextId(p.markers);
    m.name = "marker " + std::to_string(m.id);
    m.body = p.bodies.empty() ? 0 : p.bodies.front().id;
    return m;
  });
}

std::unique_ptr<TableModel> bushings(ProjectDocument* d) {
  std::vector<Column<BushingRow>> c;
  c.push_back(intCol<BushingRow>("id", "id", &BushingRow::id));
  c.push_back(textCol<BushingRow>("name", "name", &BushingRow::name));
  c.push_back(intCol<BushingRow>("marker i", "marker_i", &BushingRow::markerI));
  c.back().choices = markerChoices;
  c.push_back(intCol<BushingRow>("marker j", "marker_j", &BushingRow::markerJ));
  c.back().choices = markerChoices;
  for (int k = 0; k < 6; ++k) {
    const QString dir = kBushingDirections[k];
    const bool rot = k >= 3;
    const QString ks = rot ? "stiffness [N m/rad]" : "stiffness [N/m]", kd = rot ? "damping [N m s/rad]" : "damping [N s/m]",
                  kp = rot ? "preload [N m]" : "preload [N]";
    c.push_back(lawCol<BushingRow>(dir + " " + ks, dir + "." + ks,
                                   [k](BushingRow& r) -> LawRow& { return r.directions[k].stiffness; }));
    c.push_back(lawCol<BushingRow>(dir + " " + kd, dir + "." + kd,
                                   [k](BushingRow& r) -> LawRow& { return r.directions[k].damping; }));
    c.push_back(numCol<BushingRow>(dir + " " + kp, dir + "." + kp,
                                   [k](BushingRow& r) -> double& { return r.directions[k].preload; }));
  }
  // A new bushing is a rubber bushing (never without stiffness) on the first two coincident
  // markers of different bodies that no bushing joins yet; the Add menu offers joint presets.
  auto fresh = [](const Project& p, JointPreset preset) {
    BushingRow b;
    b.id = nextId(p.bushings);
    b.name = std::string(preset == JointPreset::Rubber ? "bushing" : jointPresetName(preset)) + " " + std::to_string(b.id);
    const auto [i, j] = jointMarkers(p);
    b.markerI = i;
    b.markerJ = j;
    applyJointPreset(b, preset, p);
    return b;
  };
  auto model = std::make_unique<RowTableModel<BushingRow>>(d, Table::Bushings, &Project::bushings, c,
                                                           [fresh](const Project& p) { return fresh(p, JointPreset::Rubber); });
  std::vector<std::pair<QString, std::function<BushingRow(const Project&)>>> variants;
  for (JointPreset preset : kJointPresets)
    variants.push_back({QString::fromUtf8(jointPresetName(preset)), [fresh, preset](const Project& p) { return fresh(p, preset); }});
  model->setVariants(std::move(variants));
  return model;
}

std::unique_ptr<TableModel> steeringRacks(ProjectDocument* d) {
  using R = SteeringRackRow;
  std::vector<Column<R>> c;
  c.push_back(intCol<R>("id", "id", &R::id));
  c.push_back(textCol<R>("name", "name", &R::name));
  c.push_back(intCol<R>("steering input", "steering input", &R::input));
  c.back().choices = [](const Project& p) { return idChoices(p.inputs); };
  c.push_back(intCol<R>("marker i (rack)", "marker_i", &R::markerI));
  c.back().choices = markerChoices;
  c.push_back(intCol<R>("marker j (housing, z = axis)", "marker_j", &R::markerJ));
  c.back().choices = markerChoices;
  // A number (a constant ratio) or "curve N" (a variable one: the travel curve), as a law's cell.
  c.push_back({"ratio [m/rad]", "ratio [m/rad]",
               [](const R& r) { return QVariant(lawText(LawRow{r.ratio, r.travelCurve})); },
               [](R& r, const QVariant& v) {
                 LawRow law{r.ratio, r.travelCurve};
                 const QString error = parseLaw(v, law);
                 if (!error.isEmpty()) return error;
                 r.ratio = law.coefficient;
                 r.travelCurve = law.curve;
                 return QString();
               }});
  c.push_back(numCol<R>("column stiffness [N m/rad]", "column stiffness [N m/rad]",
                        [](R& r) -> double& { return r.columnStiffness; }));
  c.push_back(numCol<R>("column damping [N m s/rad]", "column damping [N m s/rad]",
                        [](R& r) -> double& { return r.columnDamping; }));
  return std::make_unique<RowTableModel<R>>(d, Table::SteeringRacks, &Project::steeringRacks, c, [](const Project& p) {
    R r;
    r.id = nextId(p.steeringRacks);
    r.name = "steering rack " + std::to_string(r.id);
    for (const auto& in : p.inputs)
      if (in.kind == InputKind::Rotation) {
        r.input = in.id;
        break;
      }
    // The rack on the first marker of a free body, the housing on the first of another body.
    auto fixed = [&p](int body) {
      for (const auto& b : p.bodies)
        if (b.id == body) return b.fixed;
      return true;
    };
    for (const auto& m : p.markers)
      if (!fixed(m.body)) {
        r.markerI = m.id;
        for (const auto& h : p.markers)
          if (h.body != m.body) {
            r.markerJ = h.id;
            break;
          }
        break;
      }
    r.ratio = 0.05 / (2.0 * M_PI);   // 50 mm of travel per turn of the steering wheel
    r.columnStiffness = 2.0 * 180.0 / M_PI * 10.0;  // a stiff column: 20 N m/deg
    return r;
  });
}

std::unique_ptr<TableModel> p2ps(ProjectDocument* d) {
  std::vector<Column<P2PRow>> c;
  c.push_back(intCol<P2PRow>("id", "id", &P2PRow::id));
  c.push_back(textCol<P2PRow>("name", "name", &P2PRow::name));
  c.push_back(intCol<P2PRow>("marker i", "marker_i", &P2PRow::markerI));
  c.back().choices = markerChoices;
  c.push_back(intCol<P2PRow>("marker j", "marker_j", &P2PRow::markerJ));
  c.back().choices = markerChoices;
  c.push_back({"free length [m]", "free length [m]",
               [](const P2PRow& r) { return r.freeLength ? QVariant(*r.freeLength) : QVariant(QString("as modelled")); },
               [](P2PRow& r, const QVariant& v) {
                 const QString s = v.toString().trimmed();
                 if (s.isEmpty() || s == "as modelled") {
                   r.freeLength.reset();
                   return QString();
                 }
                 double x = 0;
                 const QString e = parseNumber(v, x);
                 if (e.isEmpty()) r.freeLength = x;
                 return e;
               }});
  c.push_back(numCol<P2PRow>("preload [N]", "preload [N]", [](P2PRow& r) -> double& { return r.preload; }));
  c.push_back(lawCol<P2PRow>("spring [N/m]", "spring [N/m]", [](P2PRow& r) -> LawRow& { return r.spring; }));
  c.push_back(lawCol<P2PRow>("damper [N s/m]", "damper [N s/m]", [](P2PRow& r) -> LawRow& { return r.damper; }));
  for (auto [name, member] : {std::pair{QString("bump stop"), &P2PRow::bumpStop},
                              std::pair{QString("rebound stop"), &P2PRow::reboundStop}}) {
    c.push_back({name + " clearance [m]", name + ".clearance [m]",
                 [member](const P2PRow& r) { return (r.*member) ? QVariant((r.*member)->clearance) : QVariant(QString("none")); },
                 [member](P2PRow& r, const QVariant& v) {
                   const QString s = v.toString().trimmed();
                   if (s.isEmpty() || s == "none") {
                     (r.*member).reset();
                     return QString();
                   }
                   double x = 0;
                   const QString e = parseNumber(v, x);
                   if (!e.isEmpty()) return e;
                   if (!(r.*member)) r.*member = StopRow{};
                   (r.*member)->clearance = x;
                   return QString();
                 }});
    c.push_back({name + " stiffness [N/m]", name + ".stiffness [N/m]",
                 [member](const P2PRow& r) { return (r.*member) ? QVariant(lawText((r.*member)->law)) : QVariant(QString("none")); },
                 [member](P2PRow& r, const QVariant& v) {
                   if (!(r.*member)) r.*member = StopRow{};
                   return parseLaw(v, (r.*member)->law);
                 }});
  }
  return std::make_unique<RowTableModel<P2PRow>>(d, Table::P2Ps, &Project::p2ps, c, [](const Project& p) {
    P2PRow e;
    e.id = nextId(p.p2ps);
    e.name = "p2p " + std::to_string(e.id);
    if (p.markers.size() >= 2) e.markerI = p.markers[0].id, e.markerJ = p.markers[1].id;
    return e;
  });
}

std::unique_ptr<TableModel> curves(ProjectDocument* d) {
  std::vector<Column<CurveRow>> c;
  c.push_back(intCol<CurveRow>("id", "id", &CurveRow::id));
  c.push_back(textCol<CurveRow>("name", "name", &CurveRow::name));
  c.push_back(textCol<CurveRow>("interpolation", "interpolation", &CurveRow::interpolation));
  c.back().choices = [](const Project&) { return QStringList{"linear", "pchip", "spline"}; };
  c.push_back(textCol<CurveRow>("extrapolation", "extrapolation", &CurveRow::extrapolation));
  c.back().choices = [](const Project&) { return QStringList{"linear", "constant"}; };
  c.push_back({"points", "points", [](const CurveRow& r) { return QVariant(static_cast<int>(r.points.size())); }, {}});
  return std::make_unique<RowTableModel<CurveRow>>(d, Table::Curves, &Project::curves, c, [](const Project& p) {
    CurveRow r;
    r.id = nextId(p.curves);
    r.name = "curve " + std::to_string(r.id);
    r.points = {{-1.0, -1.0}, {0.0, 0.0}, {1.0, 1.0}};
    return r;
  });
}

std::unique_ptr<TableModel> inputs(ProjectDocument* d) {
  std::vector<Column<InputRow>> c;
  c.push_back(intCol<InputRow>("id", "id", &InputRow::id));
  c.push_back(textCol<InputRow>("name", "name", &InputRow::name));
  c.push_back(intCol<InputRow>("marker", "marker", &InputRow::marker));
  c.back().choices = markerChoices;
  c.push_back({"kind", "kind", [](const InputRow& r) { return QVariant(inputKindName(r.kind)); },
               [](InputRow& r, const QVariant& v) {
                 const QString s = v.toString().trimmed();
                 for (InputKind k : {InputKind::Force, InputKind::Torque, InputKind::Translation, InputKind::Rotation})
                   if (s == inputKindName(k)) {
                     r.kind = k;
                     return QString();
                   }
                 return QString("expected force, torque, translation or rotation");
               }});
  c.back().choices = [](const Project&) { return QStringList{"force", "torque", "translation", "rotation"}; };
  c.push_back({"frame", "frame", [](const InputRow& r) { return QVariant(r.frame == InputFrame::Global ? "global" : "marker"); },
               [](InputRow& r, const QVariant& v) {
                 const QString s = v.toString().trimmed();
                 if (s != "global" && s != "marker") return QString("expected global or marker");
                 r.frame = s == "global" ? InputFrame::Global : InputFrame::Marker;
                 return QString();
               }});
  c.back().choices = [](const Project&) { return QStringList{"global", "marker"}; };
  // The direction as one cell, so that x can become z in one edit (three cells could not: the
  // first edit would make it zero or oblique): "x", "-y", "z" or three numbers.
  c.push_back({"direction", "direction",
               [](const InputRow& r) {
                 return QVariant(QStringLiteral("%1, %2, %3")
                                     .arg(QString::fromStdString(shortestText(r.direction.x())),
                                          QString::fromStdString(shortestText(r.direction.y())),
                                          QString::fromStdString(shortestText(r.direction.z()))));
               },
               [](InputRow& r, const QVariant& v) { return parseDirection(v.toString(), r.direction); }});
  c.back().choices = [](const Project&) { return QStringList{"x", "y", "z", "-x", "-y", "-z"}; };
  return std::make_unique<RowTableModel<InputRow>>(d, Table::Inputs, &Project::inputs, c, [](const Project& p) {
    InputRow r;
    r.id = nextId(p.inputs);
    r.name = "input " + std::to_string(r.id);
    // A force acts on a free body: the first marker of one (a fixed body's force moves nothing).
    r.marker = p.markers.empty() ? 0 : p.markers.front().id;
    for (const auto& m : p.markers) {
      auto body = std::find_if(p.bodies.begin(), p.bodies.end(), [&](const BodyRow& b) { return b.id == m.body; });
      if (body != p.bodies.end() && !body->fixed) {
        r.marker = m.id;
        break;
      }
    }
    return r;
  });
}

std::unique_ptr<TableModel> loadCases(ProjectDocument* d) {
  std::vector<Column<LoadCaseRow>> c;
  c.push_back(textCol<LoadCaseRow>("name", "name", &LoadCaseRow::name));
  c.push_back(numCol<LoadCaseRow>("duration [s]", "duration [s]", [](LoadCaseRow& r) -> double& { return r.duration; }));
  c.push_back({"initial state", "initial state",
               [](const LoadCaseRow& r) {
                 return QVariant(r.initialState == InitialState::Equilibrium ? "equilibrium" : "as modelled");
               },
               [](LoadCaseRow& r, const QVariant& v) {
                 const QString s = v.toString().trimmed();
                 if (s != "equilibrium" && s != "as modelled") return QString("expected equilibrium or as modelled");
                 r.initialState = s == "equilibrium" ? InitialState::Equilibrium : InitialState::AsModelled;
                 return QString();
               }});
  c.back().choices = [](const Project&) { return QStringList{"equilibrium", "as modelled"}; };
  c.push_back({"signals", "signals", [](const LoadCaseRow& r) { return QVariant(static_cast<int>(r.drives.size())); }, {}});
  c.push_back({"speed follower", "speed follower",
               [](const LoadCaseRow& r) {
                 if (!r.speedFollower) return QVariant(QString("none"));
                 const SpeedFollowerRow& f = *r.speedFollower;
                 QStringList ids;
                 for (int id : f.driveInputs) ids << QString::number(id);
                 return QVariant(QStringLiteral("%1 m/s: body %2, inputs %3, gain %4 N m s/m")
                                     .arg(f.speed)
                                     .arg(f.body)
                                     .arg(ids.join(", "))
                                     .arg(f.gain));
               },
               {}});
  c.push_back({"path follower", "path follower",
               [](const LoadCaseRow& r) {
                 if (!r.pathFollower) return QVariant(QString("none"));
                 const PathFollowerRow& f = *r.pathFollower;
                 QString text = QStringLiteral("body %1, input %2: %3 points, preview %4 s (>= %5 m), gain %6 rad m")
                                    .arg(f.body)
                                    .arg(f.steeringInput)
                                    .arg(f.path.size())
                                    .arg(f.previewTime)
                                    .arg(f.minimumPreview)
                                    .arg(f.gain);
                 if (f.reactionTime > 0.0) text += QStringLiteral(", reaction %1 s").arg(f.reactionTime);
                 return QVariant(text);
               },
               {}});
  return std::make_unique<RowTableModel<LoadCaseRow>>(d, Table::LoadCases, &Project::loadCases, c, [](const Project& p) {
    LoadCaseRow r;
    r.name = "load case " + std::to_string(p.loadCases.size() + 1);
    r.duration = 1.0;
    return r;
  });
}

/// The drives of all load cases, flattened: one row per (load case, signal). An edit replaces the
/// load case (validated, one undo step).
class SignalsModel final : public TableModel {
 public:
  explicit SignalsModel(ProjectDocument* d) : TableModel(d, Table::Signals) {
    connect(d, &ProjectDocument::tableChanged, this, [this](Table t, int) {
      if (t != Table::LoadCases) return;
      beginResetModel();
      endResetModel();
    });
  }
  int rowCount(const QModelIndex& parent = {}) const override {
    if (parent.isValid()) return 0;
    int n = 0;
    for (const auto& lc : doc_->project().loadCases) n += static_cast<int>(lc.drives.size());
    return n;
  }
  int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : kColumns; }
  QVariant headerData(int section, Qt::Orientation o, int role) const override {
    if (o == Qt::Horizontal && role == Qt::ToolTipRole && section >= 0 && section < kColumns)
      return columnHelp(headerData(section, o, Qt::DisplayRole).toString());
    if (role != Qt::DisplayRole) return {};
    if (o == Qt::Vertical) return section + 1;
    static const char* h[kColumns] = {"load case", "input", "type", "value / before / from / offset", "after / to",
                                      "time / start [s]", "end [s]", "amplitude", "frequency / start f [Hz]",
                                      "end frequency [Hz]", "phase [rad]", "file"};
    return section < kColumns ? QVariant(h[section]) : QVariant();
  }
  Qt::ItemFlags flags(const QModelIndex& i) const override {
    if (!i.isValid()) return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | (i.column() > 0 ? Qt::ItemIsEditable : Qt::NoItemFlags);
  }
  QVariant data(const QModelIndex& i, int role) const override {
    int lc = 0, k = 0;
    if (!locate(i.row(), lc, k)) return {};
    if (i.row() == errorCell_.first && i.column() == errorCell_.second) {
      if (role == Qt::ToolTipRole) return lastError_;
      if (role == Qt::BackgroundRole) return QColor(255, 205, 205);
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
    const LoadCaseRow& row = doc_->project().loadCases[lc];
    const SignalRow& s = row.drives[k].signal;
    switch (i.column()) {
      case 0: return QString::fromStdString(row.name);
      case 1: return row.drives[k].input;
      case 2: return QString(toString(s.type));
      case 3: return s.value;
      case 4: return s.value2;
      case 5: return s.t0;
      case 6: return s.t1;
      case 7: return s.amplitude;
      case 8: return s.frequency;
      case 9: return s.frequency2;
      case 10: return s.phase;
      case 11: return QString::fromStdString(s.file);
    }
    return {};
  }
  bool setData(const QModelIndex& i, const QVariant& v, int role) override {
    int lc = 0, k = 0;
    if (role != Qt::EditRole || !locate(i.row(), lc, k) || i.column() == 0) return false;
    LoadCaseRow row = doc_->project().loadCases[lc];
    SignalRow& s = row.drives[k].signal;
    QString err;
    double* num[] = {nullptr, nullptr, nullptr, &s.value, &s.value2, &s.t0, &s.t1, &s.amplitude, &s.frequency,
                     &s.frequency2, &s.phase};
    if (i.column() == 1) {
      err = parseInt(v, row.drives[k].input);
    } else if (i.column() == 2) {
      bool found = false;
      for (auto t : {SignalType::Constant, SignalType::Step, SignalType::Ramp, SignalType::Sine, SignalType::Chirp,
                     SignalType::Table, SignalType::Bump})
        if (v.toString().trimmed() == toString(t)) s.type = t, found = true;
      if (!found) err = QStringLiteral("expected constant, step, ramp, sine, chirp, table or bump");
    } else if (i.column() == 11) {
      s.file = v.toString().trimmed().toStdString();
    } else {
      err = parseNumber(v, *num[i.column()]);
    }
    if (err.isEmpty()) {
      Project trial = doc_->project();
      trial.loadCases[lc] = row;
      try {
        validate(trial);
      } catch (const ModelError& e) {
        if (e.where().table == "load cases") err = QString::fromStdString(e.detail()) + " (" + QString::fromStdString(e.where().field) + ")";
      }
    }
    const auto old = errorCell_;
    errorCell_ = err.isEmpty() ? std::pair{-1, -1} : std::pair{i.row(), i.column()};
    setError(err);
    for (const auto& cell : {old, errorCell_})
      if (cell.first >= 0 && cell.first < rowCount()) emit dataChanged(index(cell.first, cell.second), index(cell.first, cell.second));
    if (!err.isEmpty()) return false;
    if (row == doc_->project().loadCases[lc]) return true;  // no change: not modified
    doc_->undoStack()->push(new SetRowCommand<LoadCaseRow>(doc_, Table::LoadCases, &Project::loadCases, lc,
                                                           1000 + i.row() * kColumns + i.column(),
                                                           doc_->project().loadCases[lc], row, "edit signal"));
    return true;
  }
  QStringList choices(int column) const override {
    if (column == 2) return {"constant", "step", "ramp", "sine", "chirp", "table", "bump"};
    return column == 1 ? idChoices(doc_->project().inputs) : QStringList();
  }
  /// Adds a constant zero signal for the first input not yet driven, to the load case of `row`
  /// (or the first load case).
  bool addRow() override { return addTo(0); }
  bool duplicateRow(int row) override {
    int lc = 0, k = 0;
    return locate(row, lc, k) && addTo(lc);
  }
  bool removeRowAt(int r) override {
    int lc = 0, k = 0;
    if (!locate(r, lc, k)) return false;
    LoadCaseRow row = doc_->project().loadCases[lc];
    row.drives.erase(row.drives.begin() + k);
    doc_->undoStack()->push(new SetRowCommand<LoadCaseRow>(doc_, Table::LoadCases, &Project::loadCases, lc, unmergeable(),
                                                           doc_->project().loadCases[lc], row, "delete signal"));
    return true;
  }

 private:
  static constexpr int kColumns = 12;
  bool addTo(int lc) {
    const Project& p = doc_->project();
    if (lc >= static_cast<int>(p.loadCases.size())) return false;
    LoadCaseRow row = p.loadCases[lc];
    for (const auto& in : p.inputs) {
      bool driven = false;
      for (const auto& d : row.drives) driven |= d.input == in.id;
      if (driven) continue;
      row.drives.push_back({in.id, SignalRow{}});
      doc_->undoStack()->push(new SetRowCommand<LoadCaseRow>(doc_, Table::LoadCases, &Project::loadCases, lc, unmergeable(),
                                                             p.loadCases[lc], row, "add signal"));
      return true;
    }
    setError(QStringLiteral("every input is already driven in load case '%1'").arg(QString::fromStdString(row.name)));
    return false;
  }
  bool locate(int r, int& lc, int& k) const {
    const auto& lcs = doc_->project().loadCases;
    for (lc = 0; lc < static_cast<int>(lcs.size()); ++lc) {
      if (r < static_cast<int>(lcs[lc].drives.size())) {
        k = r;
        return r >= 0;
      }
      r -= static_cast<int>(lcs[lc].drives.size());
    }
    return false;
  }
  std::pair<int, int> errorCell_{-1, -1};
};

/// The beams' points as one cell, "x y z; x y z; ..." in metres in the body frame: a point is
/// added or removed in one edit.
QString pointsText(const std::vector<Vec3>& points) {
  QStringList l;
  for (const Vec3& p : points)
    l << QStringLiteral("%1 %2 %3").arg(QString::fromStdString(shortestText(p.x())), QString::fromStdString(shortestText(p.y())),
                                         QString::fromStdString(shortestText(p.z())));
  return l.join("; ");
}
QString parsePoints(const QString& text, std::vector<Vec3>& out) {
  std::vector<Vec3> points;
  for (const QString& item : text.split(';', Qt::SkipEmptyParts)) {
    const QStringList xyz = item.simplified().split(' ', Qt::SkipEmptyParts);
    Vec3 p;
    bool ok = xyz.size() == 3;
    for (int k = 0; ok && k < 3; ++k) ok = parseDecimal(xyz[k].toStdString(), p[k]);
    if (!ok)
      return QStringLiteral("point %1: expected three numbers 'x y z' [m], found '%2'").arg(points.size() + 1).arg(item.trimmed());
    points.push_back(p);
  }
  if (points.size() < 2) return QStringLiteral("a beam needs at least 2 points 'x y z; x y z' [m]");
  out = std::move(points);
  return {};
}

/// Per-mode damping ratios as one cell "0.01 0.02 ..." (empty: the one ratio for all modes).
QString ratiosText(const std::vector<double>& ratios) {
  QStringList l;
  for (double z : ratios) l << QString::fromStdString(shortestText(z));
  return l.join(' ');
}
QString parseRatios(const QString& text, std::vector<double>& out) {
  std::vector<double> ratios;
  for (const QString& item : text.simplified().split(' ', Qt::SkipEmptyParts)) {
    double z = 0.0;
    if (!parseDecimal(item.toStdString(), z))
      return QStringLiteral("mode %1: expected a number, found '%2'").arg(ratios.size() + 1).arg(item);
    ratios.push_back(z);
  }
  out = std::move(ratios);
  return {};
}

/// A beam column of the flexible bodies: refused on a body reduced from an FE model (it has no beams).
Column<FlexibleBodyRow> beamCol(Column<FlexibleBodyRow> c) {
  auto set = c.set;
  c.set = [set](FlexibleBodyRow& r, const QVariant& v) {
    if (r.reduced) return QStringLiteral("this body is reduced from an FE model: it has no beams to edit");
    return set(r, v);
  };
  return c;
}

std::unique_ptr<TableModel> flexibleBodies(ProjectDocument* d) {
  using F = FlexibleBodyRow;
  std::vector<Column<F>> c;
  c.push_back(intCol<F>("id", "id", &F::id));
  c.push_back(textCol<F>("name", "name", &F::name));
  c.push_back(intCol<F>("body", "body", &F::body));
  c.back().choices = bodyChoices;
  c.push_back({"reduced from", "reduced body",
               [](const F& r) { return QVariant(r.reduced ? QString::fromStdString(r.reduced->source) : QString("beams")); },
               {}});
  c.push_back(beamCol({"beam points", "points [m]", [](const F& r) { return QVariant(pointsText(r.points)); },
                       [](F& r, const QVariant& v) { return parsePoints(v.toString(), r.points); }}));
  c.push_back(beamCol(intCol<F>("elements per segment", "elements per segment", &F::elementsPerSegment)));
  for (int k = 0; k < 3; ++k)
    c.push_back(beamCol(numCol<F>(QStringLiteral("up %1").arg(kXyz[k]), "up", [k](F& r) -> double& { return r.up[k]; })));
  const std::pair<const char*, double fe::BeamSection::*> section[] = {
      {"area [m^2]", &fe::BeamSection::area},       {"iy [m^4]", &fe::BeamSection::iy},
      {"iz [m^4]", &fe::BeamSection::iz},           {"torsion [m^4]", &fe::BeamSection::torsion},
      {"warping [m^6]", &fe::BeamSection::warping}, {"shear y", &fe::BeamSection::shearY},
      {"shear z", &fe::BeamSection::shearZ}};
  for (const auto& [key, member] : section)
    c.push_back(beamCol(numCol<F>(QString("section ") + key, QString("section.") + key,
                                  [m = member](F& r) -> double& { return r.section.*m; })));
  const std::pair<const char*, double fe::BeamMaterial::*> material[] = {{"E [Pa]", &fe::BeamMaterial::youngsModulus},
                                                                         {"G [Pa]", &fe::BeamMaterial::shearModulus},
                                                                         {"density [kg/m^3]", &fe::BeamMaterial::density}};
  for (const auto& [key, member] : material)
    c.push_back(beamCol(numCol<F>(QString("material ") + key, QString("material.") + key,
                                  [m = member](F& r) -> double& { return r.material.*m; })));
  c.push_back(beamCol(intCol<F>("modes", "modes", &F::modes)));
  c.push_back(numCol<F>("max frequency [Hz]", "max frequency [Hz]", [](F& r) -> double& { return r.maxFrequency; }));
  c.push_back(numCol<F>("damping ratio", "damping ratio", [](F& r) -> double& { return r.dampingRatio; }));
  c.push_back({"damping ratios", "damping ratios", [](const F& r) { return QVariant(ratiosText(r.dampingRatios)); },
               [](F& r, const QVariant& v) { return parseRatios(v.toString(), r.dampingRatios); }});
  c.push_back(numCol<F>("mass-proportional damping [1/s]", "mass-proportional damping [1/s]",
                        [](F& r) -> double& { return r.massDamping; }));
  c.push_back(numCol<F>("stiffness-proportional damping [s]", "stiffness-proportional damping [s]",
                        [](F& r) -> double& { return r.stiffnessDamping; }));
  return std::make_unique<RowTableModel<F>>(d, Table::FlexibleBodies, &Project::flexibleBodies, c, [](const Project& p) {
    // A new row: a 1 m steel tube (30 x 3 mm) along x on the first free body not yet flexible.
    F f;
    f.id = nextId(p.flexibleBodies);
    f.name = "flexible body " + std::to_string(f.id);
    for (const BodyRow& b : p.bodies)
      if (!b.fixed && std::none_of(p.flexibleBodies.begin(), p.flexibleBodies.end(), [&](const F& o) { return o.body == b.id; })) {
        f.body = b.id;
        break;
      }
    f.points = {Vec3(-0.5, 0, 0), Vec3(0.5, 0, 0)};
    const double ro = 0.015, ri = 0.012;
    f.section.area = M_PI * (ro * ro - ri * ri);
    f.section.iy = f.section.iz = M_PI / 4.0 * (std::pow(ro, 4) - std::pow(ri, 4));
    f.section.torsion = 2.0 * f.section.iy;
    f.material = {210e9, 81e9, 7850.0};
    return f;
  });
}

std::unique_ptr<TableModel> outputs(ProjectDocument* d) {
  std::vector<Column<OutputRow>> c;
  c.push_back(textCol<OutputRow>("name", "name", &OutputRow::name));
  // Quantity and component as one cell ("marker position x", "body angles rz", "p2p force"): they
  // depend on each other, so one edit changes both and is validated as a whole.
  c.push_back({"quantity and component", "quantity",
               [](const OutputRow& r) {
                 return QVariant(QString(toString(r.quantity)) + (r.component.empty() ? "" : " " + QString::fromStdString(r.component)));
               },
               [](OutputRow& r, const QVariant& v) {
                 const QString text = v.toString().trimmed();
                 // A branch deflection of any branch number ("... rz3"); validation checks it exists.
                 const QString branch = QString(toString(OutputQuantity::BushingBranchDeflection)) + " ";
                 int direction = 0, number = 0;
                 if (text.startsWith(branch) && parseBranchComponent(text.mid(branch.size()).toStdString(), direction, number)) {
                   r.quantity = OutputQuantity::BushingBranchDeflection;
                   r.component = text.mid(branch.size()).toStdString();
                   return QString();
                 }
                 // A modal coordinate of any mode ("... q12"); the run checks the body keeps it.
                 const QString modal = QString(toString(OutputQuantity::ModalCoordinate)) + " ";
                 bool rate = false;
                 if (text.startsWith(modal) && parseModalComponent(text.mid(modal.size()).toStdString(), number, rate)) {
                   r.quantity = OutputQuantity::ModalCoordinate;
                   r.component = text.mid(modal.size()).toStdString();
                   return QString();
                 }
                 for (const QString& choice : outputMeasures())
                   if (text == choice) {
                     for (int q = static_cast<int>(kLastOutputQuantity); q >= 0; --q) {
                       const QString name = toString(OutputQuantity(q));
                       if (text == name || text.startsWith(name + " ")) {
                         r.quantity = OutputQuantity(q);
                         r.component = text.mid(name.size()).trimmed().toStdString();
                         return QString();
                       }
                     }
                   }
                 return QStringLiteral("unknown quantity and component '%1' (choose from the list)").arg(text);
               }});
  c.back().choices = [](const Project&) { return outputMeasures(); };
  // The error estimate is the run's, not an element's: its element cell stays empty.
  c.push_back({"element", "element",
               [](const OutputRow& r) {
                 return r.quantity == OutputQuantity::ErrorEstimate ? QVariant(QString()) : QVariant(r.element);
               },
               [](OutputRow& r, const QVariant& v) {
                 if (r.quantity == OutputQuantity::ErrorEstimate)
                   return QStringLiteral("the error estimate belongs to the run, not to an element");
                 return parseInt(v, r.element);
               }});
  return std::make_unique<RowTableModel<OutputRow>>(d, Table::Outputs, &Project::outputs, c, [](const Project& p) {
    OutputRow r;
    r.name = "output " + std::to_string(p.outputs.size() + 1);
    r.element = p.markers.empty() ? 0 : p.markers.front().id;
    r.component = "x";
    return r;
  });
}

}  // namespace

QString editCurve(ProjectDocument* doc, int index, const CurveRow& row, const QString& what) {
  Project trial = doc->project();
  trial.curves[index] = row;
  try {
    validate(trial);
  } catch (const ModelError& e) {
    if (e.where().table == "curves") return QString::fromStdString(e.detail());
  }
  if (row == doc->project().curves[index]) return {};  // no change: not modified
  doc->undoStack()->push(new SetRowCommand<CurveRow>(doc, Table::Curves, &Project::curves, index, unmergeable(),
                                                     doc->project().curves[index], row, what));
  return {};
}

QString editBushing(ProjectDocument* doc, int index, const BushingRow& row, const QString& what) {
  Project trial = doc->project();
  trial.bushings[index] = row;
  const int twin = doc->symmetricEdits() ? copyToTwin(trial.bushings, index) : -1;  // the twin's laws too
  const Diagnostics d = check(trial);
  for (const Diagnostic& e : d.items())
    if (e.severity == Severity::Error && e.where.table == "bushings") return QString::fromStdString(e.text());
  const bool twinChanges = twin >= 0 && !(trial.bushings[twin] == doc->project().bushings[twin]);
  if (row == doc->project().bushings[index] && !twinChanges) return {};  // no change: not modified
  if (twinChanges) doc->undoStack()->beginMacro(what + QStringLiteral(" (symmetric)"));
  if (!(row == doc->project().bushings[index]))
    doc->undoStack()->push(new SetRowCommand<BushingRow>(doc, Table::Bushings, &Project::bushings, index, unmergeable(),
                                                         doc->project().bushings[index], row, what));
  if (twinChanges) {
    doc->undoStack()->push(new SetRowCommand<BushingRow>(doc, Table::Bushings, &Project::bushings, twin, unmergeable(),
                                                         doc->project().bushings[twin], trial.bushings[twin], what));
    doc->undoStack()->endMacro();
  }
  return {};
}

std::unique_ptr<TableModel> makeTableModel(ProjectDocument* doc, Table table) {
  switch (table) {
    case Table::Bodies: return bodies(doc);
    case Table::Markers: return markers(doc);
    case Table::Bushings: return bushings(doc);
    case Table::P2Ps: return p2ps(doc);
    case Table::SteeringRacks: return steeringRacks(doc);
    case Table::Curves: return curves(doc);
    case Table::Inputs: return inputs(doc);
    case Table::LoadCases: return loadCases(doc);
    case Table::Signals: return std::make_unique<SignalsModel>(doc);
    case Table::Outputs: return outputs(doc);
    case Table::Hardpoints: return std::make_unique<HardpointModel>(doc);
    case Table::FlexibleBodies: return flexibleBodies(doc);
  }
  return nullptr;
}

}  // namespace ek::ui
