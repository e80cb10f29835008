// SPDX-License-Identifier: GPL-3.0-or-later
// The FMU's binary through its C interface, loaded as an importer loads it (dlopen of an unpacked
// FMU made by fmu_export.h): FMI 3 and FMI 2 instances run a load case to the engine's results,
// doStep allocates nothing, communication intervals of 1, 5 and 10 ms give the same results, a
// saved (and serialized) state rolls back exactly, a parameter is tunable at instantiation, and
// every misuse (a step before initialization, a NaN input, a foreign token, an output set, a
// parameter set after initialization, an unknown value reference) is an error status with a
// logged message, never a crash.
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <dlfcn.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <map>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/analysis/simulation.h"
#include "engine/core/text_file.h"
#include "engine/model/project_io.h"
#include "engine/model/table_path.h"
#include "fmu/fmi2_api.h"
#include "fmu/fmi3_api.h"
#include "fmu/fmu_description.h"
#include "fmu/fmu_export.h"
#include "support/count_allocations.h"
#include "support/runs.h"
#include "support/test_models.h"

using namespace ek;

namespace {

const std::string kRoot = ELASTOKIN_SOURCE_DIR;
const std::string kParameter = "bushings/3/y.stiffness [N/m]";
const std::string kHardpoint = "hardpoints/18/z [m]";  // the outer tie-rod joint

std::vector<std::string> gLog;

void log3(fmi3InstanceEnvironment, fmi3Status, fmi3String, fmi3String message) { gLog.push_back(message); }

void log2(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String, fmi2String message, ...) {
  // The FMU passes its text as the argument of "%s".
  va_list args;
  va_start(args, message);
  char buf[2048];
  std::vsnprintf(buf, sizeof buf, message, args);  // the test's own logger, as an importer's
  va_end(args);
  gLog.push_back(buf);
}

bool logged(const std::string& text) {
  for (const auto& l : gLog)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

/// The FMI 3 functions of a loaded binary.
struct Fmi3 {
  void* handle = nullptr;
  decltype(&fmi3InstantiateCoSimulation) instantiate = nullptr;
  decltype(&fmi3FreeInstance) freeInstance = nullptr;
  decltype(&fmi3EnterInitializationMode) enterInit = nullptr;
  decltype(&fmi3ExitInitializationMode) exitInit = nullptr;
  decltype(&fmi3DoStep) doStep = nullptr;
  decltype(&fmi3GetFloat64) getFloat64 = nullptr;
  decltype(&fmi3SetFloat64) setFloat64 = nullptr;
  decltype(&fmi3GetFMUState) getState = nullptr;
  decltype(&fmi3SetFMUState) setState = nullptr;
  decltype(&fmi3FreeFMUState) freeState = nullptr;
  decltype(&fmi3SerializedFMUStateSize) stateSize = nullptr;
  decltype(&fmi3SerializeFMUState) serialize = nullptr;
  decltype(&fmi3DeserializeFMUState) deserialize = nullptr;
  decltype(&fmi3Terminate) terminate = nullptr;
};

}  // namespace

class TestFmu : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string folder3_, folder2_, token3_, token2_;
  fmu::FmuExport fmu3_;
  Fmi3 f_;

  fmi3Instance instance(const std::string& token = {}) {
    return f_.instantiate("test", (token.empty() ? token3_ : token).c_str(), (folder3_ + "/resources/").c_str(), false, true,
                          false, false, nullptr, 0, nullptr, log3, nullptr);
  }
  /// The value reference of a variable by name.
  fmi3ValueReference vr(const std::string& name) const {
    for (const auto& v : fmu3_.variables.all)
      if (v.name == name) return v.valueReference;
    throw std::runtime_error("no variable " + name);
  }
  std::vector<double> outputs(fmi3Instance in) {
    std::vector<fmi3ValueReference> refs;
    for (int k = 0; k < fmu3_.variables.nOutputs; ++k) refs.push_back(static_cast<fmi3ValueReference>(fmu3_.variables.firstOutput + k));
    std::vector<double> v(refs.size());
    if (f_.getFloat64(in, refs.data(), refs.size(), v.data(), v.size()) != fmi3OK) return {};
    return v;
  }

