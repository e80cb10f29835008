// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file background_job.h
/// An engine analysis run by a workbench panel on a worker thread (the K&C and frequency analyses,
/// the manoeuvres): the work runs on a QThread of its own, its progress (0..1, reported from that
/// thread) reaches a progress bar through the GUI thread's event loop, and its result, or the
/// message of the exception it threw, is handed to a callback on the receiver's thread.
/// Cancelling is the work's own (the engine's cancel flags).

#include <QMetaObject>
#include <QProgressBar>
#include <QString>
#include <QThread>
#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

namespace ek::ui {

/// The engine's progress callback for `bar`, callable from any thread: sets it to 1000 f.
inline std::function<void(double)> progressTo(QProgressBar* bar) {
  return [bar](double f) {
    QMetaObject::invokeMethod(bar, [bar, f] { bar->setValue(static_cast<int>(1000 * f)); }, Qt::QueuedConnection);
  };
}

/// Runs `work()` on a new thread, which deletes itself once finished, and then
/// `done(std::optional<R> result, QString error)` on `receiver`'s thread: the result, or no result
/// and the message of the exception `work` threw. @returns the thread (started).
template <class Work, class Done>
QThread* startBackgroundJob(QObject* receiver, Work work, Done done) {
  using R = std::invoke_result_t<Work&>;
  QThread* thread = QThread::create([receiver, work = std::move(work), done = std::move(done)]() mutable {
    std::optional<R> result;
    QString error;
    try {
      result.emplace(work());
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        receiver, [done = std::move(done), result = std::move(result), error]() mutable { done(std::move(result), error); },
        Qt::QueuedConnection);
  });
  QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  thread->start();
  return thread;
}

}  // namespace ek::ui
