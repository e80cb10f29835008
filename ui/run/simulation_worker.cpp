// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/run/simulation_worker.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <QThread>
#include <chrono>

#include "engine/analysis/realtime.h"
#include "engine/analysis/simulation.h"
#include "engine/core/error.h"

namespace ek::ui {
namespace {

/// The worker yields to the GUI thread when the machine is loaded: nice +5 for this thread only.
/// (Linux threads have their own nice value; Qt's thread priorities have no effect under the
/// default SCHED_OTHER policy.) Raising the nice value needs no privileges.
int yieldToTheGuiThread() {
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  setpriority(PRIO_PROCESS, tid, 5);
  return getpriority(PRIO_PROCESS, tid);
}

}  // namespace

void SimulationWorker::emitErrorEstimate(const Simulation& sim) {
  const ErrorSummary e = sim.errorSummary();
  if (e.available && e.steps > 0)
    emit errorEstimate(e.positionRms, e.positionMax, e.positionMaxTime, e.positionWarnTime);
}

void SimulationWorker::run(std::shared_ptr<const SuspensionModel> model, RunSettings s) {
  nice_ = yieldToTheGuiThread();
  paused_ = false;
  stop_ = false;
  using Clock = std::chrono::steady_clock;
  try {
    RunOptions o;
    o.dt = s.dt;
    o.linearizeEvery = s.linearizeEvery;
    o.solver = s.solver.toStdString();
    o.integrator = s.integrator.toStdString();
    o.duration = s.duration;
    Simulation sim(model, s.loadCase.toStdString(), o);
    sim.positionErrorThreshold = s.warnError;
    sim.initialize();
    QStringList names, units;
    for (const auto& c : sim.results().channels()) {
      names << QString::fromStdString(c.name);
      units << QString::fromStdString(c.unit);
    }
    emit started(names, units, sim.duration());

    std::size_t sent = 0;
    auto flush = [&] {
      const Recorder& rec = sim.results();
      SampleBlock b;
      b.values.resize(rec.channels().size());
      for (std::size_t k = sent; k < rec.size(); ++k) {
        b.t.push_back(rec.time(k));
        for (std::size_t c = 0; c < rec.channels().size(); ++c) b.values[c].push_back(rec.value(k, c));
      }
      sent = rec.size();
      if (!b.t.empty()) emit samples(std::move(b));
    };
    // Poses at a fixed simulated-time rate (kPoseRate, or every step when that is coarser), so
    // that the playback after the run is smooth whatever the run's speed.
    const long long poseStride = std::max(1LL, std::llround(1.0 / (kPoseRate * s.dt)));
    auto pose = [&] {
      Frame f;
      f.t = sim.state().t;
      const Workspace& ws = sim.workspace();
      for (std::size_t k = 0; k < model->bodies.size(); ++k) {
        const int st = model->bodies[k].state;
        if (st >= 0) {
          f.position.push_back(sim.state().r.segment<3>(6 * st));
          f.orientation.push_back(ws.bodies[k].R);
        } else {  // fixed, or driven by motion inputs
          f.position.push_back(ws.bodies[k].p);
          f.orientation.push_back(ws.bodies[k].R);
        }
      }
      for (const ModelFlexibleBody& fb : model->flexibleBodies)
        for (int k = 0; k < fb.modes(); ++k) f.modal.push_back(sim.state().r[6 * fb.firstModalSlot + k]);
      emit frame(std::move(f));
    };
    pose();  // the initial state (the reference of the exaggeration)

    RealtimePacer pacer(s.dt, sim.totalSteps());
    const auto t0 = Clock::now();
    auto lastFlush = t0;
    double busy = 0.0;  // wall time spent stepping (for the real-time factor)
    bool more = true;
    if (s.realtime) pacer.start();
    long long pacedSteps = 0;
    while (more && !stop_) {
      if (paused_) {
        flush();
        QThread::msleep(20);
        if (s.realtime) {  // resume pacing from now
          pacer.start();
          pacedSteps = 0;
        }
        continue;
      }
      const auto a = Clock::now();
      try {
        more = sim.step();
      } catch (const SimulationError& e) {
        flush();  // keep the results up to the stop
        pose();
        emit finished(QString::fromStdString(e.what()), false);
        return;
      }
      busy += std::chrono::duration<double>(Clock::now() - a).count();
      if (sim.stepsDone() % poseStride == 0 || !more) pose();
      if (s.realtime) pacer.stepDone(++pacedSteps);
      if (Clock::now() - lastFlush > std::chrono::milliseconds(40)) {  // 25 Hz to the GUI
        flush();
        lastFlush = Clock::now();
        emit progress(sim.state().t, sim.duration(), busy / std::max(1e-12, sim.stepsDone() * s.dt));
        emitErrorEstimate(sim);
      }
    }
    flush();
    if (s.realtime) emit realtimeReport(QString::fromStdString(pacer.summary()).trimmed());
    if (stop_ && sim.stepsDone() % poseStride != 0) pose();  // where the run was stopped
    emit progress(sim.state().t, sim.duration(), busy / std::max(1e-12, sim.stepsDone() * s.dt));
    emitErrorEstimate(sim);
    emit finished(stop_ ? QStringLiteral("stopped at t = %1 s").arg(sim.state().t) : QString(), !stop_);
  } catch (const SimulationError& e) {
    emit finished(QString::fromStdString(e.what()), false);
  } catch (const std::exception& e) {
    emit finished(QString::fromStdString(e.what()), false);
  }
}

}  // namespace ek::ui
