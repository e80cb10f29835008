// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file fmu_instance.h
/// One instance of the Elastokin FMU (docs/fmi.md): the project and configuration from the FMU's
/// resources, the parameters the importer sets before initialization, a Simulation that takes
/// whole internal steps per communication step with the inputs held (a shorter step of the same
/// method to a communication point between two), outputs evaluated on demand,
/// and its state saved, restored and serialized. The FMI 3 and FMI 2 entry points
/// (fmi3_functions.cpp, fmi2_functions.cpp) are thin wrappers: every error is a status and a
/// logged message, never an exception through the C interface or an abort.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/analysis/simulation.h"
#include "fmu/fmu_description.h"

namespace ek::fmu {

/// Status codes in FMI's order (fmi3Status / fmi2Status share them up to Fatal).
enum class Status { OK = 0, Warning = 1, Discard = 2, Error = 3, Fatal = 4 };

/// The importer's logger: status, category ("logStatusError", ...), message.
using Logger = std::function<void(Status, const char*, const std::string&)>;

class Instance {
 public:
  /// Reads resources/elastokin-fmu.json and the project beside it (resourceDir ends with '/').
  /// @throws std::exception with the reason (a missing or foreign resource, a token that is not
  ///   this FMU's, a project that is not a valid model).
  Instance(const std::string& resourceDir, const std::string& token, int fmiVersion, Logger log);
  ~Instance();

  Status enterInitialization(double startTime, bool stopTimeDefined, double stopTime);
  Status exitInitialization();
  /// Advances from currentCommunicationPoint by communicationStepSize: whole internal steps, and a
  /// shorter step of the same method where a communication point lies between two.
  Status doStep(double currentCommunicationPoint, double communicationStepSize, bool* terminate);
  Status getReal(const std::uint32_t vr[], std::size_t n, double values[]);
  Status setReal(const std::uint32_t vr[], std::size_t n, const double values[]);
  Status terminate();
  /// Back to the state right after instantiation (parameters at the project's values).
  Status reset();

  /// A saved state (FMI get/set FMU state).
  struct Saved;
  Status save(Saved** out);
  Status restore(const Saved& s);
  static void free(Saved* s);
  /// FMI get FMU state: saves into the importer's slot; a state already there (passed back to be
  /// overwritten) is freed first.
  Status saveInto(void** slot);
  /// FMI free FMU state: frees the state in the importer's slot and empties it.
  static void release(void** slot);
  std::size_t serializedSize(const Saved& s) const;
  Status serialize(const Saved& s, std::uint8_t* bytes, std::size_t size) const;
  Status deserialize(const std::uint8_t* bytes, std::size_t size, Saved** out);

  /// An error reported to the importer (status Error, category logStatusError); returns Error.
  Status fail(const std::string& message);
  Status unsupported(const char* function);
  double time() const;
  bool debugLogging = false;

 private:
  enum class Mode { Instantiated, Initialization, Step, Terminated, Failed };
  void build();  ///< parameters applied, model and simulation made, initial state found
  bool settable(const FmuVariable& v) const;
  std::string whyNotSettable(const FmuVariable& v) const;  ///< for the message when !settable(v)

  std::string resources_;
  FmuConfig config_;
  Project project_;
  std::shared_ptr<const SuspensionModel> baseModel_;
  FmuVariables variables_;
  Logger log_;
  Mode mode_ = Mode::Instantiated;
  double startTime_ = 0.0, stopTime_ = -1.0;
  std::vector<double> parameters_;  ///< per parameter
  std::vector<double> inputs_;      ///< per input: the value set (NaN: not set, the load case's or the start)
  bool parametersChanged_ = false;
  bool stale_ = true;  ///< inputs or parameters set in initialization mode since the last build()
  std::unique_ptr<Simulation> sim_;
  std::vector<double> outputs_;
  bool outputsValid_ = false;
  VecX u_;  ///< scratch: the inputs at the current time
};

}  // namespace ek::fmu
