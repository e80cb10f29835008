// SPDX-License-Identifier: GPL-3.0-or-later
// JSON project format: save then load gives the identical model; writing is atomic.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/dynamics/outputs.h"
#include "engine/model/project_diff.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "support/schema_check.h"
#include "engine/model/validate.h"
#include "support/test_models.h"

using namespace ek;

namespace {
const std::string kRoot = ELASTOKIN_SOURCE_DIR;

using Json = nlohmann::json;

/// Adds one load case using every signal type and one output of every quantity.
void addEverything(Project& p) {
  VehicleRow v;  // every field off its default
  v.frontAxle = false, v.wheelbase = 2.65, v.cgHeight = 0.52, v.frontBrakeShare = 0.7, v.frontDriveShare = 0.4;
  v.inboardBrakes = true, v.sprungMass = 1320.5, v.frontMassShare = 0.61, v.otherAxleRollStiffness = 850.25;
  v.otherAxleRollCentreHeight = 0.115;
  p.vehicle = v;
  p.bushings[0].directions[1].maxwell = {{3e5, 1.5e3}, {1e5, 50.0}};  // viscoelastic directions
  p.bushings[1].directions[4].maxwell = {{800.0, 2.5}};
  LoadCaseRow lc;
  lc.name = "all signals";
  lc.duration = 2.5;
  lc.initialState = InitialState::AsModelled;
  SignalRow s;
  s.type = SignalType::Constant, s.value = 1.5;
  lc.drives.push_back({1, s});
  s = {};
  s.type = SignalType::Step, s.t0 = 0.5, s.value = -1.0, s.value2 = 2.0;
  lc.drives.push_back({2, s});
  s = {};
  s.type = SignalType::Chirp, s.value = -2500, s.amplitude = 500, s.t0 = 5, s.t1 = 20, s.frequency = 0, s.frequency2 = 30;
  lc.drives.push_back({3, s});
  s = {};
  s.type = SignalType::Table, s.file = "signals/road.csv";
  lc.drives.push_back({4, s});
  p.loadCases.push_back(lc);
  LoadCaseRow lc2;
  lc2.name = "ramp and sine";
  SignalRow r;
  r.type = SignalType::Ramp, r.t0 = 0.1, r.t1 = 0.4, r.value = 0, r.value2 = 100;
  lc2.drives.push_back({1, r});
  r = {};
  r.type = SignalType::Sine, r.value = 3, r.amplitude = 2, r.frequency = 7.5, r.phase = 0.25, r.t0 = 0.2;
  lc2.drives.push_back({2, r});
  lc2.speedFollower = SpeedFollowerRow{1, 12.5, {3, 4}, 850.0};
  p.loadCases.push_back(lc2);
  p.outputs = {{"a", OutputQuantity::MarkerPosition, 1, "x"},      {"b", OutputQuantity::MarkerDisplacement, 2, "y"},
               {"c", OutputQuantity::MarkerVelocity, 3, "z"},      {"d", OutputQuantity::BodyAngles, 1, "rx"},
               {"e", OutputQuantity::BodyAngularVelocity, 2, "rz"}, {"f", OutputQuantity::BushingForce, 10, "ry"},
               {"g", OutputQuantity::BushingDeflection, 11, "x"},   {"h", OutputQuantity::P2PForce, 50, ""},
               {"i", OutputQuantity::P2PLength, 51, ""},            {"j", OutputQuantity::Input, 2, ""},
               {"k", OutputQuantity::ErrorEstimate, 0, "angle"},   {"l", OutputQuantity::SteeringRack, 70, "column torque"}};
  p.steeringRacks = {{70, "rack", 1, 1, 2, 0.0085, 1432.5, 0.75}, {71, "second", 2, 3, 1, -0.0079, 880.0, 0.0}};
  p.simulation = {5e-4, 2, 500.0};
  p.description = "round trip with \"quotes\", unicode \u00e4\u00f6 and\nnewlines";
}
/// True when `text` satisfies resources/project.schema.json (each problem printed).
bool fitsTheSchema(const std::string& text) {
  std::ifstream in(kRoot + "/resources/project.schema.json");
  const Json schema = Json::parse(in);
  std::vector<std::string> problems;
  test::checkAgainstSchema(schema, schema, Json::parse(text), "$", problems);
  for (const auto& pr : problems) qWarning("%s", pr.c_str());
  return problems.empty();
}

}  // namespace

