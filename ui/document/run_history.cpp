// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/run_history.h"

#include <algorithm>

#include "engine/core/text.h"
#include "engine/model/project_diff.h"
#include "ui/document/file_output.h"
#include "ui/document/units.h"

namespace ek::ui {
namespace {

const std::vector<double> kNoTimes;
const std::vector<std::vector<double>> kNoValues;

}  // namespace

QString RunRecord::title() const {
  return QStringLiteral("run %1 (%2, %3)").arg(number).arg(loadCase, when.toString("HH:mm:ss"));
}

int RunRecord::channel(const QString& name) const { return channels.indexOf(name); }

double RunRecord::valueAt(int c, double time) const {
  const auto& vs = v[c];
  const std::size_t n = std::min(t.size(), vs.size());
  if (n == 0) return 0.0;
  if (time <= t.front()) return vs.front();
  if (time >= t[n - 1]) return vs[n - 1];
  const std::size_t i = static_cast<std::size_t>(std::lower_bound(t.begin(), t.begin() + n, time) - t.begin());
  if (t[i] == time) return vs[i];  // the same time grid: exact, no interpolation
  const double w = (time - t[i - 1]) / (t[i] - t[i - 1]);
  return vs[i - 1] + w * (vs[i] - vs[i - 1]);
}

void RunHistory::startRun(const QStringList& channels, const QStringList& units, const Project& project,
                          const QString& loadCase, const QString& method) {
  RunRecord r;
  r.number = runs_.empty() ? 1 : runs_.back().number + 1;
  r.loadCase = loadCase;
  r.when = QDateTime::currentDateTime();
  r.project = project;
  r.method = method;
  if (!runs_.empty()) {
    QStringList parts;
    if (runs_.back().method != method) parts << tr("method: %1 \u2192 %2").arg(runs_.back().method, method);
    for (const auto& c : describeChanges(runs_.back().project, project, 3)) parts << QString::fromStdString(c);
    r.changes = parts.isEmpty() ? (runs_.back().loadCase == loadCase ? tr("nothing (same project)")
                                                                     : tr("nothing (other load case)"))
                                : parts.join("; ");
  }
  r.channels = channels;
  r.units = units;
  r.v.assign(channels.size(), {});
  runs_.push_back(std::move(r));
  setStale(false, {});
  emit runStarted();
  emit changed();
}

void RunHistory::append(const SampleBlock& b) {
  if (runs_.empty()) return;
  RunRecord& r = runs_.back();
  r.t.insert(r.t.end(), b.t.begin(), b.t.end());
  for (std::size_t c = 0; c < r.v.size() && c < b.values.size(); ++c)
    r.v[c].insert(r.v[c].end(), b.values[c].begin(), b.values[c].end());
  emit appended(b);
}

void RunHistory::finishRun(const QString& stopped) {
  if (runs_.empty() || runs_.back().finished) return;
  runs_.back().finished = true;
  runs_.back().stopped = stopped;
  emit changed();
}

void RunHistory::setShown(int run, bool shown) {
  if (run < 0 || run >= count() || runs_[run].shown == shown) return;
  runs_[run].shown = shown;
  emit changed();
}

void RunHistory::setReference(int run) {
  referenceNumber_ = run >= 0 && run < count() ? runs_[run].number : 0;
  emit changed();
}

int RunHistory::reference() const {
  if (referenceNumber_ > 0)
    for (int k = 0; k < count(); ++k)
      if (runs_[k].number == referenceNumber_) return k;
  return count() >= 2 ? count() - 2 : -1;
}

void RunHistory::remove(int run) {
  if (run < 0 || run >= count() || (isRunning() && run == count() - 1)) return;
  const bool newest = run == count() - 1;
  runs_.erase(runs_.begin() + run);
  if (newest) setStale(false, {});  // the banner spoke of the removed run
  emit changed();
}

void RunHistory::clear() {
  runs_.clear();
  referenceNumber_ = 0;
  setStale(false, {});
  emit runStarted();
  emit changed();
}

void RunHistory::restore(std::vector<RunRecord> runs) {
  runs_ = std::move(runs);
  referenceNumber_ = 0;
  setStale(false, {});
  emit runStarted();
  emit changed();
}

void RunHistory::markStale(const QString& what) {
  if (runs_.empty()) return;
  setStale(true, tr("Not current: the project changed since %1 (%2). Run again to update.")
                     .arg(runs_.back().title(), what.isEmpty() ? tr("edited") : what));
  emit changed();
}

void RunHistory::setStale(bool stale, const QString& text) {
  const bool differs = stale != stale_ || (stale && text != staleText_);
  stale_ = stale;
  staleText_ = text;
  if (differs) emit staleChanged(stale, text);
}

const std::vector<double>& RunHistory::times() const { return runs_.empty() ? kNoTimes : runs_.back().t; }
const std::vector<std::vector<double>>& RunHistory::values() const { return runs_.empty() ? kNoValues : runs_.back().v; }
QStringList RunHistory::channels() const { return runs_.empty() ? QStringList() : runs_.back().channels; }
QStringList RunHistory::units() const { return runs_.empty() ? QStringList() : runs_.back().units; }

QString RunHistory::exportCsv(const QString& path) const {
  if (runs_.empty()) return tr("No run to export.");
  return exportRunCsv(count() - 1, path);
}

QString RunHistory::exportRunCsv(int run, const QString& path) const {
  if (run < 0 || run >= count()) return tr("No run to export.");
  if (const QString c = open_inputs::clash(path); !c.isEmpty()) return c;
  const RunRecord& r = runs_[run];
  // As the runner writes results: RFC 4180 header, exact times (in any locale), written through
  // OutputFile. In the display units (their names in the header).
  std::vector<double> factors;
  std::string out = "time [s]";
  for (int c = 0; c < r.channels.size(); ++c) {
    const DisplayUnit du = displayUnit(r.units[c]);
    factors.push_back(du.factor);
    out += ',' + csvField((r.channels[c] + " [" + du.unit + "]").toStdString());
  }
  out += '\n';
  for (std::size_t i = 0; i < r.t.size(); ++i) {
    out += shortestText(r.t[i]);
    for (std::size_t c = 0; c < r.v.size(); ++c) {
      const auto& col = r.v[c];
      out += ',';
      if (i < col.size()) out += shortestText(factors[c] == 1.0 ? col[i] : col[i] * factors[c]);
    }
    out += '\n';
  }
  return writeFileBytes(path, QByteArray::fromStdString(out), tr("results file"));
}

}  // namespace ek::ui
