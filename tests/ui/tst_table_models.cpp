// SPDX-License-Identifier: GPL-3.0-or-later
// Table models of the workbench: QAbstractItemModelTester on every table, undo/redo round trips
// (with merging of repeated cell edits), invalid edits rejected with the engine's message, row
// operations, and a broken project that leaves the open one untouched.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLineEdit>
#include <QtTest>

#include "engine/analysis/simulation.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/core/text.h"
#include "engine/model/project_io.h"
#include "engine/model/validate.h"
#include "ui/document/hardpoints.h"
#include "ui/document/mirror.h"
#include "ui/panels/signal_form.h"
#include "ui/document/project_document.h"
#include "ui/document/table_models.h"
#include "ui/panels/cell_delegate.h"
#include "ui/document/units.h"

using namespace ek;
using namespace ek::ui;

namespace {
const QString kRoot = QStringLiteral(ELASTOKIN_SOURCE_DIR);
const Table kTables[] = {Table::Bodies, Table::Markers,   Table::Bushings, Table::P2Ps,   Table::Curves,
                         Table::Inputs, Table::LoadCases, Table::Signals,  Table::Outputs, Table::FlexibleBodies,
                         Table::SteeringRacks};
// Table::Hardpoints is a view without row operations: hardpointsInGlobalCoordinates.

int columnOf(const QAbstractItemModel& m, const QString& header) {
  for (int c = 0; c < m.columnCount(); ++c)
    if (m.headerData(c, Qt::Horizontal).toString() == header) return c;
  return -1;
}
}  // namespace

