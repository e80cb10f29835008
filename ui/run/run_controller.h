// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file run_controller.h
/// Runs a load case for the workbench: owns the worker thread (simulation_worker.h), records the
/// run in the run history (ui/document/run_history.h) with the project and method it ran, keeps
/// the poses for playback and hands the 3D view the newest pose at a bounded rate, decoupled
/// from the simulation: after an idle interval of three times the view's last render time, at
/// least 40 ms, so the GUI thread spends at most a quarter of its time rendering.

#include <QElapsedTimer>
#include <QObject>
#include <QThread>
#include <functional>
#include <memory>
#include <vector>

#include "ui/document/run_history.h"
#include "ui/run/simulation_worker.h"

class QTimer;

namespace ek::ui {

class RunController : public QObject {
  Q_OBJECT
 public:
  explicit RunController(RunHistory* history, QObject* parent = nullptr);
  ~RunController() override;

  /// Starts a run of `model` (built from `project`); `method` names integrator and step for the
  /// run list. @returns false when a run is going on.
  bool start(std::shared_ptr<const SuspensionModel> model, const RunSettings& settings, const Project& project,
             const QString& method);
  void pause() { worker_->pause(); }
  void resume() { worker_->resume(); }
  bool isPaused() const { return worker_->isPaused(); }
  /// Stops between two steps; the results up to then are kept.
  void stop() { worker_->stop(); }
  bool isRunning() const { return running_; }
  /// The run's poses (kPoseRate per simulated second).
  const std::vector<Frame>& frames() const { return frames_; }
  void clearFrames();
  /// How long the 3D view took for its last frame [ms]: sets the render interval.
  void setRenderCost(std::function<double()> ms) { renderCost_ = std::move(ms); }
  /// The last run's message (empty: completed), the pacer's summary of a real-time run, the
  /// error estimate as the status bar shows it.
  QString lastMessage() const { return lastMessage_; }
  QString realtimeReport() const { return realtimeReport_; }
  QString errorEstimate() const { return errorEstimate_; }
  const SimulationWorker* worker() const { return worker_; }
  /// Poses handed to the 3D view during the last run (for the GUI benchmark).
  int rendered() const { return rendered_; }

 signals:
  void started();
  /// The run's first pose: the initial equilibrium, the reference of exaggerated motion.
  void firstFrame(const ek::ui::Frame& frame);
  /// The newest pose, at most once per render interval.
  void renderFrame(const ek::ui::Frame& frame);
  void progress(double t, double duration, double realtimeFactor);
  /// The error estimate's text; warn: above the run's threshold.
  void errorEstimateChanged(const QString& text, bool warn);
  void finished(const QString& message, bool completed);

 private:
  RunHistory* history_;
  QThread thread_;
  SimulationWorker* worker_;
  std::vector<Frame> frames_;
  Project project_;
  QString loadCase_, method_;
  double warnError_ = 0.0;  ///< the running run's threshold [m]
  QTimer* renderTimer_;
  QElapsedTimer sinceRender_;
  std::function<double()> renderCost_;
  int rendered_ = 0;
  bool running_ = false;
  QString lastMessage_, realtimeReport_, errorEstimate_;
};

}  // namespace ek::ui
