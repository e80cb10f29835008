// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file run_data.h
/// What a run of a load case is made of, as the document keeps it and the worker sends it: the
/// run's settings, the bodies' poses and the channels' new samples. No widgets.

#include <QMetaType>
#include <QString>
#include <vector>

#include "engine/core/types.h"

namespace ek::ui {

struct RunSettings {
  QString loadCase;
  double dt = 1e-3;
  int linearizeEvery = 1;
  QString solver = "topology";
  QString integrator = "lsrt2";  ///< the engine's name (integratorNames())
  bool realtime = false;
  double warnError = 0.0;  ///< warn when a step's position error estimate exceeds this [m]; 0: never
  double duration = -1.0;  ///< negative: the load case's
};

/// Poses per second of simulated time sent for the 3D view and its playback.
inline constexpr double kPoseRate = 100.0;

/// Poses of all bodies (fixed ones included), indexed like SuspensionModel::bodies.
struct Frame {
  double t = 0.0;
  std::vector<Vec3> position;      ///< body reference point (centre of mass of free bodies)
  std::vector<Mat3> orientation;   ///< R_WB
  /// The flexible bodies' modal coordinates, SuspensionModel::flexibleBodies after one another;
  /// empty: all zero (the undeformed bodies).
  std::vector<double> modal;
};

/// New samples since the last block: times and one column per channel.
struct SampleBlock {
  std::vector<double> t;
  std::vector<std::vector<double>> values;
};

}  // namespace ek::ui

Q_DECLARE_METATYPE(ek::ui::SampleBlock)
Q_DECLARE_METATYPE(ek::ui::Frame)
Q_DECLARE_METATYPE(ek::ui::RunSettings)