 private slots:
  void initTestCase() {
    const Project p = readProject(kRoot + "/projects/quarter_double_wishbone.json");
    fmu::FmuExportOptions o;
    o.loadCase = "LC1";
    o.parameters = {kParameter, kHardpoint};
    fmu3_ = fmu::makeFmu(p, o, fmu::fmuBinaries());
    token3_ = fmu3_.config.token;
    folder3_ = dir_.filePath("fmi3").toStdString();
    fmu::writeFmuFolder(fmu3_, folder3_);
    o.fmiVersion = 2;
    const fmu::FmuExport fmu2 = fmu::makeFmu(p, o, fmu::fmuBinaries());
    token2_ = fmu2.config.token;
    folder2_ = dir_.filePath("fmi2").toStdString();
    fmu::writeFmuFolder(fmu2, folder2_);
    f_.handle = dlopen((folder3_ + "/binaries/x86_64-linux/elastokin.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(f_.handle, dlerror());
    f_.instantiate = reinterpret_cast<decltype(f_.instantiate)>(dlsym(f_.handle, "fmi3InstantiateCoSimulation"));
    f_.freeInstance = reinterpret_cast<decltype(f_.freeInstance)>(dlsym(f_.handle, "fmi3FreeInstance"));
    f_.enterInit = reinterpret_cast<decltype(f_.enterInit)>(dlsym(f_.handle, "fmi3EnterInitializationMode"));
    f_.exitInit = reinterpret_cast<decltype(f_.exitInit)>(dlsym(f_.handle, "fmi3ExitInitializationMode"));
    f_.doStep = reinterpret_cast<decltype(f_.doStep)>(dlsym(f_.handle, "fmi3DoStep"));
    f_.getFloat64 = reinterpret_cast<decltype(f_.getFloat64)>(dlsym(f_.handle, "fmi3GetFloat64"));
    f_.setFloat64 = reinterpret_cast<decltype(f_.setFloat64)>(dlsym(f_.handle, "fmi3SetFloat64"));
    f_.getState = reinterpret_cast<decltype(f_.getState)>(dlsym(f_.handle, "fmi3GetFMUState"));
    f_.setState = reinterpret_cast<decltype(f_.setState)>(dlsym(f_.handle, "fmi3SetFMUState"));
    f_.freeState = reinterpret_cast<decltype(f_.freeState)>(dlsym(f_.handle, "fmi3FreeFMUState"));
    f_.stateSize = reinterpret_cast<decltype(f_.stateSize)>(dlsym(f_.handle, "fmi3SerializedFMUStateSize"));
    f_.serialize = reinterpret_cast<decltype(f_.serialize)>(dlsym(f_.handle, "fmi3SerializeFMUState"));
    f_.deserialize = reinterpret_cast<decltype(f_.deserialize)>(dlsym(f_.handle, "fmi3DeserializeFMUState"));
    f_.terminate = reinterpret_cast<decltype(f_.terminate)>(dlsym(f_.handle, "fmi3Terminate"));
    QVERIFY(f_.instantiate && f_.doStep && f_.getFloat64 && f_.setFloat64 && f_.deserialize && f_.terminate);
  }

  void runsTheLoadCaseWithoutAllocating() {
    fmi3Instance in = instance();
    QVERIFY(in);
    QCOMPARE(f_.enterInit(in, false, 0.0, 4.9, true, 5.2), fmi3OK);
    QCOMPARE(f_.exitInit(in), fmi3OK);
    bool event = false, terminate = false, early = false;
    double last = 0.0;
    (void)outputs(in);  // the first evaluation sets its buffers up
    gAllocations = 0;
    gCounting = true;
    for (int k = 0; k < 300; ++k) {
      f_.doStep(in, 4.9 + k * 1e-3, 1e-3, true, &event, &terminate, &early, &last);
      double v = 0.0;
      const fmi3ValueReference r = static_cast<fmi3ValueReference>(fmu3_.variables.firstOutput);
      f_.getFloat64(in, &r, 1, &v, 1);
    }
    gCounting = false;
    QCOMPARE(gAllocations.load(), 0LL);
    // The counter sees allocations inside the FMU's binary (an error message is a new string).
    gCounting = true;
    const fmi3ValueReference input = static_cast<fmi3ValueReference>(fmu3_.variables.firstInput);
    const double nan = std::nan("");
    QCOMPARE(f_.setFloat64(in, &input, 1, &nan, 1), fmi3Error);
    gCounting = false;
    QVERIFY(gAllocations.load() > 0);
    QVERIFY(std::abs(last - 5.2) < 1e-12);
    // The engine's own run of the same load case, from its start at 4.9 s.
    RunOptions o;
    o.start = 4.9;
    o.duration = 0.3;
    Simulation sim(SuspensionModel::build(readProject(kRoot + "/projects/quarter_double_wishbone.json")), "LC1", o);
    sim.run();
    const std::vector<double> fmuOut = outputs(in);
    for (std::size_t c = 0; c < sim.results().channels().size(); ++c) {
      const double engine = sim.results().value(sim.results().size() - 1, c);
      QVERIFY2(std::abs(fmuOut[c] - engine) <= 1e-9 * std::max(1.0, std::abs(engine)),
               qPrintable(QString::fromStdString(sim.results().channels()[c].name)));
    }
    f_.freeInstance(in);
  }

  // A wheel's tyre property file travels inside the FMU (resources/tyres/, the project inside
  // refers to it there), and the FMU rolls the driven carriage as the runner does.
  void tyreFilesTravelInTheFmu() {
    Project p = test::tyreCarriage(0.03);
    p.inputs = {InputRow{1, "drive torque", 3, InputKind::Torque}};
    p.wheels[0].driveInput = 1;
    SignalRow drive;
    drive.value = 150.0;
    p.loadCases[0].drives = {{1, drive}};
    p.loadCases[0].duration = 0.2;
    p.outputs = {{"carriage speed", OutputQuantity::MarkerVelocity, 2, "x"}, {"fx", OutputQuantity::Tyre, 1, "fx"},
                 {"fy", OutputQuantity::Tyre, 1, "fy"}, {"spin", OutputQuantity::Tyre, 1, "spin rate"}};
    fmu::FmuExportOptions o;
    o.loadCase = "free";
    const fmu::FmuExport e = fmu::makeFmu(p, o, fmu::fmuBinaries());
    const std::string inside = "tyres/1-car_205_60R15_mf61_si.tir";
    QVERIFY(e.files.count("resources/" + inside));
    QCOMPARE(e.files.at("resources/" + inside), readTextFile(p.wheels[0].tyre, 1u << 20));
    QCOMPARE(parseProject(e.files.at("resources/project.json"), "project.json").wheels[0].tyre, inside);
    const std::string folder = dir_.filePath("tyres").toStdString();
    fmu::writeFmuFolder(e, folder);
    fmi3Instance in = f_.instantiate("tyres", e.config.token.c_str(), (folder + "/resources/").c_str(), false, true, false,
                                     false, nullptr, 0, nullptr, log3, nullptr);
    QVERIFY(in);
    QCOMPARE(f_.enterInit(in, false, 0.0, 0.0, true, 0.2), fmi3OK);
    QCOMPARE(f_.exitInit(in), fmi3OK);
    bool event = false, terminate = false, early = false;
    double last = 0.0;
    for (int k = 0; k < 200; ++k) QCOMPARE(f_.doStep(in, k * 1e-3, 1e-3, true, &event, &terminate, &early, &last), fmi3OK);
    std::vector<fmi3ValueReference> refs;
    for (int k = 0; k < e.variables.nOutputs; ++k) refs.push_back(static_cast<fmi3ValueReference>(e.variables.firstOutput + k));
    std::vector<double> got(refs.size());
    QCOMPARE(f_.getFloat64(in, refs.data(), refs.size(), got.data(), got.size()), fmi3OK);
    f_.freeInstance(in);
    const auto sim = test::runProject(p, "free", 1e-3);
    const Recorder& r = sim->results();
    // The project's channels among the FMU's outputs, by name.
    int compared = 0;
    for (std::size_t c = 0; c < r.channels().size(); ++c)
      for (std::size_t k = 0; k < e.variables.channels.size(); ++k)
        if (e.variables.channels[k].name == r.channels()[c].name) {
          const double engine = r.value(r.size() - 1, c);
          qInfo("%s: FMU %.12g, runner %.12g", r.channels()[c].name.c_str(), got[k], engine);
          QVERIFY2(std::abs(got[k] - engine) <= 1e-11 * std::max(1.0, std::abs(engine)), r.channels()[c].name.c_str());
          if (r.channels()[c].name == "fx") QVERIFY(engine > 100.0);  // the drive torque pushes
          ++compared;
        }
    QCOMPARE(compared, 4);
  }

  void communicationIntervalsGiveTheSameResults() {
    std::vector<std::vector<double>> at50ms;
    for (double h : {1e-3, 5e-3, 10e-3}) {
      fmi3Instance in = instance();
      f_.enterInit(in, false, 0.0, 4.95, false, 0.0);
      f_.exitInit(in);
      bool e = false, t = false, r = false;
      double last = 0.0, time = 4.95;
      const int n = static_cast<int>(std::lround(0.1 / h));
      for (int k = 0; k < n; ++k, time = 4.95 + k * h) QCOMPARE(f_.doStep(in, time, h, true, &e, &t, &r, &last), fmi3OK);
      at50ms.push_back(outputs(in));
      f_.freeInstance(in);
    }
    QCOMPARE(at50ms[1], at50ms[0]);  // bit for bit: the same internal steps with the same inputs
    QCOMPARE(at50ms[2], at50ms[0]);
  }

  // Communication points between the internal steps (0.3 ms apart; FMI 2 in fmi2InstanceRuns): shorter
  // steps of the same method, no allocation; at 5.04 s, on the grid again, within 2 % of the 1 ms
  // run (5.5e-3 here: the 1 ms steps' own error across the step in Fx at 5 s, which the shorter
  // steps make smaller, tst_simulation advanceToTimesBetweenSteps); the stop time 5.0405 s reached.
  void communicationPointsBetweenInternalSteps() {
    std::vector<double> grid;
    {
      fmi3Instance in = instance();
      f_.enterInit(in, false, 0.0, 4.98, false, 0.0);
      f_.exitInit(in);
      bool e = false, t = false, r = false;
      double last = 0.0;
      for (int k = 0; k < 60; ++k) QCOMPARE(f_.doStep(in, 4.98 + k * 1e-3, 1e-3, true, &e, &t, &r, &last), fmi3OK);
      grid = outputs(in);
      f_.freeInstance(in);
    }
    fmi3Instance in = instance();
    f_.enterInit(in, false, 0.0, 4.98, true, 5.0405);
    f_.exitInit(in);
    (void)outputs(in);
    bool e = false, t = false, r = false;
    double last = 0.0, time = 4.98;
    gAllocations = 0;
    gCounting = true;
    for (int k = 0; k < 200; ++k, time += 3e-4) QCOMPARE(f_.doStep(in, time, 3e-4, true, &e, &t, &r, &last), fmi3OK);
    gCounting = false;
    QCOMPARE(gAllocations.load(), 0LL);
    QVERIFY(std::abs(last - 5.04) < 1e-12);
    const std::vector<double> between = outputs(in);
    double worst = 0.0;
    for (std::size_t c = 0; c < grid.size(); ++c) worst = std::max(worst, std::abs(between[c] - grid[c]) / std::max(1.0, std::abs(grid[c])));
    qInfo("0.3 ms communication points against 1 ms at 5.04 s: largest relative difference %.3e", worst);
    QVERIFY(worst > 0.0 && worst < 2e-2);
    QCOMPARE(f_.doStep(in, time, 5e-4, true, &e, &t, &r, &last), fmi3OK);  // to the stop time, off the grid
    gLog.clear();
    QCOMPARE(f_.doStep(in, time + 5e-4, 5e-4, true, &e, &t, &r, &last), fmi3Error);
    QVERIFY(logged("passes the stop time 5.0405 s"));
    f_.freeInstance(in);
  }

  void savedStateRollsBackExactly() {
    fmi3Instance in = instance();
    f_.enterInit(in, false, 0.0, 4.98, false, 0.0);
    f_.exitInit(in);
    bool e = false, t = false, r = false;
    double last = 0.0;
    auto run = [&](double from, int steps) {
      for (int k = 0; k < steps; ++k) f_.doStep(in, from + k * 1e-3, 1e-3, true, &e, &t, &r, &last);
      return outputs(in);
    };
    run(4.98, 10);
    fmi3FMUState s = nullptr;
    QCOMPARE(f_.getState(in, &s), fmi3OK);
    const std::vector<double> a = run(4.99, 30);  // across the step in Fx at 5 s
    QCOMPARE(f_.setState(in, s), fmi3OK);
    QCOMPARE(run(4.99, 30), a);
    // Serialized and read back.
    size_t size = 0;
    QCOMPARE(f_.stateSize(in, s, &size), fmi3OK);
    std::vector<fmi3Byte> bytes(size);
    QCOMPARE(f_.serialize(in, s, bytes.data(), size), fmi3OK);
    fmi3FMUState back = nullptr;
    QCOMPARE(f_.deserialize(in, bytes.data(), size, &back), fmi3OK);
    QCOMPARE(f_.setState(in, back), fmi3OK);
    QCOMPARE(run(4.99, 30), a);
    gLog.clear();
    QCOMPARE(f_.deserialize(in, bytes.data(), size / 2, &back), fmi3Error);  // cut off
    QVERIFY(logged("of another model or cut off") || logged("too short"));
    f_.freeState(in, &s);
    f_.freeState(in, &back);
    f_.freeInstance(in);
  }

  // Parameters set at instantiation give what the engine gives with the project edited the same
  // way (withTableValues, as a study or the Python module edits it), bit for bit, at the
  // equilibrium and after 30 steps; set to their own values they change nothing at all (a
  // hardpoint set to where it is moved its markers by round-off, and the equilibrium by its
  // tolerance: 6e-7 of a toe angle's range). After initialization a parameter is fixed.
  void parameterTunableAtInstantiation() {
    const Project project = readProject(kRoot + "/projects/quarter_double_wishbone.json");
    const fmi3ValueReference refs[2] = {vr(kParameter), vr(kHardpoint)};
    double starts[2] = {0.0, 0.0};
    {
      fmi3Instance in = instance();
      QCOMPARE(f_.getFloat64(in, refs, 2, starts, 2), fmi3OK);
      f_.freeInstance(in);
    }
    QCOMPARE(starts[0], 2.5e6);
    const std::vector<std::vector<double>> values = {{}, {starts[0], starts[1]}, {1.0e5, starts[1] + 0.004}};
    std::vector<double> runs[3];
    for (std::size_t k = 0; k < values.size(); ++k) {
      fmi3Instance in = instance();
      if (!values[k].empty()) QCOMPARE(f_.setFloat64(in, refs, 2, values[k].data(), 2), fmi3OK);
      f_.enterInit(in, false, 0.0, 4.98, false, 0.0);
      f_.exitInit(in);
      const std::vector<double> atStart = outputs(in);
      bool e = false, t = false, r = false;
      double last = 0.0;
      for (int s = 0; s < 30; ++s) QCOMPARE(f_.doStep(in, 4.98 + s * 1e-3, 1e-3, true, &e, &t, &r, &last), fmi3OK);
      runs[k] = outputs(in);
      // The engine on the edited project.
      const Project edited = values[k].empty() ? project
                                                : withTableValues(project, {{kParameter, values[k][0]}, {kHardpoint, values[k][1]}});
      RunOptions o;
      o.start = 4.98;
      o.duration = 0.03;
      o.record = false;
      const auto model = SuspensionModel::build(edited);
      Simulation sim(model, "LC1", o);
      sim.initialize();
      // The FMU's channels, resolved on this model (a wheel channel points into its model).
      const std::vector<Channel> channels = fmu::describeVariables(edited, *model, fmu3_.config).channels;
      std::vector<double> engine(channels.size());
      sim.outputValues(channels, engine.data());
      QVERIFY2(engine == atStart, qPrintable(QString("values %1").arg(k)));
      while (sim.step()) {
      }
      sim.outputValues(channels, engine.data());
      QVERIFY2(engine == runs[k], qPrintable(QString("values %1").arg(k)));
      // After initialization the parameter is fixed.
      gLog.clear();
      const double again = 3e6;
      QCOMPARE(f_.setFloat64(in, refs, 1, &again, 1), fmi3Error);
      QVERIFY(logged("cannot be set after initialization"));
      f_.freeInstance(in);
    }
    QVERIFY(runs[1] == runs[0]);  // its own values: nothing changes
    QVERIFY(runs[2] != runs[0]);
  }

  // The variables say what they are: each output's description names its quantity, point and
  // axis (a displacement and a position of the same wheel centre read differently), and the
  // units carry the display units an engineer reads (mm, deg, kN), each variable its own.
  void variablesExplainThemselves() {
    QFile file(QString::fromStdString(folder3_ + "/modelDescription.xml"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    std::map<std::string, std::string> description, displayUnit, unitDisplay;
    std::string unit;
    while (!xml.atEnd()) {
      if (xml.readNext() != QXmlStreamReader::StartElement) continue;
      const auto a = xml.attributes();
      if (xml.name() == QLatin1String("Unit")) unit = a.value("name").toString().toStdString();
      if (xml.name() == QLatin1String("DisplayUnit"))
        unitDisplay[unit] = a.value("name").toString().toStdString() + " x" + a.value("factor").toString().toStdString();
      if (xml.name() == QLatin1String("Float64") && a.value("causality") == QLatin1String("output")) {
        const std::string name = a.value("name").toString().toStdString();
        description[name] = a.value("description").toString().toStdString();
        displayUnit[name] = a.value("displayUnit").toString().toStdString();
      }
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(unitDisplay["m"], std::string("mm x1000"));
    QCOMPARE(unitDisplay["N"], std::string("kN x0.001"));
    QCOMPARE(unitDisplay["rad"], std::string("deg x57.29577951308232"));
    QVERIFY(description.size() == static_cast<std::size_t>(fmu3_.variables.nOutputs));
    std::set<std::string> distinct;
    for (const auto& [name, text] : description) {
      QVERIFY2(text.find("output channel") == std::string::npos && text.size() > name.size() + 20, name.c_str());
      distinct.insert(text);
    }
    QCOMPARE(distinct.size(), description.size());
    const std::string& displacement = description["wheel centre z left"];
    QVERIFY2(displacement.find("displacement of marker") == 0 && displacement.find("along global z") != std::string::npos,
             displacement.c_str());
    const std::string& position = description["wheel left centre z"];
    QVERIFY2(position.find("z of the wheel centre, global") != std::string::npos, position.c_str());
    QVERIFY2(description["wheel left toe"].find("positive toe-in") != std::string::npos, description["wheel left toe"].c_str());
    QVERIFY2(description["lower rear bushing fx left"].find("on marker I of bushing") != std::string::npos,
             description["lower rear bushing fx left"].c_str());
    QCOMPARE(displayUnit["wheel left toe"], std::string("deg"));
    QCOMPARE(displayUnit["wheel centre z left"], std::string("mm"));
    QCOMPARE(displayUnit["spring force left"], std::string("kN"));
  }

  // modelDescription.xml always reads back: a name with a line feed, U+FFFF, a control
  // character and markup characters gives well-formed XML whose model name is
  // the name with only what XML 1.0 cannot hold replaced by U+FFFD (FMI 3 and 2).
  void descriptionAlwaysReadsBack() {
    Project p = readProject(kRoot + "/projects/quarter_double_wishbone.json");
    p.name = "axle <a&b> \"q\"\nsecond line\t\xEF\xBF\xBF\x01 end \xC3\xA4";
    p.description = "rig \xEF\xBF\xBE test";
    for (int version : {3, 2}) {
      fmu::FmuExportOptions o;
      o.fmiVersion = version;
      const fmu::FmuExport e = fmu::makeFmu(p, o, fmu::fmuBinaries());
      const QByteArray text = QByteArray::fromStdString(e.files.at("modelDescription.xml"));
      QXmlStreamReader xml(text);
      QString modelName;
      while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("fmiModelDescription"))
          modelName = xml.attributes().value("modelName").toString();
      }
      QVERIFY2(!xml.hasError(), qPrintable(QString("FMI %1: %2 at line %3").arg(version).arg(xml.errorString()).arg(xml.lineNumber())));
      const QString replacement(QChar(0xFFFD));
      QCOMPARE(modelName, QString::fromUtf8("axle <a&b> \"q\"\nsecond line\t") + replacement + replacement +
                              QString::fromUtf8(" end \xC3\xA4"));
    }
  }

  void badUseIsAnErrorWithAMessage() {
    gLog.clear();
    QVERIFY(!instance("{not-this-fmu}"));
    QVERIFY(logged("is not this FMU's"));
    gLog.clear();
    QVERIFY(!f_.instantiate("test", token3_.c_str(), (dir_.path().toStdString() + "/nowhere/").c_str(), false, true, false,
                            false, nullptr, 0, nullptr, log3, nullptr));
    QVERIFY(logged("instantiation failed"));
    fmi3Instance in = instance();
    bool e = false, t = false, r = false;
    double last = 0.0;
    gLog.clear();
    QCOMPARE(f_.doStep(in, 0.0, 1e-3, true, &e, &t, &r, &last), fmi3Error);
    QVERIFY(logged("DoStep needs an initialized FMU"));
    f_.enterInit(in, false, 0.0, 0.0, false, 0.0);
    f_.exitInit(in);
    const fmi3ValueReference input = static_cast<fmi3ValueReference>(fmu3_.variables.firstInput);
    const double nan = std::nan("");
    gLog.clear();
    QCOMPARE(f_.setFloat64(in, &input, 1, &nan, 1), fmi3Error);
    QVERIFY(logged("values must be finite numbers"));
    gLog.clear();
    QCOMPARE(f_.doStep(in, 0.5, 1e-3, true, &e, &t, &r, &last), fmi3Error);
    QVERIFY(logged("the communication points must follow each other"));
    // Steps it cannot take: non-finite, absurd (1e300 and 9.3e15 s were an out-of-range cast
    // that returned OK without a step), past the longest run.
    for (double h : {std::numeric_limits<double>::infinity(), -1e-3, std::nan(""), 1e300, 9.3e15}) {
      gLog.clear();
      QCOMPARE(f_.doStep(in, 0.0, h, true, &e, &t, &r, &last), fmi3Error);
      QVERIFY2(logged("must be a positive finite number") || logged("passes the longest run the FMU takes"),
               qPrintable(QString::number(h)));
    }
    QCOMPARE(f_.doStep(in, 0.0, 2e-3, true, &e, &t, &r, &last), fmi3OK);  // still usable
    // A state whose header or values are damaged is refused, not restored.
    fmi3FMUState saved = nullptr;
    QCOMPARE(f_.getState(in, &saved), fmi3OK);
    size_t size = 0;
    QCOMPARE(f_.stateSize(in, saved, &size), fmi3OK);
    std::vector<fmi3Byte> bytes(size);
    QCOMPARE(f_.serialize(in, saved, bytes.data(), size), fmi3OK);
    auto damaged = [&](std::size_t index, double value) {
      std::vector<fmi3Byte> copy = bytes;
      std::memcpy(copy.data() + sizeof(std::uint64_t) + index * sizeof(double), &value, sizeof value);
      fmi3FMUState back = nullptr;
      gLog.clear();
      fmi3Status st = f_.deserialize(in, copy.data(), size, &back);
      if (st == fmi3OK) st = f_.setState(in, back);
      f_.freeState(in, &back);
      return st;
    };
    QCOMPARE(damaged(0, std::nan("")), fmi3Error);  // the count of positions
    QVERIFY(logged("where a count belongs"));
    QCOMPARE(damaged(4, -5.0), fmi3Error);  // the step count
    QVERIFY(logged("where a count belongs"));
    QCOMPARE(damaged(3, std::nan("")), fmi3Error);  // the time
    QVERIFY(logged("its time is nan"));
    QCOMPARE(damaged(5, std::numeric_limits<double>::infinity()), fmi3Error);  // a position
    QVERIFY(logged("not finite"));
    f_.freeState(in, &saved);
    QCOMPARE(f_.doStep(in, 2e-3, 1e-3, true, &e, &t, &r, &last), fmi3OK);  // still where it was
    const fmi3ValueReference output = static_cast<fmi3ValueReference>(fmu3_.variables.firstOutput);
    const double one = 1.0;
    gLog.clear();
    QCOMPARE(f_.setFloat64(in, &output, 1, &one, 1), fmi3Error);
    QVERIFY(logged("cannot be set (it is an output)"));
    const fmi3ValueReference nowhere = 99999;
    double v = 0.0;
    gLog.clear();
    QCOMPARE(f_.getFloat64(in, &nowhere, 1, &v, 1), fmi3Error);
    QVERIFY(logged("no variable with value reference 99999"));
    // Each refusal names its real cause: time is the independent variable; an input of a
    // terminated FMU is refused because it is terminated (it was blamed on "independent variable").
    const fmi3ValueReference time = 0;
    gLog.clear();
    QCOMPARE(f_.setFloat64(in, &time, 1, &one, 1), fmi3Error);
    QVERIFY(logged("cannot be set (it is the independent variable, time"));
    QCOMPARE(f_.terminate(in), fmi3OK);
    gLog.clear();
    QCOMPARE(f_.setFloat64(in, &input, 1, &one, 1), fmi3Error);
    QVERIFY(logged("cannot be set now: the FMU is terminated"));
    QVERIFY(!logged("independent"));
    f_.freeInstance(in);
  }

  void fmi2InstanceRuns() {
    void* h = dlopen((folder2_ + "/binaries/linux64/elastokin.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(h, dlerror());
    auto instantiate = reinterpret_cast<decltype(&fmi2Instantiate)>(dlsym(h, "fmi2Instantiate"));
    auto setup = reinterpret_cast<decltype(&fmi2SetupExperiment)>(dlsym(h, "fmi2SetupExperiment"));
    auto enter = reinterpret_cast<decltype(&fmi2EnterInitializationMode)>(dlsym(h, "fmi2EnterInitializationMode"));
    auto exit = reinterpret_cast<decltype(&fmi2ExitInitializationMode)>(dlsym(h, "fmi2ExitInitializationMode"));
    auto doStep = reinterpret_cast<decltype(&fmi2DoStep)>(dlsym(h, "fmi2DoStep"));
    auto getReal = reinterpret_cast<decltype(&fmi2GetReal)>(dlsym(h, "fmi2GetReal"));
    auto freeInstance = reinterpret_cast<decltype(&fmi2FreeInstance)>(dlsym(h, "fmi2FreeInstance"));
    const fmi2CallbackFunctions callbacks{log2, nullptr, nullptr, nullptr, nullptr};
    const std::string uri = "file://" + folder2_ + "/resources";
    gLog.clear();
    QVERIFY(!instantiate("test", fmi2ModelExchange, token2_.c_str(), uri.c_str(), &callbacks, fmi2False, fmi2True));
    QVERIFY(logged("model exchange is not supported"));
    fmi2Component c = instantiate("test", fmi2CoSimulation, token2_.c_str(), uri.c_str(), &callbacks, fmi2False, fmi2True);
    QVERIFY(c);
    gLog.clear();
    QCOMPARE(doStep(c, 0.0, 1e-3, fmi2True), fmi2Error);
    QVERIFY(logged("DoStep needs an initialized FMU"));
    QCOMPARE(setup(c, fmi2False, 0.0, 4.99, fmi2False, 0.0), fmi2OK);
    QCOMPARE(enter(c), fmi2OK);
    QCOMPARE(exit(c), fmi2OK);
    for (int k = 0; k < 20; ++k) QCOMPARE(doStep(c, 4.99 + k * 1e-3, 1e-3, fmi2True), fmi2OK);
    QCOMPARE(doStep(c, 5.01, 2.5e-3, fmi2True), fmi2OK);  // to a time between two internal steps
    QCOMPARE(doStep(c, 5.0125, 2.5e-3, fmi2True), fmi2OK);
    const fmi2ValueReference r = static_cast<fmi2ValueReference>(fmu3_.variables.firstOutput);
    double x = 0.0;
    QCOMPARE(getReal(c, &r, 1, &x), fmi2OK);
    QVERIFY(std::isfinite(x));
    freeInstance(c);
    dlclose(h);
  }

  // The binary the importer loads picks the engine built for the widest instruction set this CPU
  // runs (or the one ELASTOKIN_FMU_ISA names) and says so in the log.
  void loadsTheWidestBuildThisCpuRuns() {
    __builtin_cpu_init();
    const char* forced = std::getenv("ELASTOKIN_FMU_ISA");
    const std::string expected =
        forced && *forced ? forced : (__builtin_cpu_supports("x86-64-v4") ? "x86-64-v4" : "x86-64-v3");
    gLog.clear();
    fmi3Instance in = instance();
    QVERIFY(in);
    QVERIFY2(logged("engine built for " + expected), gLog.empty() ? "no log" : gLog.front().c_str());
    f_.freeInstance(in);
  }

  // Without a build it can run (none beside it, or ELASTOKIN_FMU_ISA naming one the CPU lacks) the
  // loader still loads, answers the version, refuses every instance with the reason and answers
  // every other call with an error status.
  void withoutAUsableBuildEveryCallIsAnError() {
    struct Case {
      std::string name, env, message;
    };
    const std::vector<Case> cases{{"nobuilds", "", "or they are missing from"},
                                  {"badisa", "x86-64-v9", "ELASTOKIN_FMU_ISA=x86-64-v9: not an instruction set this CPU runs"}};
    const char* before = std::getenv("ELASTOKIN_FMU_ISA");
    const std::string saved = before ? before : "";
    for (const Case& c : cases) {
      const std::string folder = dir_.filePath(QString::fromStdString(c.name)).toStdString();
      std::filesystem::copy(folder3_, folder, std::filesystem::copy_options::recursive);
      if (c.env.empty())
        for (const auto& e : std::filesystem::directory_iterator(folder + "/binaries/x86_64-linux"))
          if (e.path().filename().string().rfind("elastokin-", 0) == 0) std::filesystem::remove(e.path());
      if (c.env.empty()) unsetenv("ELASTOKIN_FMU_ISA");
      else setenv("ELASTOKIN_FMU_ISA", c.env.c_str(), 1);
      void* h = dlopen((folder + "/binaries/x86_64-linux/elastokin.so").c_str(), RTLD_NOW | RTLD_LOCAL);
      if (saved.empty()) unsetenv("ELASTOKIN_FMU_ISA");
      else setenv("ELASTOKIN_FMU_ISA", saved.c_str(), 1);
      QVERIFY2(h, dlerror());
      auto version = reinterpret_cast<decltype(&fmi3GetVersion)>(dlsym(h, "fmi3GetVersion"));
      auto instantiate = reinterpret_cast<decltype(&fmi3InstantiateCoSimulation)>(dlsym(h, "fmi3InstantiateCoSimulation"));
      auto doStep = reinterpret_cast<decltype(&fmi3DoStep)>(dlsym(h, "fmi3DoStep"));
      auto instantiate2 = reinterpret_cast<decltype(&fmi2Instantiate)>(dlsym(h, "fmi2Instantiate"));
      auto version2 = reinterpret_cast<decltype(&fmi2GetVersion)>(dlsym(h, "fmi2GetVersion"));
      QVERIFY(version && instantiate && doStep && instantiate2 && version2);
      QCOMPARE(std::string(version()), std::string("3.0"));
      QCOMPARE(std::string(version2()), std::string("2.0"));
      gLog.clear();
      QVERIFY(!instantiate("test", token3_.c_str(), (folder + "/resources/").c_str(), false, true, false, false, nullptr, 0,
                           nullptr, log3, nullptr));
      QVERIFY2(logged(c.message), gLog.empty() ? "no log" : gLog.front().c_str());
      bool event = false, terminate = false, early = false;
      double last = 0.0;
      QCOMPARE(doStep(nullptr, 0.0, 1e-3, true, &event, &terminate, &early, &last), fmi3Error);
      const fmi2CallbackFunctions callbacks{log2, nullptr, nullptr, nullptr, nullptr};
      gLog.clear();
      QVERIFY(!instantiate2("test", fmi2CoSimulation, token3_.c_str(), ("file://" + folder + "/resources").c_str(), &callbacks,
                            fmi2False, fmi2True));
      QVERIFY(logged(c.message));
      dlclose(h);
    }
  }
};

QTEST_GUILESS_MAIN(TestFmu)
#include "tst_fmu.moc"