class TestTableModels : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { Units::instance().setSystem(UnitSystem::SI); }

  /// The conversions of the display units (display value = factor x SI value).
  /// A table diff's text in display units: numbers after a unit, also in arrays; SI unchanged.
  void displayChangesConvertsValues() {
    const QString diff = "bushings 2 'upper wishbone': y stiffness [N/m] 2000000.0 -> 500000.0; markers 3 'a': "
                         "position [m] [0.1,0.2,0.3] -> [0.1,0.25,0.3]; bodies 1 'b': name 'x' -> 'y'";
    QCOMPARE(displayChanges(diff, UnitSystem::SI), diff);
    QCOMPARE(displayChanges(diff, UnitSystem::MmKNDeg),
             QString("bushings 2 'upper wishbone': y stiffness [kN/mm] 2 -> 0.5; markers 3 'a': position [mm] "
                     "[100, 200, 300] -> [100, 250, 300]; bodies 1 'b': name 'x' -> 'y'"));
    QCOMPARE(displayChanges("toe [rad] 0.0174532925199433 -> 0", UnitSystem::MmNDeg), QString("toe [deg] 1 -> 0"));
  }

  void displayUnits() {
    auto check = [](const char* si, UnitSystem system, const char* unit, double factor) {
      const DisplayUnit d = displayUnit(si, system);
      QCOMPARE(d.unit, QString(unit));
      QVERIFY2(std::abs(d.factor - factor) <= 1e-15 * factor, si);
    };
    const double deg = 180.0 / M_PI;
    check("N/m", UnitSystem::MmKNDeg, "kN/mm", 1e-6);
    check("N/m", UnitSystem::MmNDeg, "N/mm", 1e-3);
    check("N s/m", UnitSystem::MmKNDeg, "kN s/mm", 1e-6);
    check("N m/rad", UnitSystem::MmKNDeg, "N m/deg", 1.0 / deg);
    check("N m s/rad", UnitSystem::MmNDeg, "N m s/deg", 1.0 / deg);
    check("m", UnitSystem::MmKNDeg, "mm", 1e3);
    check("rad", UnitSystem::MmNDeg, "deg", deg);
    check("rad/s", UnitSystem::MmKNDeg, "deg/s", deg);
    check("m/s", UnitSystem::MmNDeg, "mm/s", 1e3);
    check("N", UnitSystem::MmKNDeg, "kN", 1e-3);
    check("N m", UnitSystem::MmKNDeg, "N m", 1.0);
    check("kg m^2", UnitSystem::MmKNDeg, "kg m^2", 1.0);
    check("m/N", UnitSystem::MmKNDeg, "mm/kN", 1e6);
    check("N/m", UnitSystem::SI, "N/m", 1.0);
    QCOMPARE(displayHeader("x stiffness [N/m]", UnitSystem::MmKNDeg).first, QString("x stiffness [kN/mm]"));
    QCOMPARE(displayHeader("name", UnitSystem::MmKNDeg).first, QString("name"));
  }

  void init() {
    doc_ = std::make_unique<ProjectDocument>();
    doc_->open(kRoot + "/projects/quarter_double_wishbone.json");
  }

  void modelTesterOnEveryTable() {
    for (Table t : kTables) {
      auto model = makeTableModel(doc_.get(), t);
      if (t == Table::Signals) {  // every input is driven already: row operations in signalsEditTheLoadCase
        QAbstractItemModelTester tester(model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        continue;
      }
      QAbstractItemModelTester tester(model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
      const int rows = model->rowCount();
      QCOMPARE(static_cast<std::size_t>(rows), [&]() -> std::size_t {
        const Project& p = doc_->project();
        switch (t) {
          case Table::Bodies: return p.bodies.size();
          case Table::Markers: return p.markers.size();
          case Table::Bushings: return p.bushings.size();
          case Table::P2Ps: return p.p2ps.size();
          case Table::Curves: return p.curves.size();
          case Table::Inputs: return p.inputs.size();
          case Table::LoadCases: return p.loadCases.size();
          case Table::Signals: {
            std::size_t n = 0;
            for (const auto& lc : p.loadCases) n += lc.drives.size();
            return n;
          }
          case Table::Outputs: return p.outputs.size();
          case Table::Hardpoints: return 0;  // tested in hardpointsInGlobalCoordinates
          case Table::FlexibleBodies: return p.flexibleBodies.size();
          case Table::SteeringRacks: return p.steeringRacks.size();
        }
        return 0;
      }());
      QVERIFY(model->addRow());
      QCOMPARE(model->rowCount(), rows + 1);
      QVERIFY(model->duplicateRow(0));
      QCOMPARE(model->rowCount(), rows + 2);
      QVERIFY(model->removeRowAt(rows + 1));
      doc_->undoStack()->undo();
      doc_->undoStack()->undo();
      doc_->undoStack()->undo();
      QCOMPARE(model->rowCount(), rows);
      for (int c = 0; c < model->columnCount(); ++c) QVERIFY(!model->headerData(c, Qt::Horizontal).toString().isEmpty());
    }
  }

  /// The hardpoint view: one row per bushing and P2P end in global millimetres; an edit moves
  /// both markers of a coincident bushing in their bodies' frames (one undo step); a separated
  /// pair is flagged and can be joined by typing the partner's coordinates.
  void hardpointsInGlobalCoordinates() {
    doc_->open(kRoot + "/projects/double_wishbone.json");
    auto model = makeTableModel(doc_.get(), Table::Hardpoints);
    QAbstractItemModelTester tester(model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const Project& p = doc_->project();
    QCOMPARE(model->rowCount(), static_cast<int>(p.bushings.size() + 2 * p.p2ps.size()));
    QVERIFY(!model->addRow());
    auto* hp = static_cast<HardpointModel*>(model.get());
    // The upper ball joint left: bushing id 3 (markers 8 on the wishbone, 9 on the wheel mount).
    int row = -1;
    for (int r = 0; r < model->rowCount(); ++r)
      if (model->data(model->index(r, HardpointModel::Name), Qt::DisplayRole).toString().endsWith("upper ball joint left")) row = r;
    QVERIFY(row >= 0);
    const auto joint = hp->joints()[row];
    QCOMPARE(model->data(model->index(row, HardpointModel::X), Qt::DisplayRole).toString(), QString("-10.000"));
    QCOMPARE(model->data(model->index(row, HardpointModel::Y), Qt::DisplayRole).toString(), QString("680.000"));
    QCOMPARE(model->data(model->index(row, HardpointModel::Distance), Qt::DisplayRole).toString(), QString("0.000"));
    auto markerRow = [&](int id) {
      for (const auto& m : doc_->project().markers)
        if (m.id == id) return m;
      return MarkerRow{};
    };
    const MarkerRow beforeI = markerRow(joint.markerI), beforeJ = markerRow(joint.markerJ);
    const Vec3 bodyI = p.bodies[static_cast<std::size_t>(beforeI.body)].position;
    const int undo = doc_->undoStack()->count();
    QVERIFY(model->setData(model->index(row, HardpointModel::Z), "510", Qt::EditRole));  // 10 mm up
    QCOMPARE(doc_->undoStack()->count(), undo + 1);
    const MarkerRow afterI = markerRow(joint.markerI), afterJ = markerRow(joint.markerJ);
    QVERIFY(std::abs(afterI.position.z() - beforeI.position.z() - 0.010) < 1e-12);  // bodies unrotated: z moves 10 mm
    // J now sits exactly at I's new point (its stored position was rounded to 1 nm before).
    const auto globalZ = [&](const MarkerRow& m) {
      return p.bodies[static_cast<std::size_t>(m.body)].position.z() + m.position.z();  // unrotated bodies
    };
    QVERIFY(std::abs(globalZ(afterJ) - globalZ(afterI)) < 1e-12);
    QVERIFY(std::abs(afterJ.position.z() - beforeJ.position.z() - 0.010) < 1e-9);
    QCOMPARE(afterI.position.x(), beforeI.position.x());
    QCOMPARE(p.bodies[static_cast<std::size_t>(beforeI.body)].position, bodyI);  // the body frame stays
    QCOMPARE(model->data(model->index(row, HardpointModel::Z), Qt::DisplayRole).toString(), QString("510.000"));
    QCOMPARE(model->data(model->index(row, HardpointModel::PartnerZ), Qt::DisplayRole).toString(), QString("510.000"));
    doc_->undoStack()->undo();
    QCOMPARE(markerRow(joint.markerI).position, beforeI.position);
    QCOMPARE(markerRow(joint.markerJ).position, beforeJ.position);

    // A coincident pair moves together also from the partner's columns.
    QVERIFY(model->setData(model->index(row, HardpointModel::PartnerY), "690", Qt::EditRole));
    QCOMPARE(model->data(model->index(row, HardpointModel::Y), Qt::DisplayRole).toString(), QString("690.000"));
    doc_->undoStack()->undo();
    // The partner 12 mm away (edited in the markers table): flagged, and a warning in the model
    // check; typing I's coordinates into the partner's columns joins them again.
    Project apart = doc_->project();
    for (auto& m : apart.markers)
      if (m.id == joint.markerJ) m.position.y() += 0.012;
    replaceProject(doc_.get(), apart, "move marker");
    QCOMPARE(model->data(model->index(row, HardpointModel::Distance), Qt::DisplayRole).toString(), QString("12.000"));
    QCOMPARE(model->data(model->index(row, HardpointModel::Check), Qt::DisplayRole).toString(), QString("markers apart"));
    QVERIFY(model->data(model->index(row, HardpointModel::Name), Qt::BackgroundRole).isValid());
    QCOMPARE(int(check(doc_->project()).warningCount()), 1);
    QVERIFY(model->setData(model->index(row, HardpointModel::PartnerY), "680", Qt::EditRole));
    QCOMPARE(markerRow(joint.markerI).position, beforeI.position);  // a separate partner moves alone
    QCOMPARE(model->data(model->index(row, HardpointModel::Check), Qt::DisplayRole).toString(), QString());
    QCOMPARE(model->data(model->index(row, HardpointModel::Distance), Qt::DisplayRole).toString(), QString("0.000"));
    QVERIFY(!model->setData(model->index(row, HardpointModel::X), "ten", Qt::EditRole));
    QVERIFY(model->lastError().contains("millimetres"));
  }

  /// Symmetric hardpoint editing moves the twin at the mirror point in the same undo step, and
  /// the stored coordinates are the decimals typed (no binary round-off in the file).
  void hardpointsSymmetricAndAsEntered() {
    doc_->open(kRoot + "/projects/double_wishbone.json");
    auto model = makeTableModel(doc_.get(), Table::Hardpoints);
    auto* hp = static_cast<HardpointModel*>(model.get());
    int left = -1, right = -1;
    for (int r = 0; r < model->rowCount(); ++r) {
      const QString name = model->data(model->index(r, HardpointModel::Name), Qt::DisplayRole).toString();
      if (name.endsWith("upper ball joint left")) left = r;
      if (name.endsWith("upper ball joint right")) right = r;
    }
    QVERIFY(left >= 0 && right >= 0);
    auto cell = [&](int row, int column) { return model->data(model->index(row, column), Qt::DisplayRole).toString(); };
    QCOMPARE(cell(right, HardpointModel::Y), QString("-680.000"));
    const QString rightX = cell(right, HardpointModel::X);
    // Off: the right side stays.
    QVERIFY(model->setData(model->index(left, HardpointModel::Z), "512.5", Qt::EditRole));
    QCOMPARE(cell(left, HardpointModel::Z), QString("512.500"));
    QCOMPARE(cell(right, HardpointModel::Z), QString("500.000"));
    doc_->undoStack()->undo();
    // On: both sides, one undo step, y mirrored.
    hp->setSymmetric(true);
    const int undo = doc_->undoStack()->index();
    QVERIFY(model->setData(model->index(left, HardpointModel::Z), "512.5", Qt::EditRole));
    QVERIFY(model->setData(model->index(left, HardpointModel::Y), "677.3", Qt::EditRole));
    QCOMPARE(doc_->undoStack()->index(), undo + 2);
    QCOMPARE(cell(right, HardpointModel::Z), QString("512.500"));
    QCOMPARE(cell(right, HardpointModel::Y), QString("-677.300"));
    QCOMPARE(cell(right, HardpointModel::PartnerY), QString("-677.300"));  // the coincident partner with it
    QCOMPARE(cell(right, HardpointModel::X), rightX);
    QVERIFY(doc_->undoStack()->undoText().contains("mirror image"));
    // Stored as typed: the moved coordinates are the shortest decimals within 1 pm of the typed
    // point (not the binary difference to the body's origin with 17 digits).
    const Project& q = doc_->project();
    int checked = 0;
    for (const int id : {hp->joints()[left].markerI, hp->joints()[left].markerJ, hp->joints()[right].markerI,
                         hp->joints()[right].markerJ})
      for (const MarkerRow& m : q.markers) {
        if (m.id != id) continue;
        const Vec3 origin = q.bodies[static_cast<std::size_t>(m.body)].position;
        const std::string z = ek::shortestText(m.position.z());
        qInfo("marker %d: z %s (global %.15g m)", id, z.c_str(), origin.z() + m.position.z());
        QVERIFY(std::abs(origin.z() + m.position.z() - 0.5125) <= 1e-12);
        QVERIFY2(z.size() <= 15, z.c_str());
        ++checked;
      }
    QCOMPARE(checked, 4);
    doc_->undoStack()->undo();
    QCOMPARE(cell(right, HardpointModel::Y), QString("-680.000"));
    QCOMPARE(cell(right, HardpointModel::Z), QString("512.500"));
    doc_->undoStack()->undo();
    QCOMPARE(cell(right, HardpointModel::Z), QString("500.000"));
  }

  /// Symmetric editing of force elements: a bushing's or P2P element's value goes to the row
  /// named with left and right swapped too, in one undo step; names and markers stay the twin's;
  /// a row without a twin edits alone. editBushing (Maxwell branches, fits) does the same.
  void forceElementsSymmetric() {
    doc_->open(kRoot + "/projects/double_wishbone.json");
    auto bushings = makeTableModel(doc_.get(), Table::Bushings);
    auto p2ps = makeTableModel(doc_.get(), Table::P2Ps);
    auto rowNamed = [](const QAbstractItemModel& m, const QString& name) {
      const int c = columnOf(m, "name");
      for (int r = 0; r < m.rowCount(); ++r)
        if (m.data(m.index(r, c), Qt::DisplayRole).toString() == name) return r;
      return -1;
    };
    const int left = rowNamed(*bushings, "trailing arm front bushing left");
    const int right = rowNamed(*bushings, "trailing arm front bushing right");
    QVERIFY(left >= 0 && right >= 0);
    const int ky = columnOf(*bushings, "y stiffness [N/m]");
    const int markerI = columnOf(*bushings, "marker i");
    QVERIFY(ky >= 0 && markerI >= 0);
    auto cell = [](const QAbstractItemModel& m, int r, int c) { return m.data(m.index(r, c), Qt::EditRole).toString(); };
    const QString rightBefore = cell(*bushings, right, ky), rightMarker = cell(*bushings, right, markerI);
    // Off: the left row alone.
    QVERIFY(bushings->setData(bushings->index(left, ky), "1234567", Qt::EditRole));
    QCOMPARE(cell(*bushings, right, ky), rightBefore);
    doc_->undoStack()->undo();
    // On: both rows, one undo step.
    doc_->setSymmetricEdits(true);
    const int undo = doc_->undoStack()->index();
    QVERIFY(bushings->setData(bushings->index(left, ky), "1234567", Qt::EditRole));
    QCOMPARE(doc_->undoStack()->index(), undo + 1);
    QCOMPARE(cell(*bushings, left, ky), QString("1234567"));
    QCOMPARE(cell(*bushings, right, ky), QString("1234567"));
    QCOMPARE(cell(*bushings, right, markerI), rightMarker);
    QVERIFY(doc_->undoStack()->undoText().endsWith("(symmetric)"));
    // A reference is the row's own: the marker column edits one row.
    const QString leftMarker = cell(*bushings, left, markerI);
    QVERIFY(bushings->setData(bushings->index(left, markerI), leftMarker, Qt::EditRole));
    QCOMPARE(cell(*bushings, right, markerI), rightMarker);
    doc_->undoStack()->undo();
    QCOMPARE(doc_->undoStack()->index(), undo);
    QCOMPARE(cell(*bushings, right, ky), rightBefore);
    // A P2P element: the spring's preload on both sides.
    const int springLeft = rowNamed(*p2ps, "main spring left"), springRight = rowNamed(*p2ps, "main spring right");
    QVERIFY(springLeft >= 0 && springRight >= 0);
    const int preload = columnOf(*p2ps, "preload [N]");
    QVERIFY(preload >= 0);
    QVERIFY(p2ps->setData(p2ps->index(springLeft, preload), "9000", Qt::EditRole));
    QCOMPARE(cell(*p2ps, springRight, preload), QString("9000"));
    // editBushing: a Maxwell branch set on the left reaches the right.
    BushingRow b = doc_->project().bushings[static_cast<std::size_t>(left)];
    b.directions[0].maxwell = {{2e5, 800.0}};
    QCOMPARE(editBushing(doc_.get(), left, b, "edit Maxwell branch 1"), QString());
    QCOMPARE(doc_->project().bushings[static_cast<std::size_t>(right)].directions[0].maxwell, b.directions[0].maxwell);
    QCOMPARE(doc_->project().bushings[static_cast<std::size_t>(right)].name, std::string("trailing arm front bushing right"));
    doc_->undoStack()->undo();
    QVERIFY(doc_->project().bushings[static_cast<std::size_t>(right)].directions[0].maxwell.empty());
    doc_->setSymmetricEdits(false);
  }

  /// Typed editors: enumerations offer their values in a combo box; an output's quantity and
  /// component change together, an input's direction as a whole, each in one undoable edit.
  /// The flexible bodies' table on the shipped flexible-bar axle: a section value edited reaches
  /// the project (one undo step), the points as one cell, a bad point named, the reduced body of
  /// an FE import refusing beam edits.
  void flexibleBodiesTable() {
    doc_->open(kRoot + "/projects/double_wishbone_flexible_bar.json");
    auto model = makeTableModel(doc_.get(), Table::FlexibleBodies);
    QCOMPARE(model->rowCount(), 1);
    const FlexibleBodyRow before = doc_->project().flexibleBodies[0];
    const int iy = columnOf(*model, "section iy [m^4]"), points = columnOf(*model, "beam points"),
              modes = columnOf(*model, "modes"), from = columnOf(*model, "reduced from");
    QVERIFY(iy >= 0 && points >= 0 && modes >= 0 && from >= 0);
    QCOMPARE(model->data(model->index(0, iy)).toDouble(), before.section.iy);
    QCOMPARE(model->data(model->index(0, from)).toString(), QString("beams"));
    QVERIFY(model->setData(model->index(0, iy), 2.5e-8, Qt::EditRole));
    QCOMPARE(doc_->project().flexibleBodies[0].section.iy, 2.5e-8);
    const QString text = model->data(model->index(0, points)).toString();
    QCOMPARE(text.count(';') + 1, int(before.points.size()));
    QVERIFY(model->setData(model->index(0, points), text + "; 0.1 0.2 0.3", Qt::EditRole));
    QCOMPARE(doc_->project().flexibleBodies[0].points.size(), before.points.size() + 1);
    QCOMPARE(doc_->project().flexibleBodies[0].points.back(), Vec3(0.1, 0.2, 0.3));
    QVERIFY(!model->setData(model->index(0, points), "0 0 0; 1 2", Qt::EditRole));
    QVERIFY2(model->lastError().contains("point 2: expected three numbers"), qPrintable(model->lastError()));
    QVERIFY(model->setData(model->index(0, modes), 4, Qt::EditRole));
    QCOMPARE(doc_->project().flexibleBodies[0].modes, 4);
    // Per-mode damping ratios as one cell, and proportional damping.
    const int ratios = columnOf(*model, "damping ratios"), beta = columnOf(*model, "stiffness-proportional damping [s]");
    QVERIFY(ratios >= 0 && beta >= 0);
    QCOMPARE(model->data(model->index(0, ratios)).toString(), QString());
    QVERIFY(model->setData(model->index(0, ratios), "0.01 0.02  0.05 0.1", Qt::EditRole));
    QCOMPARE(doc_->project().flexibleBodies[0].dampingRatios, (std::vector<double>{0.01, 0.02, 0.05, 0.1}));
    QCOMPARE(model->data(model->index(0, ratios)).toString(), QString("0.01 0.02 0.05 0.1"));
    QVERIFY(!model->setData(model->index(0, ratios), "0.01 x", Qt::EditRole));
    QVERIFY2(model->lastError().contains("mode 2: expected a number, found 'x'"), qPrintable(model->lastError()));
    QVERIFY(model->setData(model->index(0, beta), 1e-4, Qt::EditRole));
    QCOMPARE(doc_->project().flexibleBodies[0].stiffnessDamping, 1e-4);
    for (int k = 0; k < 5; ++k) doc_->undoStack()->undo();
    QVERIFY(doc_->project().flexibleBodies[0] == before);
    Project reduced = doc_->project();
    reduced.flexibleBodies[0].reduced = ReducedBodyRow{};
    reduced.flexibleBodies[0].reduced->source = "subframe.inp";
    doc_->reset(reduced, QString());
    auto fe = makeTableModel(doc_.get(), Table::FlexibleBodies);
    QCOMPARE(fe->data(fe->index(0, from)).toString(), QString("subframe.inp"));
    QVERIFY(!fe->setData(fe->index(0, iy), 1e-8, Qt::EditRole));
    QVERIFY2(fe->lastError().contains("reduced from an FE model"), qPrintable(fe->lastError()));
  }

  // The steering racks' table: a new row takes the project's rotation input and a rack of 50 mm
  // per turn; its cells show and edit the row, the steering input from a list of the inputs.
  void steeringRacksTable() {
    Project p = doc_->project();
    p.inputs.push_back(InputRow{77, "steering wheel angle", p.markers.front().id, InputKind::Rotation,
                                InputFrame::Marker, Vec3::UnitZ()});
    p.curves.push_back(CurveRow{88, "rack travel", "spline", "linear", {{-3.0, -0.025}, {0.0, 0.0}, {3.0, 0.025}}});
    doc_->reset(p, QString());
    auto model = makeTableModel(doc_.get(), Table::SteeringRacks);
    QCOMPARE(model->rowCount(), 0);
    QVERIFY(model->addRow());
    QCOMPARE(model->rowCount(), 1);
    const SteeringRackRow r = doc_->project().steeringRacks.at(0);
    QCOMPARE(r.input, 77);
    QCOMPARE(r.ratio, 0.05 / (2.0 * M_PI));
    const int input = columnOf(*model, "steering input"), ratio = columnOf(*model, "ratio [m/rad]"),
              stiffness = columnOf(*model, "column stiffness [N m/rad]");
    QVERIFY(input >= 0 && ratio >= 0 && stiffness >= 0);
    QVERIFY2(model->data(model->index(0, input)).toString().startsWith("77"),
             qPrintable(model->data(model->index(0, input)).toString()));
    QVERIFY(model->choices(input).contains("77: steering wheel angle"));
    QVERIFY2(model->setData(model->index(0, stiffness), 900.0, Qt::EditRole), qPrintable(model->lastError()));
    QCOMPARE(doc_->project().steeringRacks[0].columnStiffness, 900.0);
    QCOMPARE(model->data(model->index(0, stiffness)).toDouble(), 900.0);
    QVERIFY(model->headerData(ratio, Qt::Horizontal, Qt::ToolTipRole).toString().contains("pinion radius"));
    doc_->undoStack()->undo();
    QCOMPARE(doc_->project().steeringRacks[0].columnStiffness, r.columnStiffness);
    // A variable ratio: "curve N" in the ratio's cell makes the curve the rack's travel, a number
    // makes the ratio constant again; undo (the cell's edits merged into one step) the first ratio.
    QVERIFY(model->headerData(ratio, Qt::Horizontal, Qt::ToolTipRole).toString().contains("curve ID"));
    QVERIFY2(model->setData(model->index(0, ratio), "curve 88", Qt::EditRole), qPrintable(model->lastError()));
    QCOMPARE(doc_->project().steeringRacks[0].travelCurve, std::optional<int>(88));
    QCOMPARE(model->data(model->index(0, ratio)).toString(), QString("curve 88"));
    QVERIFY(model->setData(model->index(0, ratio), "0.009", Qt::EditRole));
    QCOMPARE(doc_->project().steeringRacks[0].travelCurve, std::optional<int>());
    QCOMPARE(doc_->project().steeringRacks[0].ratio, 0.009);
    doc_->undoStack()->undo();
    QCOMPARE(doc_->project().steeringRacks[0].travelCurve, std::optional<int>());
    QCOMPARE(doc_->project().steeringRacks[0].ratio, r.ratio);
    QVERIFY(!model->setData(model->index(0, ratio), "curve x", Qt::EditRole));
    QVERIFY2(model->lastError().contains("expected a number or 'curve <id>'"), qPrintable(model->lastError()));
  }

  void typedEditorsEditRowsAsAWhole() {
    auto outputs = makeTableModel(doc_.get(), Table::Outputs);
    const int measure = columnOf(*outputs, "quantity and component");
    QVERIFY(measure >= 0);
    QVERIFY(outputs->choices(measure).contains("body angles rz"));
    QVERIFY(outputs->choices(measure).contains("wheel toe"));
    QVERIFY(outputs->choices(measure).contains("p2p force"));
    const int undo = doc_->undoStack()->count();
    QVERIFY(outputs->setData(outputs->index(0, measure), "marker position x", Qt::EditRole));
    QVERIFY(outputs->setData(outputs->index(0, measure), "body angles rz", Qt::EditRole));
    QCOMPARE(doc_->project().outputs[0].quantity, OutputQuantity::BodyAngles);
    QCOMPARE(doc_->project().outputs[0].component, std::string("rz"));
    QCOMPARE(outputs->data(outputs->index(0, measure), Qt::DisplayRole).toString(), QString("body angles rz"));
    QVERIFY(!outputs->setData(outputs->index(0, measure), "body angles x", Qt::EditRole));  // not a component of angles
    QCOMPARE(doc_->undoStack()->count(), undo + 1);  // two edits of one cell merge into one step

    auto inputs = makeTableModel(doc_.get(), Table::Inputs);
    const int direction = columnOf(*inputs, "direction");
    QVERIFY(direction >= 0);
    QCOMPARE(inputs->data(inputs->index(0, direction), Qt::DisplayRole).toString(), QString("1, 0, 0"));
    QVERIFY(inputs->setData(inputs->index(0, direction), "z", Qt::EditRole));
    QCOMPARE(doc_->project().inputs[0].direction, Vec3(0, 0, 1));
    QVERIFY(inputs->setData(inputs->index(0, direction), "0, 0.6, -0.8", Qt::EditRole));
    QCOMPARE(doc_->project().inputs[0].direction, Vec3(0, 0.6, -0.8));
    QVERIFY(!inputs->setData(inputs->index(0, direction), "0 0 0", Qt::EditRole));
    QVERIFY(inputs->lastError().contains("must not be zero"));
    QVERIFY(!inputs->setData(inputs->index(0, direction), "w", Qt::EditRole));

    // Enumerations: a combo box of their values.
    CellDelegate delegate;
    QWidget parent;
    const int kind = columnOf(*inputs, "kind");
    std::unique_ptr<QWidget> editor(delegate.createEditor(&parent, {}, inputs->index(0, kind)));
    auto* combo = qobject_cast<QComboBox*>(editor.get());
    QVERIFY(combo && combo->findText("rotation") >= 0);
    delegate.setEditorData(combo, inputs->index(0, kind));
    QCOMPARE(combo->currentText(), QString("force"));
    auto curves = makeTableModel(doc_.get(), Table::Curves);
    QCOMPARE(curves->choices(columnOf(*curves, "interpolation")), QStringList({"linear", "pchip", "spline"}));
    auto loadCases = makeTableModel(doc_.get(), Table::LoadCases);
    QCOMPARE(loadCases->choices(columnOf(*loadCases, "initial state")), QStringList({"equilibrium", "as modelled"}));
    auto signalRows = makeTableModel(doc_.get(), Table::Signals);
    QVERIFY(signalRows->choices(2).contains("chirp"));

    // References show "id: name"; they are edited and stored as the id.
    auto bushings = makeTableModel(doc_.get(), Table::Bushings);
    const QModelIndex ref = bushings->index(0, columnOf(*bushings, "marker i"));
    const int id = doc_->project().bushings[0].markerI;
    QString name;
    for (const auto& m : doc_->project().markers)
      if (m.id == id) name = QString::fromStdString(m.name);
    QCOMPARE(bushings->data(ref, Qt::DisplayRole).toString(), QString("%1: %2").arg(id).arg(name));
    QCOMPARE(bushings->data(ref, Qt::EditRole).toInt(), id);
  }

  /// A signal edited as a whole in its form: the type's parameters only, with units; applied as
  /// one undo step; a field that is not a number is named.
  void signalForm() {
    int lc = -1, drive = -1;
    QVERIFY(signalOfRow(doc_->project(), 0, lc, drive));
    QCOMPARE(lc, 0);
    QCOMPARE(drive, 0);
    const SignalRow step = doc_->project().loadCases[0].drives[0].signal;  // LC1's braking step
    QCOMPARE(step.type, SignalType::Step);
    SignalForm form(step, "N");
    QVERIFY(form.field("after"));
    QCOMPARE(form.field("after")->text(), QString("-2500"));
    form.setType(SignalType::Sine);
    form.field("offset")->setText("-2500");
    form.field("amplitude")->setText("300");
    form.field("frequency")->setText("12.5");
    form.field("start")->setText("5");
    QString error;
    const SignalRow sine = form.signal(&error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(sine.type, SignalType::Sine);
    QCOMPARE(sine.amplitude, 300.0);
    QCOMPARE(sine.frequency, 12.5);
    QCOMPARE(sine.value2, 0.0);  // the step's "after" is not a sine parameter
    const int undo = doc_->undoStack()->count();
    QCOMPARE(editSignal(doc_.get(), lc, drive, sine), QString());
    QCOMPARE(doc_->undoStack()->count(), undo + 1);
    QVERIFY(doc_->project().loadCases[0].drives[0].signal == sine);
    form.field("amplitude")->setText("loud");
    form.signal(&error);
    QVERIFY(error.startsWith("amplitude: expected a finite number"));
    doc_->undoStack()->undo();
    QVERIFY(doc_->project().loadCases[0].drives[0].signal == step);
  }

  /// Every column header explains itself in a tooltip (with its unit), not just repeats its text.
  void headerTooltips() {
    QStringList bare;
    for (Table t : {Table::Bodies, Table::Markers, Table::Bushings, Table::P2Ps, Table::Curves, Table::Inputs,
                    Table::LoadCases, Table::Signals, Table::Outputs, Table::Hardpoints, Table::FlexibleBodies,
                    Table::SteeringRacks}) {
      auto model = makeTableModel(doc_.get(), t);
      for (int c = 0; c < model->columnCount(); ++c) {
        const QString header = model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
        const QString tip = model->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString();
        if (tip.isEmpty() || tip == header) bare << QString(tableName(t)) + ": " + header;
        if (header.contains("[N/m]")) QVERIFY2(tip.contains("Unit: N/m"), qPrintable(tip));
      }
    }
    QVERIFY2(bare.isEmpty(), qPrintable(bare.join("; ")));
  }

  void unitsInHeaders() {
    auto bodies = makeTableModel(doc_.get(), Table::Bodies);
    QVERIFY(columnOf(*bodies, "mass [kg]") >= 0);
    QVERIFY(columnOf(*bodies, "position x [m]") >= 0);
    auto bushings = makeTableModel(doc_.get(), Table::Bushings);
    QVERIFY(columnOf(*bushings, "rx stiffness [N m/rad]") >= 0);
  }

  void undoRedoRoundTripAndMerge() {
    auto model = makeTableModel(doc_.get(), Table::Bodies);
    const int mass = columnOf(*model, "mass [kg]");
    const QModelIndex cell = model->index(1, mass);  // the wheel mount (row 0 is the vehicle body)
    const double original = model->data(cell, Qt::DisplayRole).toDouble();
    QVERIFY(model->setData(cell, "12.5", Qt::EditRole));
    QVERIFY(model->setData(cell, "13", Qt::EditRole));  // merges with the first edit
    QCOMPARE(doc_->project().bodies[1].mass, 13.0);
    QCOMPARE(doc_->undoStack()->count(), 1);
    QVERIFY(doc_->isModified());
    doc_->undoStack()->undo();
    QCOMPARE(doc_->project().bodies[1].mass, original);
    QCOMPARE(model->data(cell, Qt::DisplayRole).toDouble(), original);
    QVERIFY(!doc_->isModified());
    doc_->undoStack()->redo();
    QCOMPARE(doc_->project().bodies[1].mass, 13.0);
  }

  void invalidEditsAreRejected_data() {
    QTest::addColumn<int>("table");
    QTest::addColumn<int>("row");
    QTest::addColumn<QString>("column");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("negative mass") << int(Table::Bodies) << 1 << "mass [kg]" << "-3" << "mass must be positive";
    QTest::newRow("not a number") << int(Table::Bodies) << 1 << "mass [kg]" << "heavy" << "expected a number";
    QTest::newRow("inertia triangle") << int(Table::Bodies) << 1 << "Izz [kg m^2]" << "5" << "triangle inequality";
    QTest::newRow("missing body") << int(Table::Markers) << 0 << "body" << "77" << "body 77 does not exist";
    QTest::newRow("missing curve") << int(Table::Bushings) << 0 << "x stiffness [N/m]" << "curve 99" << "curve 99 does not exist";
    QTest::newRow("bad law text") << int(Table::Bushings) << 0 << "y damping [N s/m]" << "soft" << "expected a number or 'curve <id>'";
    QTest::newRow("duplicate id") << int(Table::Markers) << 1 << "id" << "1" << "duplicate id";
    QTest::newRow("same body") << int(Table::Bushings) << 0 << "marker j" << "2" << "are on body";
    QTest::newRow("unknown input in a load case") << int(Table::Signals) << 0 << "input" << "99" << "input 99 does not exist";
    QTest::newRow("input driven twice") << int(Table::Signals) << 0 << "input" << "2" << "driven twice";
    QTest::newRow("ramp ending before it starts") << int(Table::Signals) << 0 << "type" << "ramp" << "must be later than 'start [s]'";
    QTest::newRow("non-positive duration") << int(Table::LoadCases) << 0 << "duration [s]" << "0" << "must be positive";
  }
  void invalidEditsAreRejected() {
    QFETCH(int, table);
    QFETCH(int, row);
    QFETCH(QString, column);
    QFETCH(QString, value);
    QFETCH(QString, message);
    auto model = makeTableModel(doc_.get(), Table(table));
    const int c = columnOf(*model, column);
    QVERIFY2(c >= 0, qPrintable(column));
    const Project before = doc_->project();
    QSignalSpy rejected(model.get(), &TableModel::editRejected);
    QVERIFY(!model->setData(model->index(row, c), value, Qt::EditRole));
    QVERIFY2(model->lastError().contains(message), qPrintable(model->lastError()));
    QCOMPARE(rejected.count(), 1);
    // The message is shown on the cell (tooltip, tinted background).
    QVERIFY(model->data(model->index(row, c), Qt::ToolTipRole).toString().contains(message));
    QVERIFY(model->data(model->index(row, c), Qt::BackgroundRole).isValid());
    QVERIFY(doc_->project() == before);
    QCOMPARE(doc_->undoStack()->count(), 0);
  }

  /// Entering a cell's value again (also spelled differently) is no edit: nothing to undo, the
  /// project stays unmodified; saving the unchanged shipped projects reproduces their files.
  void noOpEditsAndCanonicalSave() {
    auto bushings = makeTableModel(doc_.get(), Table::Bushings);
    const int ky = columnOf(*bushings, "y stiffness [N/m]");
    const QModelIndex cell = bushings->index(1, ky);
    const double value = doc_->project().bushings[1].directions[1].stiffness.coefficient;
    QVERIFY(bushings->setData(cell, QString::number(value, 'g', 17), Qt::EditRole));
    QVERIFY(bushings->setData(cell, QString::number(value, 'e', 3), Qt::EditRole));  // e.g. "2.500e+06"
    auto signalRows = makeTableModel(doc_.get(), Table::Signals);
    const int after = columnOf(*signalRows, "after / to");
    QVERIFY(signalRows->setData(signalRows->index(0, after), "-2500.0", Qt::EditRole));
    QCOMPARE(doc_->undoStack()->count(), 0);
    QVERIFY(!doc_->isModified());
    QVERIFY(bushings->setData(cell, QString::number(value * 0.5, 'g', 17), Qt::EditRole));
    QCOMPARE(doc_->undoStack()->count(), 1);
    QVERIFY(doc_->isModified());

    QTemporaryDir dir;
    for (const char* name : {"quarter_double_wishbone", "double_wishbone", "multilink"}) {
      const QString shipped = kRoot + "/projects/" + name + ".json";
      ProjectDocument doc;
      doc.open(shipped);
      const QString copy = dir.filePath(QString(name) + ".json");
      doc.saveAs(copy);
      QFile a(shipped), b(copy);
      QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
      const QByteArray before = a.readAll(), after = b.readAll();
      qInfo("%s: %lld bytes saved, %s", name, static_cast<long long>(after.size()),
            before == after ? "identical" : "different");
      QVERIFY(before == after);
    }
  }

  /// Save As into another folder keeps the signal tables the project reads (the file column
  /// shows the new relative name), and never onto one of them.
  void saveAsKeepsTheSignalTables() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("sub"));
    QFile csv(dir.filePath("road.csv"));
    QVERIFY(csv.open(QIODevice::WriteOnly));
    csv.write("0,0\n1,0.02\n");
    csv.close();
    Project p = readProject((kRoot + "/projects/quarter_double_wishbone.json").toStdString());
    p.loadCases[0].drives[0].signal = {};
    p.loadCases[0].drives[0].signal.type = SignalType::Table;
    p.loadCases[0].drives[0].signal.file = "road.csv";
    const QString first = dir.filePath("p.json");
    p.sourcePath = first.toStdString();  // road.csv beside it
    writeProject(p, first.toStdString());
    ProjectDocument doc;
    doc.open(first);
    auto signalRows = makeTableModel(&doc, Table::Signals);
    const int file = columnOf(*signalRows, "file");
    QCOMPARE(signalRows->data(signalRows->index(0, file), Qt::DisplayRole).toString(), QString("road.csv"));
    QVERIFY_THROWS_EXCEPTION(ModelError, doc.saveAs(dir.filePath("road.csv")));
    QFile kept(dir.filePath("road.csv"));
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), QByteArray("0,0\n1,0.02\n"));
    doc.saveAs(dir.filePath("sub/q.json"));
    QCOMPARE(signalRows->data(signalRows->index(0, file), Qt::DisplayRole).toString(), QString("../road.csv"));
    QCOMPARE(doc.project().loadCases[0].drives[0].signal.file, std::string("../road.csv"));
    QVERIFY(!doc.isModified());
  }

  void signalsEditTheLoadCase() {
    auto model = makeTableModel(doc_.get(), Table::Signals);
    QAbstractItemModelTester tester(model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const int after = columnOf(*model, "after / to");
    // Row 0: LC1's step of Fx (after = -2500 N).
    QCOMPARE(model->data(model->index(0, 2), Qt::DisplayRole).toString(), QString("step"));
    QVERIFY(model->setData(model->index(0, after), "-3000", Qt::EditRole));
    QCOMPARE(doc_->project().loadCases[0].drives[0].signal.value2, -3000.0);
    doc_->undoStack()->undo();
    QCOMPARE(doc_->project().loadCases[0].drives[0].signal.value2, -2500.0);
    // Every input is driven in LC1 already: adding says so; deleting and undoing restores it.
    QVERIFY(!model->addRow());
    QVERIFY(model->lastError().contains("already driven"));
    const int rows = model->rowCount();
    QVERIFY(model->removeRowAt(1));
    QCOMPARE(model->rowCount(), rows - 1);
    QVERIFY(model->addRow());  // the freed input gets a constant signal again
    QCOMPARE(model->rowCount(), rows);
    doc_->undoStack()->undo();
    doc_->undoStack()->undo();
    QVERIFY(doc_->project().loadCases[0] == Project(doc_->project()).loadCases[0]);
    QCOMPARE(model->rowCount(), rows);
  }

  void lawCellsAcceptCurvesAndNumbers() {
    auto model = makeTableModel(doc_.get(), Table::Bushings);
    const int c = columnOf(*model, "z stiffness [N/m]");
    QVERIFY(model->setData(model->index(0, c), "curve 4", Qt::EditRole));
    QCOMPARE(*doc_->project().bushings[0].directions[2].stiffness.curve, 4);
    QCOMPARE(model->data(model->index(0, c), Qt::DisplayRole).toString(), QString("curve 4"));
    QVERIFY(model->setData(model->index(0, c), "2.5e6", Qt::EditRole));
    QVERIFY(!doc_->project().bushings[0].directions[2].stiffness.curve);
    QCOMPARE(doc_->project().bushings[0].directions[2].stiffness.coefficient, 2.5e6);
  }

  void referenceColumnsOfferExistingIds() {
    auto markers = makeTableModel(doc_.get(), Table::Markers);
    const QStringList bodies = markers->choices(columnOf(*markers, "body"));
    QCOMPARE(bodies.size(), static_cast<int>(doc_->project().bodies.size()));
    QVERIFY(bodies.first().startsWith("0: vehicle body"));
    auto bushings = makeTableModel(doc_.get(), Table::Bushings);
    QCOMPARE(bushings->choices(columnOf(*bushings, "marker j")).size(), static_cast<int>(doc_->project().markers.size()));
    QVERIFY(bushings->choices(columnOf(*bushings, "name")).isEmpty());
  }

  void duplicateGetsNewId() {
    auto model = makeTableModel(doc_.get(), Table::Markers);
    const int n = model->rowCount();
    model->duplicateRow(2);
    const auto& m = doc_->project().markers;
    QCOMPARE(m[3].position, m[2].position);
    QVERIFY(m[3].id != m[2].id);
    QCOMPARE(static_cast<int>(m.size()), n + 1);
    validate(doc_->project());  // still a valid project
  }

  // Mirroring the left corner gives a right corner that moves exactly like it under the mirrored
  // load case: x and z of the wheel centres equal, y opposite.
  void mirrorLeftToRightIsSymmetric() {
    const Project before = doc_->project();
    int added = 0;
    const Project m = mirrorLeftToRight(before, &added);
    QCOMPARE(m.bodies.size(), before.bodies.size() + 5);
    QCOMPARE(m.bushings.size(), 2 * before.bushings.size());
    QCOMPARE(m.p2ps.size(), 2 * before.p2ps.size());
    QCOMPARE(m.inputs.size(), 2 * before.inputs.size());
    QVERIFY(added > 40);
    validate(m);
    Project withOutputs = m;
    withOutputs.outputs.clear();
    const int left = before.outputs[0].element, right = m.outputs[before.outputs.size()].element;
    for (const char* c : {"x", "y", "z"}) {
      withOutputs.outputs.push_back({std::string("L") + c, OutputQuantity::MarkerPosition, left, c});
      withOutputs.outputs.push_back({std::string("R") + c, OutputQuantity::MarkerPosition, right, c});
    }
    RunOptions o;
    o.start = 4.9;
    o.duration = 0.3;
    Simulation sim(SuspensionModel::build(withOutputs), "LC1", o);
    sim.run();
    const Recorder& r = sim.results();
    double worst = 0.0;
    for (std::size_t k = 0; k < r.size(); ++k) {
      worst = std::max(worst, std::abs(r.value(k, 0) - r.value(k, 1)));   // x
      worst = std::max(worst, std::abs(r.value(k, 2) + r.value(k, 3)));   // y mirrored
      worst = std::max(worst, std::abs(r.value(k, 4) - r.value(k, 5)));   // z
    }
    qInfo("largest left/right asymmetry of the wheel centre over 4.9-5.2 s of LC1: %.2e m", worst);
    QVERIFY(worst < 1e-9);
    QVERIFY(std::abs(r.value(r.size() - 1, 0) - r.value(0, 0)) > 1e-4);  // it did move (force step at 5 s)

    // A wheel's drive and brake inputs follow their mirrored inputs.
    QVERIFY(!before.wheels.empty() && !before.inputs.empty());
    Project driven = before;
    driven.wheels[0].driveInput = driven.inputs[0].id;
    const Project dm = mirrorLeftToRight(driven, nullptr);
    QCOMPARE(*dm.wheels.back().driveInput, dm.inputs[before.inputs.size()].id);
    QVERIFY(!dm.wheels.back().brakeInput);

    // In the document: one undo step; an already symmetric project has nothing to mirror.
    QCOMPARE(applyMirror(doc_.get()), QString());
    QCOMPARE(doc_->project().bodies.size(), m.bodies.size());
    doc_->undoStack()->undo();
    QVERIFY(doc_->project() == before);
    doc_->open(kRoot + "/projects/double_wishbone.json");
    QVERIFY(applyMirror(doc_.get()).contains("nothing to mirror"));
  }

  void brokenProjectKeepsTheOpenOne() {
    const Project before = doc_->project();
    QVERIFY_THROWS_EXCEPTION(ModelError, doc_->open(kRoot + "/tests/data/bad_input/missing_marker.json"));
    QVERIFY(doc_->project() == before);
    QCOMPARE(doc_->path(), kRoot + "/projects/quarter_double_wishbone.json");
  }

 private:
  std::unique_ptr<ProjectDocument> doc_;
};

QTEST_MAIN(TestTableModels)
#include "tst_table_models.moc"
