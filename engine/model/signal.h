// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file signal.h
/// Scalar time signals of the load cases (constant, step, ramp, sine, chirp, table) and the
/// input vector u(t) of a load case.

#include <string>
#include <vector>

#include "engine/model/model.h"

namespace ek {

/// Value of a signal at time t. Table signals interpolate linearly and hold their end values.
double evaluate(const SignalRow& s, double t);

/// Time derivative of a signal at t, from the right at kinks (a ramp's start, a table's points);
/// zero for a step (its jump has no finite rate). Driven bodies move with it.
double rate(const SignalRow& s, double t);

/// Reads the (time, value) CSV of a table signal: two numeric columns, an optional header line,
/// strictly increasing times. @throws ModelError naming the CSV file, line and column.
std::vector<std::array<double, 2>> readSignalTable(const std::string& path);

/// Every file the project refers to (the load cases' signal tables), resolved against the
/// project file's folder, each once, in the order of first use.
std::vector<std::string> referencedFiles(const Project& project);

/// The inputs u(t) of one load case: one signal per model input (zero where the load case is
/// silent). Table files are read on construction, relative to the project file.
class InputSignals {
 public:
  /// @throws ModelError (table file missing or malformed: names the load case and field).
  InputSignals(const SuspensionModel& model, const LoadCaseRow& loadCase);
  /// u(t) into out (size nInputs), no allocation.
  void evaluate(double t, VecX& out) const;
  /// du/dt(t) into out (size nInputs), no allocation.
  void evaluateRate(double t, VecX& out) const;

  /// Input `index` (model order) held at `value` from now on (rate zero), whatever the load case
  /// says: an input set from outside (an FMU's importer, a script). No allocation.
  void hold(int index, double value);
  /// Input `index` follows the load case's signal again.
  void release(int index);
  /// Every input held at the load case's value at time t (a zero-order hold of the load case, as
  /// an FMU's importer feeds its signals step by step). No allocation.
  void holdLoadCaseAt(double t);
  /// Whether input `index` is held.
  bool held(int index) const { return held_[static_cast<std::size_t>(index)]; }

 private:
  std::vector<SignalRow> signals_;  ///< per model input
  std::vector<SignalRow> loadCase_;  ///< the load case's signals (restored by release())
  std::vector<char> held_;
};

}  // namespace ek
