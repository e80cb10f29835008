// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/run/run_controller.h"

#include <QTimer>
#include <algorithm>

#include "ui/document/units.h"

namespace ek::ui {

RunController::RunController(RunHistory* history, QObject* parent)
    : QObject(parent), history_(history), worker_(new SimulationWorker), renderTimer_(new QTimer(this)) {
  qRegisterMetaType<SampleBlock>();
  qRegisterMetaType<Frame>();
  qRegisterMetaType<RunSettings>();
  qRegisterMetaType<std::shared_ptr<const SuspensionModel>>();
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_.start();
  connect(worker_, &SimulationWorker::started, this, [this](QStringList ch, QStringList un, double) {
    history_->startRun(ch, un, project_, loadCase_, method_);
    frames_.clear();
    emit started();
  });
  connect(worker_, &SimulationWorker::samples, this, [this](const SampleBlock& b) { history_->append(b); });
  renderTimer_->setSingleShot(true);
  sinceRender_.start();
  connect(renderTimer_, &QTimer::timeout, this, [this] {
    if (frames_.empty()) return;
    ++rendered_;
    emit renderFrame(frames_.back());
    sinceRender_.restart();
  });
  connect(worker_, &SimulationWorker::frame, this, [this](Frame f) {
    frames_.push_back(std::move(f));
    if (frames_.size() == 1) emit firstFrame(frames_.front());
    if (renderTimer_->isActive()) return;
    const double cost = renderCost_ ? renderCost_() : 0.0;
    const qint64 wait = std::max<qint64>(100, static_cast<qint64>(3.0 * cost));
    renderTimer_->start(static_cast<int>(std::max<qint64>(0, wait - sinceRender_.elapsed())));
  });
  connect(worker_, &SimulationWorker::progress, this, &RunController::progress);
  connect(worker_, &SimulationWorker::realtimeReport, this, [this](const QString& r) { realtimeReport_ = r; });
  connect(worker_, &SimulationWorker::errorEstimate, this, [this](double rms, double largest, double at, double warnAt) {
    const DisplayUnit u = displayUnit("m");
    errorEstimate_ = tr("error estimate RMS %1 %2, largest %3 %2 at t = %4 s")
                         .arg(u.factor * rms, 0, 'g', 2)
                         .arg(u.unit)
                         .arg(u.factor * largest, 0, 'g', 2)
                         .arg(at, 0, 'f', 3);
    if (warnAt >= 0.0)
      errorEstimate_ += tr(" - above the warning threshold %1 %2 from t = %3 s")
                            .arg(u.factor * warnError_, 0, 'g', 2)
                            .arg(u.unit)
                            .arg(warnAt, 0, 'f', 3);
    emit errorEstimateChanged(errorEstimate_, warnAt >= 0.0);
  });
  connect(worker_, &SimulationWorker::finished, this, [this](const QString& msg, bool completed) {
    renderTimer_->stop();
    running_ = false;
    lastMessage_ = msg;
    history_->finishRun(completed ? QString() : msg);
    emit finished(msg, completed);
  });
}

RunController::~RunController() {
  worker_->stop();
  thread_.quit();
  thread_.wait();
}

bool RunController::start(std::shared_ptr<const SuspensionModel> model, const RunSettings& s, const Project& project,
                          const QString& method) {
  if (running_ || !model) return false;
  project_ = project;
  loadCase_ = s.loadCase;
  method_ = method;
  warnError_ = s.warnError;
  running_ = true;
  rendered_ = 0;
  sinceRender_.restart();  // the first pose of the run waits an interval too (a short run renders none)
  lastMessage_.clear();
  realtimeReport_.clear();
  errorEstimate_.clear();
  QMetaObject::invokeMethod(worker_, "run", Qt::QueuedConnection, Q_ARG(std::shared_ptr<const ek::SuspensionModel>, model),
                            Q_ARG(ek::ui::RunSettings, s));
  return true;
}

void RunController::clearFrames() {
  renderTimer_->stop();
  frames_.clear();
}

}  // namespace ek::ui
