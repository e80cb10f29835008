// SPDX-License-Identifier: GPL-3.0-or-later
// Bad input: every class gets its own clear error naming file, table, row and field
// (files in tests/data/bad_input/); projects edited in memory are checked too.
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "engine/model/joint_presets.h"
#include "engine/model/validate.h"
#include "support/test_models.h"

using namespace ek;

namespace {
const std::string kData = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/";

std::string minimalText() {
  std::ifstream in(kData + "minimal_valid.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
nlohmann::ordered_json minimalJson() { return nlohmann::ordered_json::parse(minimalText()); }

/// The errors of parsing and validating `text`, or an empty list.
std::vector<Diagnostic> errorsOf(const std::string& text) {
  try {
    validate(parseProject(text, "test.json"));
  } catch (const ModelError& e) {
    return e.errors();
  }
  return {};
}
QString joined(const std::vector<Diagnostic>& errors) {
  QString s;
  for (const Diagnostic& d : errors) s += QString::fromStdString(d.text()) + "\n";
  return s;
}
}  // namespace

class TestValidate : public QObject {
  Q_OBJECT
 private slots:
  // Six bodies with bad inertias: six errors from one pass, each naming its row and field.
  void everyErrorInOnePass() {
    auto j = minimalJson();
    auto body = j["bodies"][1];
    for (int k = 0; k < 6; ++k) {
      body["id"] = 10 + k;
      body["name"] = "bad " + std::to_string(k);
      body["inertia [kg m^2]"] = {0.01, 0.01, k % 2 ? -1.0 : 5.0};  // not positive definite / triangle
      j["bodies"].push_back(body);
    }
    const auto errors = errorsOf(j.dump());
    QCOMPARE(int(errors.size()), 6);
    for (int k = 0; k < 6; ++k) {
      QCOMPARE(QString::fromStdString(errors[k].where.row), QString("id %1").arg(10 + k));
      QCOMPARE(QString::fromStdString(errors[k].where.rowName), QString("bad %1").arg(k));
      QCOMPARE(QString::fromStdString(errors[k].where.field), QString("inertia [kg m^2]"));
    }
    QVERIFY2(joined(errors).contains("row id 13 ('bad 3'), field 'inertia [kg m^2]'"), qPrintable(joined(errors)));
    // Reader errors (types, unknown fields) are collected as well, across tables.
    auto k = minimalJson();
    k["bodies"][1]["mass [kg]"] = "heavy";
    k["markers"][0]["body"] = 0.5;
    k["bushings"][0]["colour"] = "red";
    const auto reader = errorsOf(k.dump());
    QCOMPARE(int(reader.size()), 3);
    QVERIFY(joined(reader).contains("field 'mass [kg]': expected a number, found string \"heavy\""));
    QVERIFY(joined(reader).contains("field 'body': expected an integer, found number 0.5"));
    QVERIFY(joined(reader).contains("field 'colour': unknown field"));
  }

  // Wheels and vehicle data: each problem named by row and field, all in one pass.
  void wheelsAndVehicle() {
    auto j = minimalJson();
    j["markers"].push_back({{"id", 30}, {"name", "along x"}, {"body", 1}, {"orientation [rad]", {0.0, 0.0, 0.0}}});
    j["markers"].push_back({{"id", 40}, {"name", "along y"}, {"body", 1}, {"orientation [rad]", {M_PI / 2, 0.0, 0.0}}});
    j["wheels"] = nlohmann::ordered_json::array();
    j["wheels"].push_back({{"id", 1}, {"name", "on ground"}, {"marker", 1}, {"carrier", 0}, {"radius [m]", 0.3}, {"side", "left"}});
    j["wheels"].push_back({{"id", 2}, {"name", "axis along x"}, {"marker", 30}, {"carrier", 9}, {"radius [m]", 0.3}, {"side", "left"}});
    j["wheels"].push_back({{"id", 3}, {"name", "bad"}, {"marker", 40}, {"carrier", 0}, {"radius [m]", -0.3}, {"side", "right"},
                           {"steering axis", {2, 40}}});
    j["vehicle"] = {{"axle", "front"}, {"wheelbase [m]", 0.0}, {"cg height [m]", 0.5}, {"front brake share", 1.5},
                    {"front drive share", 0.0}, {"sprung mass [kg]", -1.0}, {"sprung mass front share", 1.2},
                    {"other axle roll stiffness [N m/deg]", -5.0}, {"other axle roll centre height [m]", 0.1}};
    const auto errors = errorsOf(j.dump());
    const QString all = joined(errors);
    for (const char* expected :
         {"row id 1 ('on ground'), field 'marker': marker 1 is on body 0, which is fixed",
          "row id 2 ('axis along x'), field 'marker': the x axis of marker 30 is the spin axis",
          "row id 2 ('axis along x'), field 'carrier': body 9 does not exist",
          "row id 3 ('bad'), field 'marker': body 1 is already wheel 2",
          "row id 3 ('bad'), field 'radius [m]': must be positive",
          "row id 3 ('bad'), field 'steering axis': markers 2 and 40 coincide",
          "field 'vehicle.wheelbase [m]': must be positive",
          "field 'vehicle.front brake share': must lie between 0 and 1",
          "field 'vehicle.sprung mass [kg]': must not be negative",
          "field 'vehicle.sprung mass front share': must lie between 0 and 1",
          "field 'vehicle.other axle roll stiffness [N m/deg]': must not be negative"})
      QVERIFY2(all.contains(expected), qPrintable("missing: " + QString(expected) + "\nin:\n" + all));
    QCOMPARE(int(errors.size()), 11);
    // A misspelt side is a reader error.
    j["wheels"][2]["side"] = "middle";
    QVERIFY(joined(errorsOf(j.dump())).contains("row id 3 ('bad'), field 'side': expected \"left\" or \"right\""));
    // So is an unknown brake layout.
    j["vehicle"]["brakes"] = "drum";
    QVERIFY(joined(errorsOf(j.dump())).contains("field 'vehicle.brakes': expected \"outboard\" or \"inboard\", found \"drum\""));
  }

  // The targets table: every row's problems named by id and field, in one pass; a valid table
  // round-trips through the file.
  void targets() {
    auto j = minimalJson();
    j["targets"] = nlohmann::ordered_json::array();
    j["targets"].push_back({{"id", 1}, {"metric", "bump steer"}, {"lower", -15.0}, {"upper", 15.0}, {"note", "typical"}});
    j["targets"].push_back({{"id", 2}, {"metric", "wheel rate"}, {"wheel", "middle"}, {"upper", 40.0}});
    j["targets"].push_back({{"id", 3}, {"metric", "wheel rate"}});
    j["targets"].push_back({{"id", 4}, {"metric", "bump camber"}, {"lower", 5.0}, {"upper", -5.0}});
    j["targets"].push_back({{"id", 1}, {"metric", "roll steer"}, {"lower", "low"}});
    const QString all = joined(errorsOf(j.dump()));
    for (const char* expected : {"table 'targets', row id 3, field 'lower': a target needs 'lower', 'upper' or both",
                                 "table 'targets', row id 4, field 'upper': below 'lower' (5 > -5)",
                                 "field 'lower': expected a number, found string \"low\""})
      QVERIFY2(all.contains(expected), qPrintable("missing: " + QString(expected) + "\nin:\n" + all));
    // The rows the reader accepts, checked against the project: an unknown wheel, a repeated id.
    j["targets"].erase(j["targets"].begin() + 2, j["targets"].end());
    j["targets"][1]["id"] = 1;
    const QString checked = joined(errorsOf(j.dump()));
    QVERIFY2(checked.contains("table 'targets', row id 1 ('wheel rate'), field 'wheel': no wheel 'middle' in the 'wheels' table"),
             qPrintable(checked));
    QVERIFY2(checked.contains("table 'targets', row id 1 ('wheel rate'), field 'id': duplicate id 1"), qPrintable(checked));
    j["targets"].erase(j["targets"].begin() + 1);
    const Project p = parseProject(j.dump(), "t.json");
    QCOMPARE(int(p.targets.size()), 1);
    QCOMPARE(*p.targets[0].lower, -15.0);
    QCOMPARE(p.targets[0].note, std::string("typical"));
    QCOMPARE(parseProject(writeProjectText(p), "t.json").targets, p.targets);
    // A manoeuvre's target: read back with its manoeuvre; a wheel is refused (the vehicle's metric).
    j["targets"].push_back({{"id", 7}, {"metric", "understeer gradient"}, {"manoeuvre", "steady-state-circle"},
                            {"lower", 1.5}, {"upper", 3.0}});
    const Project q = parseProject(j.dump(), "t.json");
    QCOMPARE(q.targets[1].manoeuvre, std::string("steady-state-circle"));
    QCOMPARE(parseProject(writeProjectText(q), "t.json").targets, q.targets);
    j["targets"][1]["wheel"] = "middle";
    const QString wheeled = joined(errorsOf(j.dump()));
    QVERIFY2(wheeled.contains("row id 7 ('understeer gradient'), field 'wheel': a manoeuvre's metrics are the vehicle's"),
             qPrintable(wheeled));
  }

  // Motion inputs drive fixed bodies only, one rotation per body; the kind is named in full.
  void motionInputs() {
    auto j = minimalJson();
    j["inputs"].push_back({{"id", 2}, {"name", "lift"}, {"marker", 2}, {"kind", "translation"}, {"direction", {0, 0, 1}}});
    j["inputs"].push_back({{"id", 3}, {"name", "roll"}, {"marker", 1}, {"kind", "rotation"}, {"direction", {1, 0, 0}}});
    j["inputs"].push_back({{"id", 4}, {"name", "yaw"}, {"marker", 3}, {"kind", "rotation"}, {"direction", {0, 0, 1}}});
    j["inputs"].push_back({{"id", 5}, {"name", "pad"}, {"marker", 3}, {"kind", "translation"}, {"direction", {0, 0, 1}}});
    const QString all = joined(errorsOf(j.dump()));
    QVERIFY2(all.contains("row id 2 ('lift'), field 'kind': a translation prescribes the motion of a fixed body, "
                          "but marker 2 is on free body 1 ('mass')"),
             qPrintable(all));
    QVERIFY2(all.contains("row id 4 ('yaw'), field 'kind': body 0 ('ground') is already rotated by input 3"),
             qPrintable(all));
    QCOMPARE(int(errorsOf(j.dump()).size()), 2);
    j["inputs"][1]["kind"] = "shake";
    QVERIFY(joined(errorsOf(j.dump()))
                .contains("field 'kind': expected \"force\", \"torque\", \"translation\" or \"rotation\", found \"shake\""));
    // Without the two bad rows the project is valid and round-trips its kinds.
    j = minimalJson();
    j["inputs"].push_back({{"id", 3}, {"name", "roll"}, {"marker", 1}, {"kind", "rotation"}, {"direction", {1, 0, 0}}});
    j["inputs"].push_back({{"id", 5}, {"name", "pad"}, {"marker", 3}, {"kind", "translation"}, {"direction", {0, 0, 1}}});
    QVERIFY(errorsOf(j.dump()).empty());
    const Project p = parseProject(j.dump(), "test.json");
    QVERIFY(p.inputs[1].kind == InputKind::Rotation && p.inputs[2].kind == InputKind::Translation);
    QCOMPARE(parseProject(writeProjectText(p), "again.json").inputs, p.inputs);
    // A wheel's steering input is a motion input that exists.
    j["wheels"] = nlohmann::ordered_json::array();
    j["wheels"].push_back({{"id", 1}, {"name", "w"}, {"marker", 2}, {"carrier", 1}, {"radius [m]", 0.3},
                           {"side", "left"}, {"steering input", 1}});
    j["wheels"].push_back({{"id", 2}, {"name", "v"}, {"marker", 2}, {"carrier", 1}, {"radius [m]", 0.3},
                           {"side", "left"}, {"steering input", 9}});
    const QString wheels = joined(errorsOf(j.dump()));
    QVERIFY2(wheels.contains("row id 1 ('w'), field 'steering input': input 1 is a force; the steering axis is the "
                             "screw axis under a prescribed motion"),
             qPrintable(wheels));
    QVERIFY2(wheels.contains("row id 2 ('v'), field 'steering input': input 9 does not exist"), qPrintable(wheels));
  }

  // Steering racks: a rotation input that exists, two markers on different bodies, a ratio that
  // is not zero, a positive column stiffness, no negative damping, and outputs of racks that
  // exist: every problem named in one pass.
  void steeringRacks() {
    auto j = minimalJson();
    j["bodies"].push_back({{"id", 5}, {"name", "steering wheel"}, {"fixed", true}});
    j["markers"].push_back({{"id", 9}, {"name", "column"}, {"body", 5}});
    j["inputs"].push_back(
        {{"id", 3}, {"name", "steering wheel angle"}, {"marker", 9}, {"kind", "rotation"}, {"direction", {0, 0, 1}}});
    j["steering racks"] = nlohmann::ordered_json::array();
    j["steering racks"].push_back({{"id", 1}, {"name", "rack"}, {"steering input", 3}, {"marker_i", 2}, {"marker_j", 1},
                                   {"ratio [m/rad]", 0.008}, {"column stiffness [N m/rad]", 1500.0}});
    j["outputs"] = nlohmann::ordered_json::array();
    j["outputs"].push_back({{"name", "torque"}, {"quantity", "steering rack"}, {"steering rack", 1}, {"component", "column torque"}});
    QVERIFY2(errorsOf(j.dump()).empty(), qPrintable(joined(errorsOf(j.dump()))));
    const Project p = parseProject(j.dump(), "test.json");
    QCOMPARE(p.steeringRacks[0].columnDamping, 0.0);
    QCOMPARE(parseProject(writeProjectText(p), "again.json").steeringRacks, p.steeringRacks);

    j["steering racks"].push_back({{"id", 2}, {"name", "bad"}, {"steering input", 1}, {"marker_i", 2}, {"marker_j", 2},
                                   {"ratio [m/rad]", 0.0}, {"column stiffness [N m/rad]", -1.0},
                                   {"column damping [N m s/rad]", -2.0}});
    j["steering racks"].push_back({{"id", 3}, {"name", "lost"}, {"steering input", 8}, {"marker_i", 2}, {"marker_j", 77},
                                   {"ratio [m/rad]", 0.01}, {"column stiffness [N m/rad]", 100.0}});
    j["outputs"].push_back({{"name", "none"}, {"quantity", "steering rack"}, {"steering rack", 9}, {"component", "force"}});
    j["outputs"].push_back({{"name", "odd"}, {"quantity", "steering rack"}, {"steering rack", 1}, {"component", "toe"}});
    const auto errors = errorsOf(j.dump());
    const QString all = joined(errors);
    for (const char* expected :
         {"row id 2 ('bad'), field 'steering input': input 1 is a force input; the steering-wheel angle is a rotation "
          "input",
          "row id 2 ('bad'), field 'marker_j': both markers (2, 2) are on body 1",
          "row id 2 ('bad'), field 'ratio [m/rad]': must not be zero",
          "row id 2 ('bad'), field 'column stiffness [N m/rad]': must be positive",
          "row id 2 ('bad'), field 'column damping [N m s/rad]': must not be negative",
          "row id 3 ('lost'), field 'steering input': input 8 does not exist",
          "row id 3 ('lost'), field 'marker_j': marker 77 does not exist",
          "'none', field 'steering rack': steering rack 9 does not exist",
          "'odd', field 'component': component \"toe\" does not fit quantity \"steering rack\""})
      QVERIFY2(all.contains(expected), qPrintable(QString(expected) + "\n in:\n" + all));
    QCOMPARE(int(errors.size()), 9);
    // A missing ratio is named, not taken as zero.
    j["steering racks"][0].erase("ratio [m/rad]");
    QVERIFY(joined(errorsOf(j.dump())).contains("row id 1 ('rack'), field 'ratio [m/rad]': required field is missing"));
  }

  // A variable ratio (docs/steering.md, "Variable ratio"): a travel curve instead of the ratio,
  // read and written back; the curve must exist, continue linearly beyond its points and rise or
  // fall strictly (its slope is the ratio); the ratio and a travel curve together are refused.
  // Every problem named in one pass.
  void steeringRackTravelCurves() {
    auto j = minimalJson();
    j["bodies"].push_back({{"id", 5}, {"name", "steering wheel"}, {"fixed", true}});
    j["markers"].push_back({{"id", 9}, {"name", "column"}, {"body", 5}});
    j["inputs"].push_back(
        {{"id", 3}, {"name", "steering wheel angle"}, {"marker", 9}, {"kind", "rotation"}, {"direction", {0, 0, 1}}});
    auto curve = [&](int id, const char* interpolation, const char* extrapolation, std::vector<std::array<double, 2>> pts) {
      j["curves"].push_back({{"id", id}, {"name", "travel " + std::to_string(id)}, {"interpolation", interpolation},
                             {"extrapolation", extrapolation}, {"points", pts}});
    };
    if (!j.contains("curves")) j["curves"] = nlohmann::ordered_json::array();
    curve(40, "spline", "linear", {{-3.0, -0.0230}, {-1.0, -0.0071}, {0.0, 0.0}, {1.0, 0.0071}, {3.0, 0.0230}});
    curve(41, "pchip", "linear", {{-1.0, -0.007}, {0.0, 0.0}, {0.5, 0.0}, {1.0, 0.007}});         // flat in the middle
    curve(42, "spline", "linear", {{-1.0, 0.01}, {0.0, 0.0}, {1.5, 0.02}});  // turns back near 0
    curve(43, "linear", "constant", {{-1.0, -0.007}, {1.0, 0.007}});                               // held beyond
    j["steering racks"] = nlohmann::ordered_json::array();
    auto rack = [&](int id, const char* name, nlohmann::ordered_json ratio) {
      nlohmann::ordered_json r{{"id", id}, {"name", name}, {"steering input", 3}, {"marker_i", 2}, {"marker_j", 1}};
      for (auto& [k, v] : ratio.items()) r[k] = v;
      r["column stiffness [N m/rad]"] = 1500.0;
      j["steering racks"].push_back(r);
    };
    rack(1, "variable", {{"travel curve", 40}});
    QVERIFY2(errorsOf(j.dump()).empty(), qPrintable(joined(errorsOf(j.dump()))));
    const Project p = parseProject(j.dump(), "test.json");
    QCOMPARE(p.steeringRacks[0].travelCurve, std::optional<int>(40));
    QCOMPARE(parseProject(writeProjectText(p), "again.json").steeringRacks, p.steeringRacks);
    QVERIFY(!QString::fromStdString(writeProjectText(p)).contains("ratio [m/rad]"));

    rack(2, "no curve", {{"travel curve", 77}});
    rack(3, "flat", {{"travel curve", 41}});
    rack(4, "back", {{"travel curve", 42}});
    rack(5, "held", {{"travel curve", 43}});
    const auto errors = errorsOf(j.dump());
    const QString all = joined(errors);
    for (const char* expected :
         {"row id 2 ('no curve'), field 'travel curve': curve 77 does not exist",
          "row id 3 ('flat'), field 'travel curve': curve 41 is flat at x = 0 (slope 0)",
          "row id 4 ('back'), field 'travel curve': curve 42 turns back at x = ",
          "row id 5 ('held'), field 'travel curve': curve 43 holds its end values (extrapolation 'constant')"})
      QVERIFY2(all.contains(expected), qPrintable(QString(expected) + "\n in:\n" + all));
    QCOMPARE(int(errors.size()), 4);
    // Both ways at once: refused when the file is read.
    j["steering racks"][0]["ratio [m/rad]"] = 0.008;
    QVERIFY(joined(errorsOf(j.dump()))
                .contains("row id 1 ('variable'), field 'ratio [m/rad]': give either 'ratio [m/rad]' (a constant "
                          "ratio) or 'travel curve' (a variable one), not both"));
  }

  // A load case's speed follower: a free body that exists, a positive gain, drive inputs that
  // exist, are wheels' drive inputs and have no signal of their own: every problem in one pass;
  // a valid one reads back as written.
  void speedFollower() {
    Project p = test::tyreCarriage(0.0);
    p.inputs = {InputRow{1, "drive", 3, InputKind::Torque}, InputRow{2, "push", 3, InputKind::Force}};
    p.wheels[0].driveInput = 1;
    p.loadCases[0].speedFollower = SpeedFollowerRow{1, 10.0, {1}, 300.0};
    QVERIFY2(errorsOf(writeProjectText(p)).empty(), qPrintable(joined(errorsOf(writeProjectText(p)))));
    QCOMPARE(parseProject(writeProjectText(p), "again.json").loadCases, p.loadCases);
    p.loadCases[0].speedFollower = SpeedFollowerRow{0, 10.0, {1, 2, 9}, -1.0};
    SignalRow s;
    s.value = 5.0;
    p.loadCases[0].drives = {{1, s}};
    const auto errors = errorsOf(writeProjectText(p));
    const QString all = joined(errors);
    for (const char* expected :
         {"field 'speed follower.body': body 0 is fixed; the vehicle body is a free body",
          "field 'speed follower.gain [N m s/m]': must be positive",
          "field 'speed follower.drive inputs': input 1 has a signal in this load case as well; the follower sets it",
          "field 'speed follower.drive inputs': input 2 is no wheel's drive input (a wheel with a tyre)",
          "field 'speed follower.drive inputs': input 9 does not exist"})
      QVERIFY2(all.contains(expected), qPrintable(QString(expected) + "\n in:\n" + all));
    QCOMPARE(int(errors.size()), 5);
  }

  // A load case's path follower on the shipped car: a free body, a steering rack's input with no
  // signal of its own, a positive preview time and gain, a path of two or more distinct points:
  // every problem in one pass; a valid one reads back as written.
  void pathFollower() {
    Project p = readProject(std::string(ELASTOKIN_SOURCE_DIR) + "/projects/full_vehicle_tyres.json");
    auto errors = [](const Project& q) {
      try {
        validate(q);
      } catch (const ModelError& e) {
        return e.errors();
      }
      return std::vector<Diagnostic>{};
    };
    LoadCaseRow lane;
    lane.name = "lane";
    lane.pathFollower = PathFollowerRow{0, 1, {{0.0, 0.0}, {10.0, 0.5}, {20.0, 0.5}}, 0.6, 5.0, 60.0};
    p.loadCases.push_back(lane);
    QVERIFY2(errors(p).empty(), qPrintable(joined(errors(p))));
    QCOMPARE(parseProject(writeProjectText(p), p.sourcePath).loadCases, p.loadCases);
    // A reaction time is written only when set, and reads back.
    QVERIFY(!QString::fromStdString(writeProjectText(p)).contains("reaction time"));
    p.loadCases.back().pathFollower->reactionTime = 0.25;
    QVERIFY(QString::fromStdString(writeProjectText(p)).contains("\"reaction time [s]\": 0.25"));
    QCOMPARE(parseProject(writeProjectText(p), p.sourcePath).loadCases, p.loadCases);
    int fixed = -1;
    for (const BodyRow& b : p.bodies)
      if (b.fixed) fixed = b.id;
    QVERIFY(fixed >= 0);
    p.loadCases.back().pathFollower = PathFollowerRow{fixed, 2, {{0.0, 0.0}, {0.0, 0.0}}, 0.0, -1.0, 0.0};
    LoadCaseRow driven;
    driven.name = "driven";
    SignalRow s;
    s.value = 0.1;
    driven.drives = {{1, s}};
    driven.pathFollower = PathFollowerRow{77, 1, {{0.0, 0.0}}, 0.5, 1.0, 10.0, 2.5};
    p.loadCases.push_back(driven);
    const auto e = errors(p);
    const QString all = joined(e);
    for (const QString expected :
         {QString("field 'path follower.body': body %1 is fixed; the vehicle body is a free body").arg(fixed),
          QString("field 'path follower.steering input': input 2 is no steering rack's input (the steering-wheel angle)"),
          QString("field 'path follower.preview time [s]': must be positive"),
          QString("field 'path follower.minimum preview [m]': must be positive"),
          QString("field 'path follower.gain [rad m]': must be positive"),
          QString("field 'path follower.path [m]': point 2 repeats point 1 (a segment needs a length)"),
          QString("field 'path follower.body': body 77 does not exist"),
          QString("field 'path follower.steering input': input 1 has a signal in this load case as well; the follower sets it"),
          QString("field 'path follower.path [m]': needs at least two points"),
          QString("field 'path follower.reaction time [s]': must be 0 to 2 s (a driver's is 0.1 to 0.5 s), is 2.5")})
      QVERIFY2(all.contains(expected), qPrintable(expected + "\n in:\n" + all));
    QCOMPARE(int(e.size()), 10);
  }

  // A wheel with a Magic Formula tyre: no negative spin inertia or damping, both named in one
  // pass; a load case may start from the static equilibrium.
  void tyreWheels() {
    Project p = test::tyreCarriage(0.0);
    QVERIFY(errorsOf(writeProjectText(p)).empty());
    p.wheels[0].spinInertia = -1.0;
    p.wheels[0].lowSpeedDamping = -5.0;
    p.loadCases[0].initialState = InitialState::Equilibrium;
    const QString all = joined(errorsOf(writeProjectText(p)));
    QVERIFY2(all.contains("row id 1 ('wheel'), field 'spin inertia [kg m^2]': must not be negative"), qPrintable(all));
    QVERIFY2(all.contains("row id 1 ('wheel'), field 'low-speed damping [N s/m]': must not be negative"), qPrintable(all));
    QVERIFY2(!all.contains("initial state"), qPrintable(all));  // the static equilibrium stands on the tyres
    QCOMPARE(int(errorsOf(writeProjectText(p)).size()), 2);
    // Tyre outputs: a known component of a wheel that has a tyre.
    Project q = test::tyreCarriage(0.0);
    q.outputs = {{"fy", OutputQuantity::Tyre, 1, "fy"}, {"bad", OutputQuantity::Tyre, 1, "toe"}};
    q.wheels.push_back(q.wheels[0]);
    q.wheels[1].id = 2;
    q.wheels[1].tyre.clear();
    q.outputs.push_back({"none", OutputQuantity::Tyre, 2, "fz"});
    const QString outs = joined(errorsOf(writeProjectText(q)));
    QVERIFY2(outs.contains("'bad', field 'component': component \"toe\" does not fit quantity \"tyre\""), qPrintable(outs));
    QVERIFY2(outs.contains("'none', field 'wheel': wheel 2 has no tyre"), qPrintable(outs));
    // Drive and brake inputs: torque inputs that exist, on wheels with tyres, one role per input.
    Project d = test::tyreCarriage(0.0);
    d.inputs = {InputRow{1, "drive", 3, InputKind::Torque}, InputRow{2, "push", 3, InputKind::Force}};
    d.wheels[0].driveInput = 1;
    d.wheels[0].brakeInput = 2;
    QCOMPARE(parseProject(writeProjectText(d), "again.json").wheels, d.wheels);
    d.wheels.push_back(d.wheels[0]);
    d.wheels[1].id = 2;
    d.wheels[1].tyre.clear();
    d.wheels[1].driveInput = 7;
    d.wheels[1].brakeInput = 1;
    const QString torques = joined(errorsOf(writeProjectText(d)));
    QVERIFY2(torques.contains("row id 1 ('wheel'), field 'brake input': input 2 is a force; a wheel's drive and brake "
                              "take a torque input"),
             qPrintable(torques));
    QVERIFY2(torques.contains("row id 2 ('wheel'), field 'drive input': the wheel has no tyre"), qPrintable(torques));
    QVERIFY2(torques.contains("row id 2 ('wheel'), field 'drive input': input 7 does not exist"), qPrintable(torques));
    QVERIFY2(torques.contains("row id 2 ('wheel'), field 'brake input': input 1 is the drive input of wheel 1 "
                              "already; one input cannot both drive and brake"),
             qPrintable(torques));
  }

  // A repeated key is an error naming both places, not "the last one wins".
  // Flexible bodies: every problem of the table and of what rides on the body, in one pass.
  void flexibleBodies() {
    Project p = test::flexibleBar(4);
    FlexibleBodyRow& f = p.flexibleBodies[0];
    f.section.area = 0.0;
    f.material.density = -1.0;
    f.modes = -2;
    f.dampingRatio = 1.5;
    f.dampingRatios = {0.01, 1.2};
    f.stiffnessDamping = -1e-5;
    f.maxFrequency = -100.0;
    f.points.push_back(f.points.back());
    p.bodies[1].mass = 2.0;
    FlexibleBodyRow second = f;
    second.id = 2;
    second.name = "no such body";
    second.body = 7;
    p.flexibleBodies.push_back(second);
    p.bushings[0].directions[0].maxwell = {{1e5, 100.0}};
    InputRow load;
    load.id = 1;
    load.name = "push";
    load.marker = 12;
    p.inputs = {load};
    QString all;
    try {
      validate(p);
    } catch (const ModelError& e) {
      all = joined(e.errors());
    }
    for (const char* expected :
         {"table 'flexible bodies', row id 1 ('bar beams'), field 'section.area [m^2]': must be positive, is 0",
          "row id 1 ('bar beams'), field 'material.density [kg/m^3]': must be positive, is -1",
          "row id 1 ('bar beams'), field 'modes': must be 0 to 200, is -2",
          "row id 1 ('bar beams'), field 'damping ratio': must be in [0, 1), is 1.5",
          "row id 1 ('bar beams'), field 'damping ratios': mode 2: must be in [0, 1), is 1.2",
          "row id 1 ('bar beams'), field 'stiffness-proportional damping [s]': must not be negative, is -1e-05",
          "row id 1 ('bar beams'), field 'max frequency [Hz]': must not be negative (0: every mode kept), is -100",
          "row id 1 ('bar beams'), field 'points [m]': points 4 and 5 coincide",
          "row id 2 ('no such body'), field 'body': body 7 does not exist",
          "table 'bodies', row id 1 ('bar'), field 'mass [kg]': the body is flexible"})
      QVERIFY2(all.contains(expected), qPrintable("missing: " + QString(expected) + "\nin:\n" + all));
    // A load on a flexible body's marker and Maxwell branches of a bushing on one are valid (their
    // modal forces: docs/flexible-bodies.md).
    QVERIFY2(!all.contains("'push'") && !all.contains("'mount left'"), qPrintable(all));
    // And the valid bar builds; with a ratio per mode, as many ratios as modes.
    const int modes = SuspensionModel::build(test::flexibleBar(4))->flexibleBodies.at(0).modes();
    Project counted = test::flexibleBar(4);
    counted.flexibleBodies[0].dampingRatios.assign(static_cast<std::size_t>(modes - 1), 0.02);
    QVERIFY_THROWS_EXCEPTION(ModelError, SuspensionModel::build(counted));
    try {
      SuspensionModel::build(counted);
    } catch (const ModelError& e) {
      const QString expected = QString("field 'damping ratios': gives %1 ratios for the body's %2 elastic modes")
                                   .arg(modes - 1)
                                   .arg(modes);
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
    counted.flexibleBodies[0].dampingRatios.push_back(0.04);
    const auto built = SuspensionModel::build(counted);
    const ModelFlexibleBody& fb = built->flexibleBodies.at(0);
    QVERIFY(std::abs(fb.damping[modes - 1] - 0.08 * std::sqrt(fb.modal.stiffness[modes - 1])) <= 1e-15 * fb.damping[modes - 1]);
  }

  void duplicateKeysAreErrors() {
    std::string text = minimalText();
    const std::string mass = "\"mass [kg]\": 2.0,";
    const auto at = text.find(mass);
    QVERIFY(at != std::string::npos);
    text.insert(at + mass.size(), " \"mass [kg]\": 2000.0,");
    const auto errors = errorsOf(text);
    QCOMPARE(int(errors.size()), 1);
    const QString msg = QString::fromStdString(errors[0].text());
    qInfo("%s", qPrintable(msg));
    QCOMPARE(QString::fromStdString(errors[0].where.table), QString("bodies"));
    QCOMPARE(QString::fromStdString(errors[0].where.row), QString("id 1"));
    QCOMPARE(QString::fromStdString(errors[0].where.field), QString("mass [kg]"));
    QVERIFY2(msg.contains("appears twice in one object (first at line 20, column 7)") && msg.contains("line 20, column 25"),
             qPrintable(msg));
    // Two spellings of one key are one key.
    auto j = minimalJson();
    std::string t2 = j.dump();
    t2.insert(t2.find("\"name\":\"minimal\"") + 16, ",\"n\\u0061me\":\"other\"");
    QVERIFY2(joined(errorsOf(t2)).contains("the key \"name\" appears twice"), qPrintable(joined(errorsOf(t2))));
  }

  // Integers are range-checked before the conversion (4294967297 used to become 1).
  void integersDoNotWrap() {
    auto j = minimalJson();
    j["bushings"][0]["marker_j"] = 4294967297LL;
    auto errors = errorsOf(j.dump());
    QCOMPARE(int(errors.size()), 1);
    QCOMPARE(QString::fromStdString(errors[0].where.field), QString("marker_j"));
    QVERIFY(QString::fromStdString(errors[0].message).contains("integer 4294967297 is out of range"));
    j = minimalJson();
    j["version"] = 4294967297LL;
    errors = errorsOf(j.dump());
    QCOMPARE(int(errors.size()), 1);
    QCOMPARE(QString::fromStdString(errors[0].where.field), QString("version"));
    j = minimalJson();
    j["bodies"][1]["id"] = -4294967295LL;
    QVERIFY(joined(errorsOf(j.dump())).contains("integer -4294967295 is out of range"));
  }

  // Deep nesting is refused before the recursive parser sees it, with line, column and depth;
  // messages show a bounded excerpt of a bad value, never the whole of it.
  void deepNestingAndLongValues() {
    const std::string deep = "{\"format\": " + std::string(200000, '[') + std::string(200000, ']') + "}";
    const auto errors = errorsOf(deep);
    QCOMPARE(int(errors.size()), 1);
    QCOMPARE(errors[0].where.line, 1);
    QCOMPARE(errors[0].where.column, 75);  // the 64th "[": level 65 (the object is level 1)
    QVERIFY(QString::fromStdString(errors[0].message).contains("nested deeper than 64 levels"));
    auto j = minimalJson();
    nlohmann::ordered_json big = nlohmann::ordered_json::array();
    for (int k = 0; k < 100000; ++k) big.push_back(k);
    nlohmann::ordered_json nested = big;
    for (int k = 0; k < 50; ++k) nested = nlohmann::ordered_json::array({nested});
    j["bodies"][1]["mass [kg]"] = nested;
    const auto e2 = errorsOf(j.dump());
    QCOMPARE(int(e2.size()), 1);
    QVERIFY2(e2[0].message.size() < 80, e2[0].message.c_str());
  }

  // Checks moved from run time to load time, and warnings that do not stop a run.
  void loadTimeGeometryChecks() {
    Project p = readProject(kData + "minimal_valid.json");
    p.p2ps.push_back({7, "strut", 2, 1, 0.3, 0.0, LawRow{1e4, {}}, LawRow{}, {}, {}});  // markers coincide
    auto d = check(p);
    QCOMPARE(int(d.errorCount()), 1);
    QVERIFY(QString::fromStdString(d.items()[0].text()).contains("p2p elements', row id 7 ('strut'), field 'marker_j': as modelled, markers 2 and 1 coincide"));
    p = readProject(kData + "minimal_valid.json");
    p.markers[1].orientation = Vec3(0.0, M_PI / 2, 0.0);  // bushing deflection at the Cardan singularity
    d = check(p);
    QCOMPARE(int(d.errorCount()), 1);
    QVERIFY(QString::fromStdString(d.items()[0].text()).contains("Cardan singularity"));
    QCOMPARE(QString::fromStdString(d.items()[0].where.table), QString("bushings"));
    p = readProject(kData + "minimal_valid.json");
    p.bushings[0].directions = {};
    d = check(p);
    QCOMPARE(int(d.errorCount()), 0);
    QCOMPARE(int(d.warningCount()), 1);
    QVERIFY(QString::fromStdString(d.text(Severity::Warning)).contains("row id 1 ('mount'): warning: no stiffness in any direction"));
    validate(p);  // warnings do not throw

    // A bushing whose markers are apart as modelled, and a force on a fixed body: warnings, each
    // naming row and field, in one pass.
    p = readProject(kData + "minimal_valid.json");
    p.markers[1].position = Vec3(0.0, 0.012, 0.0);  // 12 mm from its partner on the ground
    p.inputs[0].marker = 3;                          // on the ground
    d = check(p);
    QCOMPARE(int(d.errorCount()), 0);
    QCOMPARE(int(d.warningCount()), 2);
    const QString text = QString::fromStdString(d.text(Severity::Warning));
    qInfo("%s", qPrintable(text));
    QVERIFY(text.contains("bushings', row id 1 ('mount'), field 'marker_j': warning: as modelled, markers 2 and 1 are "
                          "12.0 mm apart"));
    QVERIFY(text.contains("inputs', row id 1 ('Fz'), field 'marker': warning: the force acts on marker 3 of fixed body 0 "
                          "('ground'): it moves nothing"));
    p.markers[1].position = Vec3(0.0, 0.0009, 0.0);  // within 1 mm: a modelling tolerance, no warning
    QCOMPARE(int(check(p).warningCount()), 1);
  }

  /// Joint presets: which directions are stiff, from the project's own stiffness scale.
  void jointPresets() {
    Project p = readProject(kData + "minimal_valid.json");
    p.bushings[0].directions[0].stiffness.coefficient = 4e7;  // the stiffest translational direction
    QCOMPARE(stiffJointStiffness(p), 4e7);
    BushingRow b;
    applyJointPreset(b, JointPreset::Revolute, p);
    const double kt = 4e7, kr = 4e7 * 0.05 * 0.05;
    const std::array<double, 6> revolute{kt, kt, kt, 8.0, kr, kr};
    for (int d = 0; d < 6; ++d) {
      QCOMPARE(b.directions[d].stiffness.coefficient, revolute[d]);
      QCOMPARE(b.directions[d].damping.coefficient, revolute[d] * (d < 3 ? 1e-3 : 2e-4));
    }
    applyJointPreset(b, JointPreset::Cylindrical, p);
    QCOMPARE(b.directions[0].stiffness.coefficient, 0.0);  // free along x
    QCOMPARE(b.directions[3].stiffness.coefficient, 8.0);  // and about x
    applyJointPreset(b, JointPreset::Universal, p);
    QCOMPARE(b.directions[3].stiffness.coefficient, kr);  // twist held
    QCOMPARE(b.directions[4].stiffness.coefficient, 8.0);
    applyJointPreset(b, JointPreset::Fixed, p);
    for (int d = 0; d < 6; ++d) QCOMPARE(b.directions[d].stiffness.coefficient, d < 3 ? kt : kr);
    p.bushings.clear();
    QCOMPARE(stiffJointStiffness(p), 1.5e7);  // a ball joint's order when there is nothing to scale from
    for (JointPreset preset : kJointPresets) {
      BushingRow r;
      r.id = 1;
      r.markerI = 2;
      r.markerJ = 1;
      applyJointPreset(r, preset, p);
      p.bushings = {r};
      QCOMPARE(int(check(p).items().size()), 0);  // every preset is a valid bushing without warnings
    }
  }

  void badInput_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("table");
    QTest::addColumn<QString>("row");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("says");
    QTest::newRow("malformed JSON") << "malformed" << "" << "" << "" << "malformed JSON at line 6, column 19";
    QTest::newRow("NaN literal") << "nan_literal" << "" << "" << "" << "malformed JSON at line 20, column 20";
    QTest::newRow("infinite number") << "infinite_value" << "" << "" << "" << "line 61, column 9: number '1e999' is out of range";
    QTest::newRow("duplicate id") << "duplicate_id" << "markers" << "id 2" << "id" << "duplicate id 2";
    QTest::newRow("missing body") << "missing_body" << "markers" << "id 2" << "body" << "body 7 does not exist";
    QTest::newRow("missing marker") << "missing_marker" << "bushings" << "id 1" << "marker_j" << "marker 42 does not exist";
    QTest::newRow("missing curve") << "missing_curve" << "bushings" << "id 1" << "z.stiffness [N/m]" << "curve 9 does not exist";
    QTest::newRow("both markers on one body") << "same_body" << "p2p elements" << "id 1" << "marker_j" << "are on body 0";
    QTest::newRow("non-positive mass") << "nonpositive_mass" << "bodies" << "id 1" << "mass [kg]" << "mass must be positive";
    QTest::newRow("inertia not positive definite") << "inertia_not_pd" << "bodies" << "id 1" << "inertia [kg m^2]" << "not positive definite";
    QTest::newRow("inertia triangle inequality") << "inertia_triangle" << "bodies" << "id 1" << "inertia [kg m^2]" << "triangle inequality";
    QTest::newRow("curve with one point") << "curve_one_point" << "curves" << "id 1" << "points" << "at least 2 points";
    QTest::newRow("curve abscissae not increasing") << "curve_not_increasing" << "curves" << "id 1" << "points" << "increase strictly";
    QTest::newRow("unknown field") << "unknown_field" << "bushings" << "id 1" << "x.stifness [N/m]" << "unknown field";
    QTest::newRow("load case names unknown input") << "unknown_input" << "load cases" << "'push'" << "signals[1].input" << "input 5 does not exist";
  }
  void badInput() {
    QFETCH(QString, file);
    QFETCH(QString, table);
    QFETCH(QString, row);
    QFETCH(QString, field);
    QFETCH(QString, says);
    const std::string path = kData + "bad_input/" + file.toStdString() + ".json";
    try {
      (void)SuspensionModel::build(readProject(path));
      QFAIL("no error");
    } catch (const ModelError& e) {
      const QString msg = QString::fromStdString(e.what());
      qInfo("%s", e.what());
      QCOMPARE(QString::fromStdString(e.where().file), QString::fromStdString(path));
      QCOMPARE(QString::fromStdString(e.where().table), table);
      QCOMPARE(QString::fromStdString(e.where().row), row);
      QCOMPARE(QString::fromStdString(e.where().field), field);
      QVERIFY2(msg.contains(says), qPrintable(msg));
      QVERIFY(msg.startsWith(QString::fromStdString(path)));
    }
  }
  void programmaticNaNIsRejected() {
    Project p = readProject(kData + "minimal_valid.json");
    p.bushings[0].directions[4].damping.coefficient = std::numeric_limits<double>::quiet_NaN();
    try {
      validate(p);
      QFAIL("no error");
    } catch (const ModelError& e) {
      QCOMPARE(QString::fromStdString(e.where().field), QString("ry.damping [N m s/rad]"));
    }
    // A non-finite value does not hide the other errors, and is reported once.
    p.bodies[1].mass = std::numeric_limits<double>::infinity();
    p.bushings[0].markerJ = 42;
    const Diagnostics d = check(p);
    QCOMPARE(int(d.errorCount()), 3);
    const QString all = QString::fromStdString(d.text(Severity::Error));
    QVERIFY2(all.contains("field 'mass [kg]': value is not finite") && all.contains("marker 42 does not exist") &&
                 !all.contains("mass must be positive"),
             qPrintable(all));
  }
  void signalParametersAreValidated() {
    Project p = readProject(kData + "minimal_valid.json");
    p.loadCases[0].drives[0].signal.type = SignalType::Ramp;  // t0 = 0.1, t1 = 0
    try {
      validate(p);
      QFAIL("no error");
    } catch (const ModelError& e) {
      QCOMPARE(QString::fromStdString(e.where().field), QString("signals[0].end [s]"));
    }
    p = readProject(kData + "minimal_valid.json");
    p.loadCases[0].duration = 0.0;
    QVERIFY_THROWS_EXCEPTION(ModelError, validate(p));
  }
};

QTEST_APPLESS_MAIN(TestValidate)
#include "tst_validate.moc"
