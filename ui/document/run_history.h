// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file run_history.h
/// The session's runs of load cases, owned by the document side (no widgets): every run is kept
/// with the project it ran, its method and what changed since the run before, until the project
/// is replaced; one run is the reference of differences; after an edit the newest run is marked
/// as not current until the next. The Plots tab (ui/views/plot_panel.h) is a view of it; the
/// results file beside the project (results_file.h) stores it.

#include <QDateTime>
#include <QObject>
#include <QStringList>
#include <vector>

#include "engine/model/project.h"
#include "ui/document/run_data.h"

namespace ek::ui {

/// One run of a load case as kept in the session.
struct RunRecord {
  int number = 0;        ///< 1, 2, ... in the order of the runs
  QString loadCase;
  QDateTime when;        ///< start of the run
  Project project;       ///< the tables it ran with
  QString method;        ///< integrator and step, e.g. "ros34pw2, dt 1 ms"
  QString changes;       ///< what changed (project, method) since the previous run; empty for the first
  QStringList channels, units;
  std::vector<double> t;
  std::vector<std::vector<double>> v;  ///< v[channel][sample]
  bool shown = true;
  bool finished = false;
  QString stopped;       ///< why it ended early; empty when complete (or still running)
  /// "run 2 (LC1, 07:21:04)"
  QString title() const;
  /// Index of a channel by name, -1 if the run has none of that name.
  int channel(const QString& name) const;
  /// Channel c at time t (linear between samples, held beyond the ends; exact on a sample).
  double valueAt(int c, double t) const;
};

class RunHistory : public QObject {
  Q_OBJECT
 public:
  explicit RunHistory(QObject* parent = nullptr) : QObject(parent) {}

  /// A run starts: a new record with the project it runs, its method and what changed since the
  /// previous run. Emits runStarted, then changed.
  void startRun(const QStringList& channels, const QStringList& units, const Project& project = {},
                const QString& loadCase = {}, const QString& method = {});
  /// New samples of the newest run. Emits appended.
  void append(const SampleBlock& block);
  /// The newest run ended: `stopped` is empty when it completed, else the reason. A run that
  /// failed before it started has no record: the last one keeps its state.
  void finishRun(const QString& stopped = {});
  /// Whether the newest run is still running (it cannot be removed then).
  bool isRunning() const { return !runs_.empty() && !runs_.back().finished; }

  int count() const { return static_cast<int>(runs_.size()); }
  bool empty() const { return runs_.empty(); }
  const RunRecord& run(int k) const { return runs_[k]; }
  const std::vector<RunRecord>& runs() const { return runs_; }
  void setShown(int run, bool shown);
  /// The run differences are taken against (-1: the run before the newest).
  void setReference(int run);
  /// The resolved reference run, -1 when there is none.
  int reference() const;
  void remove(int run);
  /// Forgets every run (a new or other project).
  void clear();
  /// Runs read back from a results file instead of the current ones.
  void restore(std::vector<RunRecord> runs);

  /// The project changed after the newest run: not current until the next run.
  void markStale(const QString& what);
  bool isStale() const { return stale_; }
  QString staleText() const { return staleText_; }

  // The newest run (empty when there is none).
  const std::vector<double>& times() const;
  const std::vector<std::vector<double>>& values() const;
  QStringList channels() const;
  QStringList units() const;

  /// Writes all channels of the newest run (or of run `run`) as CSV ("time [s],name [unit],..."),
  /// in the display units, exact numbers in any locale. @returns an error text or empty.
  QString exportCsv(const QString& path) const;
  QString exportRunCsv(int run, const QString& path) const;

 signals:
  /// A new newest run (its channels may differ from the run before).
  void runStarted();
  /// Samples appended to the newest run.
  void appended(const ek::ui::SampleBlock& block);
  /// The list changed: a run finished, was shown, hidden, removed; the reference; clear, restore.
  void changed();
  /// The newest run became stale (or current again with a new run, or was removed).
  void staleChanged(bool stale, const QString& text);

 private:
  void setStale(bool stale, const QString& text);

  std::vector<RunRecord> runs_;
  int referenceNumber_ = 0;  ///< the chosen reference's run number; 0: the run before the newest
  bool stale_ = false;
  QString staleText_;
};

}  // namespace ek::ui