class TestProjectIo : public QObject {
  Q_OBJECT
 private slots:
  void changesAreNamedByTableRowAndField() {
    const Project a = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/double_wishbone.json");
    QVERIFY(describeChanges(a, a).empty());
    Project b = a;
    b.bushings[0].directions[0].stiffness.coefficient = 1e7;
    b.markers.pop_back();
    b.loadCases[1].duration = 5.0;
    const auto d = describeChanges(a, b);
    QStringList lines;
    for (const auto& l : d) lines << QString::fromStdString(l);
    qInfo("%s", qPrintable(lines.join(" | ")));
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], QString("markers %1 '%2' removed").arg(a.markers.back().id).arg(QString::fromStdString(a.markers.back().name)));
    QCOMPARE(lines[1], QString("bushings 1 'wheel bearing left': x stiffness [N/m] 20000000.0 -> 10000000.0"));
    QCOMPARE(lines[2], QString("load cases 'LC2': duration [s] 20.0 -> 5.0"));
    QCOMPARE(describeChanges(a, b, 1).back(), std::string("... and 2 more"));
    // A marker moved: in global coordinates as modelled, not its body's frame.
    Project c = a;
    MarkerRow& m = c.markers[3];
    const Vec3 before = markerPositionAsModelled(a, m);
    m.position += Vec3(0.0, 0.0, 0.01);
    const Vec3 after = markerPositionAsModelled(c, m);
    const auto moved = describeChanges(a, c);
    QCOMPARE(moved.size(), std::size_t(1));
    const QString line = QString::fromStdString(moved[0]);
    qInfo("%s", qPrintable(line));
    QVERIFY(line.startsWith(QString("markers %1 '").arg(m.id)) && line.contains(": global position [m] ["));
    for (const Vec3& g : {before, after})
      for (int k = 0; k < 3; ++k) QVERIFY2(line.contains(QString::number(std::round(g[k] * 1e9) / 1e9, 'g', 12)), qPrintable(QString::number(g[k])));
  }

  void roundTripRandomProject() {
    Project p = test::randomProject(5, 4, 6, 3);
    addEverything(p);
    p.p2ps[0].freeLength.reset();  // optional field absent
    p.p2ps[1].bumpStop.reset();
    const std::string text = writeProjectText(p);
    const Project q = parseProject(text, "memory.json");
    QVERIFY(q == p);
    QCOMPARE(writeProjectText(q), text);  // writing is canonical
    QVERIFY(fitsTheSchema(text));
  }

  // A body reduced elsewhere (here the bar's own reduction kept at two of its nodes): every number
  // back bit for bit, the text canonical, and the schema covers it.
  void roundTripReducedBody() {
    Project p = test::flexibleBar(4, true);
    const auto model = SuspensionModel::build(p);
    FlexibleBodyRow& f = p.flexibleBodies[0];
    f.reduced = ReducedBodyRow();
    f.reduced->source = "bar.inp, units 0.001 m, 1000 kg, 4 fixed-interface modes";
    f.reduced->modal = model->flexibleBodies[0].modal;
    fe::keepNodes(f.reduced->modal, 2);
    for (const auto& m : p.markers)
      if (m.body == f.body && f.reduced->interfaceMarkers.size() < 2) f.reduced->interfaceMarkers.push_back(m.id);
    const FlexibleBodyRow kept = f;
    f = FlexibleBodyRow();
    f.id = kept.id;
    f.body = kept.body;
    f.name = kept.name;
    f.reduced = kept.reduced;
    f.maxFrequency = 900.0;
    const std::string text = writeProjectText(p);
    QVERIFY(text.find("\"reduced body\"") != std::string::npos);
    QVERIFY(text.find("\"points [m]\"") == std::string::npos);
    const Project q = parseProject(text, "memory.json");
    QVERIFY(q == p);
    QVERIFY(q.flexibleBodies[0].reduced->modal.H == kept.reduced->modal.H);
    QCOMPARE(writeProjectText(q), text);
    QVERIFY(fitsTheSchema(text));
  }

  // A flexible body's table: written and read back equal, canonical; its body row needs no mass.
  void roundTripFlexibleBody() {
    Project p = test::flexibleBar(5, true);
    p.flexibleBodies[0].section.warping = 3e-12;
    p.flexibleBodies[0].up = Vec3(0.0, 0.1, 1.0);
    p.flexibleBodies[0].maxFrequency = 1500.0;
    const std::string text = writeProjectText(p);
    QVERIFY(text.find("\"flexible bodies\"") != std::string::npos);
    const Project q = parseProject(text, "memory.json");
    QVERIFY(q == p);
    QCOMPARE(writeProjectText(q), text);
    auto j = nlohmann::ordered_json::parse(text);
    for (auto& b : j["bodies"])
      if (b["id"] == 1) b.erase("mass [kg]"), b.erase("inertia [kg m^2]"), b.erase("com [m]");
    QVERIFY(parseProject(j.dump(), "memory.json") == p);
  }

  // A wheel's Magic Formula tyre: file, spin inertia, low-speed damping and road height round-trip
  // and follow the schema; a wheel without a tyre writes none of them.
  void roundTripTyre() {
    const Project p = test::tyreCarriage(0.02);
    const std::string text = writeProjectText(p);
    QVERIFY(text.find("\"tyre\"") != std::string::npos);
    Project q = parseProject(text, "memory.json");
    QVERIFY(q == p);
    QCOMPARE(writeProjectText(q), text);
    q.wheels[0].spinInertia = 1.2;
    q.wheels[0].lowSpeedDamping = 800.0;
    q.wheels[0].roadHeight = -0.05;
    const Project r = parseProject(writeProjectText(q), "memory.json");
    QVERIFY(r.wheels[0] == q.wheels[0]);
    std::ifstream in(kRoot + "/resources/project.schema.json");
    const Json schema = Json::parse(in);
    std::vector<std::string> problems;
    test::checkAgainstSchema(schema, schema, Json::parse(writeProjectText(q)), "$", problems);
    for (const auto& pr : problems) qWarning("%s", pr.c_str());
    QVERIFY(problems.empty());
    q.wheels[0].tyre.clear();
    QVERIFY(writeProjectText(q).find("spin inertia") == std::string::npos);
  }

  // The error estimate is the run's: its row has no element key, and a wrong component or an
  // element key is named.
  void errorEstimateOutputHasNoElement() {
    Project p = test::randomProject(5, 2, 2, 1);
    p.outputs = {{"err", OutputQuantity::ErrorEstimate, 0, "angular velocity"}};
    const std::string text = writeProjectText(p);
    QVERIFY2(text.find("\"name\": \"err\",\n      \"quantity\": \"error estimate\",\n      \"component\": "
                       "\"angular velocity\"\n    }") != std::string::npos,
             text.c_str());
    QVERIFY(parseProject(text, "memory.json") == p);
    validate(p);
    std::string bad = text;
    bad.replace(bad.find("\"angular velocity\""), 18, "\"x\"");
    try {
      validate(parseProject(bad, "memory.json"));
      QFAIL("component x accepted for the error estimate");
    } catch (const ModelError& e) {
      QCOMPARE(QString::fromStdString(e.where().table), QString("outputs"));
      QCOMPARE(QString::fromStdString(e.where().field), QString("component"));
      QVERIFY2(QString(e.what()).contains("does not fit quantity \"error estimate\""), e.what());
    }
    bad = text;
    bad.replace(bad.find("\"component\""), 0, "\"marker\": 1, ");
    try {
      (void)parseProject(bad, "memory.json");
      QFAIL("an element key accepted for the error estimate");
    } catch (const ModelError& e) {
      QVERIFY2(QString(e.what()).contains("marker"), e.what());
    }
  }

  // Maxwell branches: written under "maxwell" with the direction's units, and a branch without a
  // positive spring or damper named by table, row and field, all in one pass.
  void maxwellBranches() {
    Project p = test::randomProject(5, 2, 2, 1);
    p.bushings[0].directions[3].maxwell = {{800.0, 2.5}};
    const std::string text = writeProjectText(p);
    QVERIFY2(text.find("\"maxwell\": [\n          {\n            \"stiffness [N m/rad]\": 800.0,\n            "
                       "\"damping [N m s/rad]\": 2.5") != std::string::npos,
             text.c_str());
    p.bushings[0].directions[0].maxwell = {{0.0, 10.0}, {1e5, -1.0}};
    try {
      validate(p);
      QFAIL("non-positive branch accepted");
    } catch (const ModelError& e) {
      const QString msg = e.what();
      qInfo("%s", e.what());
      QVERIFY(msg.contains("x.maxwell[1].stiffness [N/m]") && msg.contains("x.maxwell[2].damping [N s/m]"));
      QVERIFY(msg.contains("must be positive"));
    }
    std::string bad = text;
    bad.replace(bad.find("\"damping [N m s/rad]\": 2.5"), 26, "\"dumping [N m s/rad]\": 2.5");
    try {
      (void)parseProject(bad, "memory.json");
      QFAIL("a misspelt branch field accepted");
    } catch (const ModelError& e) {
      QVERIFY2(QString(e.what()).contains("rx.maxwell[1]"), e.what());
    }
    // Scaled by the static slope: written only when set, read back; it needs a positive slope at
    // zero deflection and has no effect (a warning) without branches.
    Project q = test::randomProject(5, 2, 2, 1);
    q.bushings[0].directions[3].maxwell = {{800.0, 2.5}};
    q.bushings[0].directions[3].stiffness = LawRow{150.0, std::nullopt};
    q.bushings[0].directions[3].maxwellScaledBySlope = true;
    const std::string scaledText = writeProjectText(q);
    QVERIFY(scaledText.find("\"maxwell scaled by slope\": true") != std::string::npos);
    QVERIFY(parseProject(scaledText, "memory.json") == q);
    validate(q);
    q.bushings[0].directions[3].stiffness = LawRow{0.0, std::nullopt};
    q.bushings[0].directions[1].maxwell.clear();
    q.bushings[0].directions[1].maxwellScaledBySlope = true;
    const Diagnostics d = check(q);
    QCOMPARE(int(d.errorCount()), 1);
    const QString report = QString::fromStdString(d.text(Severity::Error) + d.text(Severity::Warning));
    qInfo("%s", qPrintable(report));
    QVERIFY(report.contains("field 'rx.maxwell scaled by slope': needs a static stiffness whose slope at zero deflection is positive"));
    QVERIFY(report.contains("field 'y.maxwell scaled by slope': warning: has no effect"));
  }

  // Branch deflections as outputs: component = direction and branch number; a branch the bushing
  // does not have, or a malformed component, is named with the output and the field.
  void branchDeflectionOutputs() {
    Project p = test::randomProject(5, 2, 2, 1);
    const int bushing = p.bushings[0].id;
    p.bushings[0].directions[4].maxwell = {{800.0, 2.5}, {300.0, 0.5}};
    p.outputs.push_back({"branch ry2", OutputQuantity::BushingBranchDeflection, bushing, "ry2"});
    const Project q = parseProject(writeProjectText(p), "memory.json");
    QVERIFY(q == p);
    validate(q);
    const auto model = SuspensionModel::build(q);
    const auto channels = resolveChannels(*model, {"branch ry2"});
    QCOMPARE(channels[0].unit, std::string("rad"));
    QCOMPARE(channels[0].component, model->branchDirections[model->bushings[0].branchDirection[4]].first + 1);
    p.outputs.push_back({"branch ry3", OutputQuantity::BushingBranchDeflection, bushing, "ry3"});
    p.outputs.push_back({"branch x1", OutputQuantity::BushingBranchDeflection, bushing, "x1"});
    p.outputs.push_back({"branch q1", OutputQuantity::BushingBranchDeflection, bushing, "q1"});
    p.outputs.push_back({"branch x0", OutputQuantity::BushingBranchDeflection, bushing, "x0"});
    try {
      validate(p);
      QFAIL("missing branches accepted");
    } catch (const ModelError& e) {
      const QString msg = e.what();
      qInfo("%s", e.what());
      QVERIFY(msg.contains("'branch ry3'") && msg.contains("has 2 Maxwell branches in ry, not 3"));
      QVERIFY(msg.contains("'branch x1'") && msg.contains("has 0 Maxwell branches in x, not 1"));
      QVERIFY(msg.contains("'branch q1'") && msg.contains("'branch x0'") && msg.contains("x1, rz2"));
      QVERIFY(!msg.contains("'branch ry2'"));
    }
  }

  // A modal coordinate output reads back as written and fits the schema; on the shipped
  // flexible-bar axle it resolves to the bar's mode.
  void modalCoordinateOutputs() {
    Project p = readProject(kRoot + "/projects/double_wishbone_flexible_bar.json");
    const int bar = p.flexibleBodies.at(0).body;
    p.outputs.push_back({"bar mode 2", OutputQuantity::ModalCoordinate, bar, "q2"});
    p.outputs.push_back({"bar mode 12 rate", OutputQuantity::ModalCoordinate, bar, "qd12"});
    const std::string text = writeProjectText(p);
    QVERIFY(text.find("\"quantity\": \"modal coordinate\"") != std::string::npos);
    QVERIFY(fitsTheSchema(text));
    const Project q = parseProject(text, "memory.json");
    QVERIFY(q == p);
    const auto model = SuspensionModel::build(q);
    const auto c = resolveChannels(*model, {"bar mode 2", "bar mode 12 rate"});
    QCOMPARE(c[0].component, 1);
    QVERIFY(!c[0].rate && c[1].rate);
    QCOMPARE(c[1].component, 11);
  }

  void roundTripShippedProject() {
    const std::string path = kRoot + "/projects/quarter_double_wishbone.json";
    const Project p = readProject(path);
    const std::string tmp = (std::filesystem::temp_directory_path() / "elastokin_roundtrip.json").string();
    writeProject(p, tmp);
    const Project q = readProject(tmp);
    QVERIFY(q == p);
    QVERIFY(!std::filesystem::exists(tmp + ".tmp"));  // the temporary file was renamed
    std::filesystem::remove(tmp);
  }

  /// The shipped projects are in the canonical form the writer (and the workbench's Save)
  /// produces, so that saving an unchanged one reproduces it byte for byte.
  void shippedProjectsAreCanonical_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"quarter_double_wishbone", "double_wishbone", "double_wishbone_viscoelastic", "multilink"})
      QTest::newRow(n) << QString(n);
  }
  void shippedProjectsAreCanonical() {
    QFETCH(QString, name);
    const std::string path = kRoot + "/projects/" + name.toStdString() + ".json";
    std::ifstream in(path, std::ios::binary);
    const std::string stored((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string written = writeProjectText(readProject(path));
    std::size_t at = 0;
    while (at < std::min(stored.size(), written.size()) && stored[at] == written[at]) ++at;
    QVERIFY2(stored == written, qPrintable(QString("first difference at byte %1 of %2: '%3' written as '%4' "
                                                  "(regenerate with scripts/make_projects.py)")
                                               .arg(at)
                                               .arg(stored.size())
                                               .arg(QString::fromStdString(stored.substr(at > 20 ? at - 20 : 0, 40)))
                                               .arg(QString::fromStdString(written.substr(at > 20 ? at - 20 : 0, 40)))));
  }

  void schemaCoversEverythingWritten() {
    std::ifstream in(kRoot + "/resources/project.schema.json");
    const Json schema = Json::parse(in);
    Project p = test::randomProject(5, 4, 6, 3);
    addEverything(p);
    std::vector<std::string> problems;
    test::checkAgainstSchema(schema, schema, Json::parse(writeProjectText(p)), "$", problems);
    test::checkAgainstSchema(schema, schema, Json::parse(writeProjectText(test::flexibleBar(3))), "$", problems);
    test::checkAgainstSchema(schema, schema, Json::parse(std::ifstream(kRoot + "/projects/quarter_double_wishbone.json")), "$",
                       problems);
    for (const auto& pr : problems) qWarning("%s", pr.c_str());
    QVERIFY(problems.empty());
  }

  /// A project written elsewhere reads the same signal tables (their names re-expressed against
  /// the new folder), and is never written onto one of them.
  void writingKeepsTheFilesTheProjectReads() {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "elastokin_relocate";
    fs::remove_all(dir);
    fs::create_directories(dir / "proj" / "signals");
    fs::create_directories(dir / "other");
    const std::string table = "0,0\n1,0.01\n";
    {
      std::ofstream(dir / "proj" / "signals" / "road.csv") << table;
    }
    Project p = test::randomProject(3, 2, 2, 1);
    addEverything(p);
    const fs::path absolute = dir / "abs.csv";
    LoadCaseRow lc = p.loadCases.back();
    lc.name = "absolute";
    lc.drives.resize(1);
    lc.drives[0].signal.type = SignalType::Table;
    lc.drives[0].signal.file = absolute.string();
    p.loadCases.push_back(lc);
    p.sourcePath = (dir / "proj" / "p.json").string();
    const auto fileOf = [](const Project& q, const std::string& name) {
      for (const auto& l : q.loadCases)
        if (l.name == name)
          for (const auto& d : l.drives)
            if (d.signal.type == SignalType::Table) return d.signal.file;
      return std::string();
    };
    QCOMPARE(QString::fromStdString(fileOf(p, "all signals")), QString("signals/road.csv"));

    // Onto the table it reads: refused, naming the load case and the field; the table kept.
    try {
      writeProject(p, (dir / "proj" / "signals" / ".." / "signals" / "road.csv").string());
      QFAIL("the project was written onto its signal table");
    } catch (const ModelError& e) {
      qInfo("%s", e.what());
      QCOMPARE(QString::fromStdString(e.where().table), QString("load cases"));
      QCOMPARE(QString::fromStdString(e.where().row), QString("'all signals'"));
      QVERIFY(QString::fromStdString(e.where().field).endsWith(".file"));
    }
    std::ifstream in(dir / "proj" / "signals" / "road.csv");
    QCOMPARE(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), table);

    // Into another folder: the name follows, the file is the same; the absolute name is kept.
    writeProject(p, (dir / "other" / "q.json").string());
    const Project q = readProject((dir / "other" / "q.json").string());
    QCOMPARE(QString::fromStdString(fileOf(q, "all signals")), QString("../proj/signals/road.csv"));
    QVERIFY(sameFile((dir / "other" / fileOf(q, "all signals")).string(), (dir / "proj" / "signals" / "road.csv").string()));
    QCOMPARE(QString::fromStdString(fileOf(q, "absolute")), QString::fromStdString(absolute.string()));
    // A bare file name is in the working directory (std::filesystem::absolute("") throws).
    const Project bare = relocatedProject(p, "bare.json");
    QVERIFY(sameFile(fileOf(bare, "all signals"), (dir / "proj" / "signals" / "road.csv").string()));
    // In the same folder nothing changes.
    writeProject(p, (dir / "proj" / "p2.json").string());
    QCOMPARE(QString::fromStdString(fileOf(readProject((dir / "proj" / "p2.json").string()), "all signals")),
             QString("signals/road.csv"));
    fs::remove_all(dir);
  }

  void writeFailureLeavesTargetUntouched() {
    const std::string dir = (std::filesystem::temp_directory_path() / "elastokin_no_such_dir").string();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeProject(Project{}, dir + "/x/project.json"));
  }

  void wrongTypeNamesField() {
    const std::string text = R"({"format": "elastokin-project", "version": 1,
      "bodies": [{"id": 4, "name": "b", "mass [kg]": "heavy", "inertia [kg m^2]": [1, 1, 1]}]})";
    try {
      parseProject(text, "t.json");
      QFAIL("no error");
    } catch (const ModelError& e) {
      QCOMPARE(QString::fromStdString(e.where().table), QString("bodies"));
      QCOMPARE(QString::fromStdString(e.where().row), QString("id 4"));
      QCOMPARE(QString::fromStdString(e.where().field), QString("mass [kg]"));
      QVERIFY(QString(e.what()).contains("expected a number"));
    }
  }
};

QTEST_APPLESS_MAIN(TestProjectIo)
#include "tst_project_io.moc"
