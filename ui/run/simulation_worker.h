// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file simulation_worker.h
/// Runs a load case on a worker thread. Commands (pause, resume, stop) are atomic flags read
/// between steps; results come back by value: the new samples of all channels every ~40 ms of
/// wall time, the poses of the bodies (for the 3D view and its playback) at kPoseRate per second
/// of simulated time.

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <vector>

#include "engine/model/model.h"
#include "ui/document/run_data.h"

namespace ek {
class Simulation;
}

namespace ek::ui {

class SimulationWorker : public QObject {
  Q_OBJECT
 public:
  explicit SimulationWorker(QObject* parent = nullptr) : QObject(parent) {}
  // Thread-safe commands, effective between steps.
  void pause() { paused_ = true; }
  void resume() { paused_ = false; }
  void stop() { stop_ = true; }
  bool isPaused() const { return paused_; }
  /// The worker thread's nice value during its last run (above the GUI thread's: it yields).
  int niceValue() const { return nice_; }

 public slots:
  /// Runs to the end (or stop/divergence); emits started, then blocks/frames/progress, then finished.
  void run(std::shared_ptr<const ek::SuspensionModel> model, ek::ui::RunSettings settings);

 signals:
  void started(QStringList channels, QStringList units, double duration);
  void samples(ek::ui::SampleBlock block);
  void frame(ek::ui::Frame frame);
  void progress(double t, double duration, double realtimeFactor);
  /// message empty: completed; otherwise the engine's message (divergence names time and body).
  void finished(QString message, bool completed);
  /// Real-time runs only, just before finished: the pacer's summary (RealtimePacer::summary).
  void realtimeReport(QString summary);
  /// With progress and once before finished: the integrator's local error estimate of the
  /// positions so far [m] (LSRT2's embedded solution): RMS, largest and its time. Not emitted
  /// for an integrator without an estimate.
  /// The position error estimate so far [m]; warnTime: when it first exceeded the threshold of
  /// RunSettings::warnError, -1 if it has not.
  void errorEstimate(double rms, double largest, double largestTime, double warnTime);

 private:
  void emitErrorEstimate(const ek::Simulation& sim);
  std::atomic<bool> paused_{false}, stop_{false};
  std::atomic<int> nice_{0};
};

}  // namespace ek::ui

Q_DECLARE_METATYPE(std::shared_ptr<const ek::SuspensionModel>)
