// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file fmu_description.h
/// What an Elastokin FMU is (docs/fmi.md): its configuration, stored in the FMU as
/// resources/elastokin-fmu.json beside the project, and its variables, derived from the project
/// and the configuration the same way by the exporter (for modelDescription.xml) and by the FMU's
/// binary (for the value references):
/// - value reference 0: time (FMI 3's independent variable);
/// - then the project's inputs (forces, torques, driven translations and rotations), in table
///   order: causality input, held over each communication interval;
/// - then the output channels: the project's outputs, then every wheel's alignment channels;
/// - then the parameters the user marked (table cells by the study's cell paths), tunable at
///   instantiation (causality parameter, variability fixed).

#include <cstdint>
#include <string>
#include <vector>

#include "engine/dynamics/outputs.h"
#include "engine/model/model.h"
#include "engine/model/project.h"

namespace ek::fmu {

inline constexpr const char* kModelIdentifier = "elastokin";
inline constexpr const char* kConfigFile = "elastokin-fmu.json";
inline constexpr const char* kProjectFile = "project.json";
/// The load case an FMU without --loadcase runs (inputs at their start values, equilibrium).
inline constexpr const char* kOwnLoadCase = "elastokin-fmu";

struct FmuConfig {
  int fmiVersion = 3;             ///< 3 or 2
  std::string token;              ///< FMI 3 instantiationToken / FMI 2 guid
  std::string modelName;
  std::string loadCase;           ///< empty: none (inputs start at 0, static equilibrium)
  std::string integrator = "lsrt2";  ///< lsrt2 or ros34pw2
  double step = 1e-3;             ///< the internal fixed step [s]
  int linearizeEvery = 1;
  std::vector<std::string> parameters;  ///< table cell paths tunable at instantiation
  double startTime = 0.0;         ///< default experiment
  double stopTime = -1.0;         ///< default experiment; negative: the load case's end, or 10 s
};

/// The configuration as stored in the FMU, and read back. @throws ModelError naming the field.
std::string writeConfig(const FmuConfig& config);
FmuConfig readConfig(const std::string& text, const std::string& path);

enum class Causality { Independent, Input, Output, Parameter };

struct FmuVariable {
  std::uint32_t valueReference = 0;
  std::string name, unit, description;
  Causality causality = Causality::Output;
  double start = 0.0;  ///< inputs and parameters
  int index = -1;      ///< the model input, the channel (in FmuVariables::channels) or the parameter
};

struct FmuVariables {
  std::vector<FmuVariable> all;    ///< by value reference
  std::vector<Channel> channels;   ///< the outputs' channels, in their order
  int firstInput = 1, nInputs = 0, firstOutput = 1, nOutputs = 0, firstParameter = 1, nParameters = 0;
};

/// The variables of an FMU of `project` (built into `model`) with `config`.
/// @throws ModelError for a parameter path that is not a number of the project, or a name used
///   twice (an input and an output channel of one name: the output gets " (output)").
FmuVariables describeVariables(const Project& project, const SuspensionModel& model, const FmuConfig& config);

/// A unit's SI base-unit exponents and factor, for UnitDefinitions: "N m/rad" -> kg 1, m 2, s -2,
/// rad -1. @returns false for a unit it cannot read (written then without a definition).
struct BaseUnit {
  int kg = 0, m = 0, s = 0, rad = 0;
  double factor = 1.0;
};
bool baseUnitOf(const std::string& unit, BaseUnit& out);

/// The unit an engineer reads a quantity in (display = factor x value): mm for m, deg for rad,
/// kN for N, kN m for N m, km/h for m/s, deg/s for rad/s, N/mm for N/m. Empty name: none (the
/// unit is read as it is).
struct DisplayUnit {
  std::string name;
  double factor = 1.0;
};
DisplayUnit displayUnitOf(const std::string& unit);

}  // namespace ek::fmu
