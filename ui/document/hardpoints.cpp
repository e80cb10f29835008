// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/hardpoints.h"

#include <QColor>
#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "engine/core/rotation.h"
#include "engine/core/text.h"
#include "engine/model/validate.h"
#include "ui/document/number_entry.h"

namespace ek::ui {
namespace {

constexpr double kCoincident = 1e-6;  // [m]: markers this close move together

const BodyRow* bodyOf(const Project& p, const MarkerRow& m) {
  auto it = std::find_if(p.bodies.begin(), p.bodies.end(), [&](const BodyRow& b) { return b.id == m.body; });
  return it == p.bodies.end() ? nullptr : &*it;
}

const MarkerRow* marker(const Project& p, int id) {
  auto it = std::find_if(p.markers.begin(), p.markers.end(), [&](const MarkerRow& m) { return m.id == id; });
  return it == p.markers.end() ? nullptr : &*it;
}

Vec3 globalOf(const Project& p, const MarkerRow& m) { return markerPositionAsModelled(p, m); }

/// Moves marker `id` to the global point `at`, in its body's frame. A coordinate that moves by
/// no more than round-off keeps its value. In an unrotated body a moved coordinate is stored as
/// the shortest decimal that puts the marker within 1 pm of the typed point (0.077, not
/// 0.07699999999999999); in a rotated body it is kept exact.
void place(Project& p, int id, const Vec3& at) {
  for (MarkerRow& m : p.markers)
    if (m.id == id) {
      const BodyRow* b = bodyOf(p, m);
      const Mat3 R = b ? rotation::matrix(b->orientation) : Mat3::Identity();
      const Vec3 origin = b ? b->position : Vec3::Zero();
      const Vec3 local = R.transpose() * (at - origin);
      const bool unrotated = R.isIdentity(0.0);
      for (int k = 0; k < 3; ++k) {
        if (std::abs(local[k] - m.position[k]) <= 1e-12) continue;
        m.position[k] = local[k];
        if (!unrotated) continue;
        for (int digits = 1; digits <= 17; ++digits) {
          double d = 0.0;
          if (parseDecimal(significant(local[k], digits), d) && std::abs(origin[k] + d - at[k]) <= 1e-12) {
            m.position[k] = d;
            break;
          }
        }
      }
    }
}

/// The markers at the mirror point (x, -y, z) of marker `id`'s global position (within 1 um),
/// other than those in `besides`; none when the point is on the centre plane.
std::vector<int> twinMarkers(const Project& p, int id, const std::vector<int>& besides) {
  const MarkerRow* m = marker(p, id);
  if (!m) return {};
  const Vec3 at = globalOf(p, *m);
  if (std::abs(at.y()) < 1e-6) return {};
  const Vec3 mirror(at.x(), -at.y(), at.z());
  std::vector<int> twins;
  for (const MarkerRow& o : p.markers)
    if (std::find(besides.begin(), besides.end(), o.id) == besides.end() && (globalOf(p, o) - mirror).norm() <= 1e-6)
      twins.push_back(o.id);
  return twins;
}

QString label(const Project& p, int id) {
  const MarkerRow* m = marker(p, id);
  if (!m) return QString::number(id);
  const BodyRow* b = bodyOf(p, *m);
  return QStringLiteral("%1: %2 (on %3)")
      .arg(id)
      .arg(QString::fromStdString(m->name), b ? QString::fromStdString(b->name) : QString::number(m->body));
}

}  // namespace

HardpointModel::HardpointModel(ProjectDocument* doc) : TableModel(doc, Table::Hardpoints) {
  rebuild();
  // The rows follow the tables they come from.
  connect(doc, &ProjectDocument::tableChanged, this, [this](Table t, int) {
    if (t != Table::Bodies && t != Table::Markers && t != Table::Bushings && t != Table::P2Ps) return;
    beginResetModel();
    rebuild();
    endResetModel();
  });
  connect(doc, &ProjectDocument::projectReset, this, [this] {
    beginResetModel();
    rebuild();
    endResetModel();
  });
}

void HardpointModel::rebuild() {
  joints_.clear();
  const Project& p = doc_->project();
  for (const auto& b : p.bushings) joints_.push_back({Joint::Kind::Bushing, b.id, b.markerI, b.markerJ});
  for (const auto& e : p.p2ps) {
    joints_.push_back({Joint::Kind::P2PEndI, e.id, e.markerI, -1});
    joints_.push_back({Joint::Kind::P2PEndJ, e.id, e.markerJ, -1});
  }
}

int HardpointModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(joints_.size());
}
int HardpointModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant HardpointModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::ToolTipRole)
    return section >= X && section <= PartnerZ
               ? tr("Global coordinate of the marker as modelled; typing one moves the marker in its body's frame "
                    "(a coincident pair together)")
               : section == Distance ? tr("Distance of the bushing's two markers as modelled; above 1 mm it is flagged")
                                     : tr("The joint: a bushing (markers I, J) or one end of a P2P element");
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  static const char* names[ColumnCount] = {"joint",         "markers (I, J)", "x [mm]",        "y [mm]", "z [mm]",
                                           "partner x [mm]", "partner y [mm]", "partner z [mm]", "distance [mm]", "check"};
  return section >= 0 && section < ColumnCount ? QVariant(tr(names[section])) : QVariant();
}

