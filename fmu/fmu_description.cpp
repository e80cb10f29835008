// SPDX-License-Identifier: GPL-3.0-or-later
#include "fmu/fmu_description.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/model/signal.h"
#include "engine/model/table_path.h"

namespace ek::fmu {

namespace {

using Json = nlohmann::ordered_json;

std::string describeInput(const SuspensionModel& model, int k) {
  const ModelInput& in = model.inputs[k];
  const ModelMarker& m = model.markers[in.marker.value];
  return std::string(inputKindName(in.kind)) + " at marker " + std::to_string(m.id) + " ('" + m.name + "') of body '" +
         model.bodies[m.body.value].name + "', project input " + std::to_string(in.id);
}

/// The unit of a cell path: the text in brackets of its last field ("x.stiffness [N/m]" -> "N/m").
std::string unitOfPath(const std::string& path) {
  const auto a = path.rfind('['), b = path.rfind(']');
  if (a == std::string::npos || b == std::string::npos || b < a) return "";
  const std::string u = path.substr(a + 1, b - a - 1);
  for (char c : u)
    if (std::isdigit(static_cast<unsigned char>(c)) && u.find_first_not_of("0123456789") == std::string::npos) return "";
  return u;
}

}  // namespace

std::string writeConfig(const FmuConfig& c) {
  Json j;
  j["format"] = "elastokin-fmu";
  j["version"] = 1;
  j["fmi version"] = c.fmiVersion;
  j["instantiation token"] = c.token;
  j["model name"] = c.modelName;
  j["project"] = kProjectFile;
  if (!c.loadCase.empty()) j["load case"] = c.loadCase;
  j["integrator"] = c.integrator;
  j["step [s]"] = c.step;
  j["linearize every"] = c.linearizeEvery;
  j["parameters"] = c.parameters;
  j["start time [s]"] = c.startTime;
  j["stop time [s]"] = c.stopTime;
  return j.dump(2) + "\n";
}

FmuConfig readConfig(const std::string& text, const std::string& path) {
  FmuConfig c;
  try {
    const Json j = Json::parse(text);
    if (j.value("format", "") != "elastokin-fmu") throw ModelError({path, "", "", "format"}, "not an Elastokin FMU configuration");
    c.fmiVersion = j.at("fmi version").get<int>();
    c.token = j.at("instantiation token").get<std::string>();
    c.modelName = j.value("model name", "");
    c.loadCase = j.value("load case", "");
    c.integrator = j.value("integrator", "lsrt2");
    c.step = j.at("step [s]").get<double>();
    c.linearizeEvery = j.value("linearize every", 1);
    c.parameters = j.value("parameters", std::vector<std::string>{});
    c.startTime = j.value("start time [s]", 0.0);
    c.stopTime = j.value("stop time [s]", -1.0);
  } catch (const Json::exception& e) {
    throw ModelError({path}, std::string("the FMU's configuration cannot be read: ") + e.what());
  }
  if (c.fmiVersion != 2 && c.fmiVersion != 3) throw ModelError({path, "", "", "fmi version"}, "must be 2 or 3");
  if (c.integrator != "lsrt2" && c.integrator != "ros34pw2")
    throw ModelError({path, "", "", "integrator"}, "must be lsrt2 or ros34pw2");
  if (!(c.step > 0.0) || !std::isfinite(c.step)) throw ModelError({path, "", "", "step [s]"}, "must be a positive number");
  if (c.linearizeEvery < 1) throw ModelError({path, "", "", "linearize every"}, "must be at least 1");
  return c;
}

FmuVariables describeVariables(const Project& project, const SuspensionModel& model, const FmuConfig& config) {
  FmuVariables v;
  v.all.push_back({0, "time", "s", "simulated time", Causality::Independent, config.startTime, -1});
  std::set<std::string> names{"time"};
  // Inputs: their values at the start of the configured load case, else 0.
  VecX u0 = VecX::Zero(model.nInputs());
  if (!config.loadCase.empty())
    if (const LoadCaseRow* lc = model.loadCase(config.loadCase)) InputSignals(model, *lc).evaluate(config.startTime, u0);
  v.firstInput = static_cast<int>(v.all.size());
  for (int k = 0; k < model.nInputs(); ++k) {
    const ModelInput& in = model.inputs[k];
    std::string description = describeInput(model, k);
    if (!config.loadCase.empty())
      description += "; while it is not set, it follows load case '" + config.loadCase + "'";
    v.all.push_back({static_cast<std::uint32_t>(v.all.size()), in.name, inputUnit(in.kind), description, Causality::Input,
                     u0[k], k});
    if (!names.insert(in.name).second)
      throw ModelError({project.sourcePath, "inputs", "id " + std::to_string(in.id), "name"},
                       "the FMU needs unique variable names: '" + printableExcerpt(in.name) + "' is used twice");
  }
  v.nInputs = model.nInputs();
  // Outputs: the project's channels, then the wheels' alignment channels.
  v.channels = resolveChannels(model, {});
  for (const Channel& c : wheelOutputChannels(model)) {
    bool have = false;
    for (const Channel& o : v.channels) have = have || o.name == c.name;
    if (!have) v.channels.push_back(c);
  }
  v.firstOutput = static_cast<int>(v.all.size());
  for (std::size_t c = 0; c < v.channels.size(); ++c) {
    std::string name = v.channels[c].name;
    if (names.count(name)) name += " (output)";
    names.insert(name);
    v.all.push_back({static_cast<std::uint32_t>(v.all.size()), name, v.channels[c].unit,
                     describeChannel(model, v.channels[c]), Causality::Output, 0.0, static_cast<int>(c)});
  }
  v.nOutputs = static_cast<int>(v.channels.size());
  v.firstParameter = static_cast<int>(v.all.size());
  for (std::size_t p = 0; p < config.parameters.size(); ++p) {
    const std::string& path = config.parameters[p];
    double value = 0.0;
    try {
      value = tableValue(project, path);
    } catch (const std::invalid_argument& e) {
      throw ModelError({project.sourcePath, "", "", "parameters"}, std::string("FMU parameter: ") + e.what());
    }
    if (!names.insert(path).second) throw ModelError({project.sourcePath, "", "", "parameters"}, "the parameter '" + printableExcerpt(path) + "' is given twice");
    v.all.push_back({static_cast<std::uint32_t>(v.all.size()), path, unitOfPath(path),
                     "table cell " + path + " (tunable before initialization)", Causality::Parameter, value,
                     static_cast<int>(p)});
  }
  v.nParameters = static_cast<int>(config.parameters.size());
  return v;
}

DisplayUnit displayUnitOf(const std::string& unit) {
  static const std::map<std::string, DisplayUnit> kDisplay = {
      {"m", {"mm", 1e3}},        {"rad", {"deg", 180.0 / M_PI}}, {"N", {"kN", 1e-3}},         {"N m", {"kN m", 1e-3}},
      {"m/s", {"km/h", 3.6}},    {"rad/s", {"deg/s", 180.0 / M_PI}}, {"N/m", {"N/mm", 1e-3}}, {"N m/rad", {"N m/deg", M_PI / 180.0}}};
  const auto it = kDisplay.find(unit);
  return it == kDisplay.end() ? DisplayUnit{} : it->second;
}

bool baseUnitOf(const std::string& unit, BaseUnit& out) {
  static const std::map<std::string, BaseUnit> kUnits = {
      {"kg", {1, 0, 0, 0, 1.0}}, {"m", {0, 1, 0, 0, 1.0}},  {"s", {0, 0, 1, 0, 1.0}},   {"N", {1, 1, -2, 0, 1.0}},
      {"rad", {0, 0, 0, 1, 1.0}}, {"deg", {0, 0, 0, 1, M_PI / 180.0}}, {"Hz", {0, 0, -1, 0, 1.0}},
      {"mm", {0, 1, 0, 0, 1e-3}}, {"kN", {1, 1, -2, 0, 1e3}}, {"%", {0, 0, 0, 0, 0.01}}, {"-", {0, 0, 0, 0, 1.0}},
      {"1", {0, 0, 0, 0, 1.0}}};
  BaseUnit total;
  // "N m/rad", "m/s^2", "N s/m", "kg m^2": factors before the first '/' multiply, after it divide.
  std::string text = unit;
  int sign = 1;
  std::string token;
  auto flush = [&]() {
    if (token.empty()) return true;
    int power = 1;
    const auto caret = token.find('^');
    std::string name = token;
    if (caret != std::string::npos) {
      long long p = 0;
      if (!parseInteger(token.substr(caret + 1), p, -9, 9)) return false;
      power = static_cast<int>(p);
      name = token.substr(0, caret);
    }
    const auto it = kUnits.find(name);
    if (it == kUnits.end()) return false;
    const int e = sign * power;
    total.kg += e * it->second.kg;
    total.m += e * it->second.m;
    total.s += e * it->second.s;
    total.rad += e * it->second.rad;
    total.factor *= std::pow(it->second.factor, e);
    token.clear();
    return true;
  };
  for (char c : text) {
    if (c == ' ' || c == '*') {
      if (!flush()) return false;
    } else if (c == '/') {
      if (!flush() || sign < 0) return false;
      sign = -1;
    } else {
      token += c;
    }
  }
  if (!flush() || unit.empty()) return false;
  out = total;
  return true;
}

}  // namespace ek::fmu
