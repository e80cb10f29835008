// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file outputs.h
/// Output channels (the project's outputs table resolved to indices) and the recorder that keeps
/// sampled values in a buffer allocated once per run.

#include <string>
#include <vector>

#include "engine/dynamics/workspace.h"

namespace ek {

struct Channel {
  std::string name;
  std::string unit;
  OutputQuantity quantity = OutputQuantity::MarkerPosition;
  int index = -1;      ///< marker, body, bushing, p2p or input index in the model
  int component = 0;   ///< 0..5 (x, y, z, rx, ry, rz), a WheelChannel, a branch's element state, a mode
                       ///< (from 0) or 0 for scalars
  bool rate = false;   ///< a modal coordinate's rate, not the coordinate
  const ModelWheel* wheel = nullptr;  ///< the wheel of a wheel channel (owned by the model)
};

/// Resolves output rows. `names` selects channels by name (empty: all, in table order).
/// @throws std::invalid_argument naming an unknown channel and listing the known ones.
std::vector<Channel> resolveChannels(const SuspensionModel& model, const std::vector<std::string>& names);

/// Every output channel that is a function of a state (all but the integrator's error estimate),
/// in table order: what the analyses that run no integrator (K&C, linear analysis) report.
std::vector<Channel> stateChannels(const SuspensionModel& model);

/// Every wheel's alignment channels as output channels ("<wheel name> <component>"), those that
/// need a steering axis only where the wheel has one.
std::vector<Channel> wheelOutputChannels(const SuspensionModel& model);

/// What a channel measures, in a line for a reader outside Elastokin (an FMU's variable
/// description): the quantity, the point or element with its ids and names, the axis and its
/// frame, and the sign (ISO 8855 axes: x forward, y left, z up; docs/analyses.md, Conventions).
std::string describeChannel(const SuspensionModel& model, const Channel& c);

/// Value of a channel from a workspace whose stages 1-3 ran at the state (and whose u is set).
/// `markerStart` holds each marker's design position, the pose as modelled (for displacements);
/// `stepError` the local error estimate of the step that ended at the state (the error channels;
/// zero where no integrator ran).
double channelValue(const Channel& c, const Workspace& ws, const std::vector<Vec3>& markerStart,
                    const LocalErrorEstimate& stepError = {});
/// The values of `channels` into out (channels.size()), as channelValue() gives each, with each
/// wheel's alignment channels computed once for all of its channels. No allocation.
void channelValues(const std::vector<Channel>& channels, const Workspace& ws, const std::vector<Vec3>& markerStart,
                   double* out, const LocalErrorEstimate& stepError = {});

/// Every marker's global position in the pose as modelled (the start of displacement channels).
std::vector<Vec3> markerPositionsAsModelled(const SuspensionModel& model);

/// Sampled results: times and a row-major value table, preallocated for the whole run.
class Recorder {
 public:
  void reset(std::vector<Channel> channels, std::size_t capacity);
  /// Appends one sample; never reallocates within the capacity given to reset().
  void record(double t, const Workspace& ws, const std::vector<Vec3>& markerStart,
              const LocalErrorEstimate& stepError = {});
  const std::vector<Channel>& channels() const { return channels_; }
  std::size_t size() const { return times_.size(); }
  double time(std::size_t k) const { return times_[k]; }
  double value(std::size_t k, std::size_t c) const { return values_[k * channels_.size() + c]; }
  /// One channel's samples (copied).
  std::vector<double> series(std::size_t c) const;

 private:
  std::vector<Channel> channels_;
  std::vector<double> times_, values_;
};

/// Writes time and all channels as CSV (RFC 4180) with a header "time [s],name [unit],...",
/// through OutputFile (core/output_file.h). Every number exactly (shortest round-trip text, in
/// any locale).
/// @throws IoError when the file cannot be written; `path` is then left as it was.
void writeCsv(const Recorder& rec, const std::string& path);

/// Evaluates stages 1-3 (kinematics and force elements, values only: evaluateElements()) at a
/// state and inputs u into ws, for outputs; driven bodies move with the rates already in ws.uDot.
void evaluateOutputsState(const SuspensionModel& model, const State& state, const VecX& u, Workspace& ws);

}  // namespace ek