Qt::ItemFlags HardpointModel::flags(const QModelIndex& i) const {
  if (!i.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
  const bool partner = i.column() >= PartnerX && i.column() <= PartnerZ;
  if ((i.column() >= X && i.column() <= Z) || (partner && joints_[i.row()].markerJ >= 0)) f |= Qt::ItemIsEditable;
  return f;
}

QVariant HardpointModel::data(const QModelIndex& i, int role) const {
  if (!i.isValid() || i.row() >= rowCount()) return {};
  const Project& p = doc_->project();
  const Joint& j = joints_[i.row()];
  const MarkerRow* mi = marker(p, j.markerI);
  const MarkerRow* mj = j.markerJ >= 0 ? marker(p, j.markerJ) : nullptr;
  const double gap = mi && mj ? (globalOf(p, *mi) - globalOf(p, *mj)).norm() : 0.0;
  if (role == Qt::BackgroundRole && gap > kBushingGap) return QColor(255, 224, 178);
  if (role == Qt::ToolTipRole && gap > kBushingGap)
    return tr("The bushing's markers are %1 mm apart as modelled: it starts deflected. Type the partner's "
              "coordinates into x, y, z (or the other way round) to join them.")
        .arg(gap * 1e3, 0, 'f', 1);
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
  auto mm = [&](double m) { return role == Qt::EditRole ? QVariant(m * 1e3) : QVariant(QString::number(m * 1e3, 'f', 3)); };
  switch (i.column()) {
    case Name: {
      if (j.kind == Joint::Kind::Bushing) {
        auto it = std::find_if(p.bushings.begin(), p.bushings.end(), [&](const BushingRow& b) { return b.id == j.element; });
        return it == p.bushings.end() ? QVariant() : QVariant(tr("bushing %1: %2").arg(j.element).arg(QString::fromStdString(it->name)));
      }
      auto it = std::find_if(p.p2ps.begin(), p.p2ps.end(), [&](const P2PRow& e) { return e.id == j.element; });
      return it == p.p2ps.end() ? QVariant()
                                : QVariant(tr("P2P %1: %2, end %3")
                                               .arg(j.element)
                                               .arg(QString::fromStdString(it->name), j.kind == Joint::Kind::P2PEndI ? "I" : "J"));
    }
    case Markers: return j.markerJ >= 0 ? label(p, j.markerI) + ", " + label(p, j.markerJ) : label(p, j.markerI);
    case X:
    case Y:
    case Z: return mi ? mm(globalOf(p, *mi)[i.column() - X]) : QVariant();
    case PartnerX:
    case PartnerY:
    case PartnerZ: return mj ? mm(globalOf(p, *mj)[i.column() - PartnerX]) : QVariant();
    case Distance: return mj ? QVariant(QString::number(gap * 1e3, 'f', 3)) : QVariant();
    case Check: return gap > kBushingGap ? QVariant(tr("markers apart")) : QVariant();
  }
  return {};
}

bool HardpointModel::setData(const QModelIndex& i, const QVariant& value, int role) {
  if (role != Qt::EditRole || !(flags(i) & Qt::ItemIsEditable)) return false;
  double mm = 0.0;
  QString why;
  const bool ok = value.typeId() == QMetaType::Double ? (mm = value.toDouble(), std::isfinite(mm))
                                                      : parseTypedNumber(value.toString(), mm, &why);
  if (!ok) {
    setError(tr("hardpoints, row %1: expected a number of millimetres%2").arg(i.row() + 1).arg(why.isEmpty() ? QString() : " (" + why + ")"));
    return false;
  }
  const Project& p = doc_->project();
  const Joint j = joints_[i.row()];
  const bool partner = i.column() >= PartnerX;
  const int moved = partner ? j.markerJ : j.markerI;
  const MarkerRow* m = marker(p, moved);
  if (!m) return false;
  Vec3 at = globalOf(p, *m);
  const int axis = i.column() - (partner ? PartnerX : X);
  if (at[axis] == mm * 1e-3) return true;  // no change: nothing to undo
  // A coincident bushing pair moves as one point.
  const MarkerRow* other = j.markerJ >= 0 ? marker(p, partner ? j.markerI : j.markerJ) : nullptr;
  const bool together = other && (globalOf(p, *other) - at).norm() <= kCoincident;
  // The twin and its coincident partner, found before anything moves.
  const std::vector<int> twins =
      symmetric_ ? twinMarkers(p, moved, together ? std::vector<int>{moved, other->id} : std::vector<int>{moved})
                 : std::vector<int>{};
  at[axis] = mm * 1e-3;
  Project after = p;
  place(after, moved, at);
  if (together) place(after, other->id, at);
  for (int t : twins) place(after, t, Vec3(at.x(), -at.y(), at.z()));
  try {
    validate(after);
  } catch (const ModelError& e) {
    setError(QString::fromStdString(e.what()));
    return false;
  }
  setError({});
  replaceProject(doc_, after,
                 tr("move hardpoint %1 %2 to %3 mm%4")
                     .arg(QString::fromStdString(m->name), QString("xyz")[axis])
                     .arg(mm)
                     .arg(twins.empty() ? QString() : tr(" and its mirror image")));
  return true;
}

bool HardpointModel::addRow() {
  setError(tr("The hardpoints follow the bushings and P2P elements: add or delete rows in their tables."));
  return false;
}

}  // namespace ek::ui
