// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/study_runner.h"

#include <nlopt.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "engine/core/text_file.h"
#include "engine/dynamics/outputs.h"
#include "engine/model/project_io.h"

namespace ek {

// ---------------------------------------------------------------------------------------------
// Threads

ThreadExecutor::ThreadExecutor(const StudyContext& context, int threads)
    : context_(context), threads_(std::max(1, threads)) {}

std::string ThreadExecutor::describe() const {
  return std::to_string(threads_) + (threads_ == 1 ? " thread" : " threads");
}

void ThreadExecutor::evaluate(const std::vector<std::vector<double>>& designs, const Done& done,
                              const std::atomic<bool>& stop) {
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::pair<std::size_t, DesignResult>> finished;
  std::size_t next = 0, running = 0;
  bool aborted = false;  // under m: reporting failed (the results file); no new designs
  auto interrupted = [&] { return context_.cancel && context_.cancel->load(); };
  auto halted = [&] { return next >= designs.size() || stop.load() || aborted || interrupted(); };
  auto worker = [&] {
    for (;;) {
      std::size_t i;
      {
        std::lock_guard<std::mutex> lock(m);
        if (halted()) return;
        i = next++;
        ++running;
      }
      DesignResult r = evaluateDesign(context_, designs[i]);
      {
        std::lock_guard<std::mutex> lock(m);
        finished.emplace_back(i, std::move(r));
        --running;
      }
      cv.notify_one();
    }
  };
  const int n = static_cast<int>(std::min<std::size_t>(designs.size(), static_cast<std::size_t>(threads_)));
  if (n <= 1) {
    // One thread: the calling one, reporting each run as it finishes.
    for (std::size_t i = 0; i < designs.size() && !stop.load() && !interrupted(); ++i)
      done(i, evaluateDesign(context_, designs[i]));
    return;
  }
  // n threads run designs; the calling thread reports (results file, progress) and mostly waits.
  std::vector<std::thread> pool;
  for (int k = 0; k < n; ++k) pool.emplace_back(worker);
  // An exception from `done` (the results file cannot be written) stops new designs, lets the
  // threads finish and is thrown after they are joined.
  std::exception_ptr error;
  std::unique_lock<std::mutex> lock(m);
  for (;;) {
    cv.wait(lock, [&] { return !finished.empty() || (halted() && running == 0); });
    while (!finished.empty()) {
      auto item = std::move(finished.front());
      finished.pop_front();
      lock.unlock();
      try {
        if (!error) done(item.first, item.second);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error) aborted = true;
    }
    if (halted() && running == 0 && finished.empty()) break;
  }
  lock.unlock();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// ---------------------------------------------------------------------------------------------
// Results file

namespace {

std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string number(double v) { return std::isfinite(v) ? shortestText(v) : std::string("nan"); }

std::string keyOf(const std::vector<double>& values) {
  std::string k;
  for (double v : values) k += number(v) + ",";
  return k;
}

/// The fields of one CSV line (RFC 4180 quoting; the line holds no line break).
bool splitCsv(const std::string& line, std::vector<std::string>& out) {
  out.clear();
  std::string f;
  bool quoted = false, wasQuoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') f += '"', ++i;
      else if (c == '"') quoted = false;
      else f += c;
    } else if (c == '"' && f.empty() && !wasQuoted) {
      quoted = wasQuoted = true;
    } else if (c == ',') {
      out.push_back(f);
      f.clear();
      wasQuoted = false;
    } else {
      f += c;
    }
  }
  out.push_back(f);
  return !quoted;
}

bool parseNumber(const std::string& s, double& v) {
  if (s == "nan") {
    v = std::nan("");
    return true;
  }
  return parseDecimal(s, v);
}

std::string recordLine(const StudyRecord& r) {
  std::string line = std::to_string(r.run) + "," + csvField(r.phase) + "," + (r.result.ok ? "ok" : "failed");
  for (double v : r.values) line += "," + number(v);
  for (double c : r.result.criteria) line += "," + number(c);
  return line + "," + csvField(oneLine(r.result.message)) + "\n";
}

struct Stopped {};

/// The run numbering, the results already in the file, and the file being appended to.
class Ledger {
 public:
  Ledger(const StudyContext& context, StudyExecutor& executor, const StudyRunOptions& options, StudyOutcome& outcome)
      : executor_(executor), options_(options), outcome_(outcome) {
    const Study& s = context.study;
    namespace fs = std::filesystem;
    // The fingerprint beside the results: a file of another project or other criteria is not resumed.
    const std::string fingerprintPath = s.resultsPath + ".fingerprint";
    const std::string fingerprint = studyFingerprint(context);
    if (!options.fresh && fs::exists(s.resultsPath)) {
      bool dropped = false;
      std::vector<StudyRecord> rows = readResults(s, s.resultsPath, &dropped);  // checks the columns first
      std::string stored;
      if (std::ifstream in{fingerprintPath}) std::getline(in, stored);
      if (stored.empty())
        note_ += s.resultsPath + " has no fingerprint (" + fingerprintPath + "): resumed as this study's\n";
      else if (stored != fingerprint)
        throw IoError(s.resultsPath + ": the project, the variables' cells, the criteria or the run settings changed since "
                      "these results were written (fingerprint " + stored + ", now " + fingerprint + "), so its runs are "
                      "not this study's; start over with --fresh or name another results file");
      for (StudyRecord& r : rows) cache_.emplace(keyOf(r.values), std::move(r));
      if (dropped) {
        // A row cut off while it was written: cut the file back to its last whole line.
        std::string text;
        {
          std::ifstream in(s.resultsPath, std::ios::binary);
          text.assign(std::istreambuf_iterator<char>(in), {});
        }
        const auto whole = text.rfind('\n');
        fs::resize_file(s.resultsPath, whole == std::string::npos ? 0 : whole + 1);
        note_ += "dropped the incomplete last line of " + s.resultsPath + "\n";
      }
    } else if (options.fresh && fs::exists(s.resultsPath)) {
      // Starting over replaces the old results as a whole (OutputFile), never by truncating them.
      writeFile(s.resultsPath, resultsHeader(s) + "\n", "study results file");
    }
    // An empty (or new) file gets the header first; every row reaches the disk as it is appended.
    file_ = std::make_unique<AppendFile>(s.resultsPath, resultsHeader(s) + "\n", "study results file");
    writeFile(fingerprintPath, fingerprint + "\n", "study fingerprint");
    start_ = std::chrono::steady_clock::now();
  }
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  const std::string& note() const { return note_; }
  /// Runs expected in all (for the time left); optimizations can only estimate it.
  void expect(long long runs) { expected_ = runs; }

  /// The results of the designs, in their order: known ones at once, the rest from the executor.
  /// @throws Stopped when the study was stopped before all of them finished.
  std::vector<const StudyRecord*> evaluate(const std::string& phase, const std::vector<std::vector<double>>& designs) {
    std::vector<std::size_t> at(designs.size());
    std::vector<std::vector<double>> todo;
    std::vector<std::size_t> todoRecord;
    for (std::size_t i = 0; i < designs.size(); ++i) {
      const std::string key = keyOf(designs[i]);
      const auto known = session_.find(key);
      if (known != session_.end()) {
        at[i] = known->second;
        continue;
      }
      StudyRecord r;
      r.run = ++nextRun_;
      r.phase = phase;
      r.values = designs[i];
      const auto cached = cache_.find(key);
      const bool isCached = cached != cache_.end();
      if (isCached) {
        r = cached->second;
        ++outcome_.cachedRuns;
      }
      at[i] = session_[key] = outcome_.records.size();
      outcome_.records.push_back(std::move(r));
      done_.push_back(isCached);
      if (isCached) {
        ++finished_;
        report(outcome_.records.back());
      } else {
        todo.push_back(designs[i]);
        todoRecord.push_back(at[i]);
      }
    }
    if (!todo.empty()) {
      if (budgetSpent()) throw Stopped{};
      // No more than the run budget allows, so a budget stops after exactly that many runs.
      if (options_.maxNewRuns >= 0 && static_cast<long long>(todo.size()) > options_.maxNewRuns - outcome_.newRuns)
        todo.resize(static_cast<std::size_t>(options_.maxNewRuns - outcome_.newRuns));
      stop_.store(false);
      executor_.evaluate(todo, [&](std::size_t k, const DesignResult& result) {
        if (result.cancelled) {  // stopped half-way: not a result; the design runs again on resume
          stop_.store(true);
          return;
        }
        StudyRecord& r = outcome_.records[todoRecord[k]];
        r.result = result;
        done_[todoRecord[k]] = true;
        const std::string line = recordLine(r);
        file_->append(line);
        ++outcome_.newRuns;
        ++finished_;
        report(r);
        if (budgetSpent()) stop_.store(true);
      }, stop_);
      for (std::size_t idx : todoRecord)
        if (!done_[idx]) throw Stopped{};
    }
    std::vector<const StudyRecord*> out;
    for (std::size_t i : at) out.push_back(&outcome_.records[i]);
    return out;
  }

 private:
  bool budgetSpent() const {
    return (options_.maxNewRuns >= 0 && outcome_.newRuns >= options_.maxNewRuns) ||
           (options_.stop && options_.stop->load());
  }
  void report(const StudyRecord& r) {
    if (!options_.progress) return;
    double left = -1.0;
    if (outcome_.newRuns > 0 && expected_ > 0) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      left = elapsed / outcome_.newRuns * std::max<long long>(0, expected_ - finished_);
    }
    options_.progress(finished_, std::max(expected_, finished_), left, r);
  }

  StudyExecutor& executor_;
  const StudyRunOptions& options_;
  StudyOutcome& outcome_;
  std::map<std::string, StudyRecord> cache_;
  std::map<std::string, std::size_t> session_;
  std::vector<bool> done_;
  long long nextRun_ = 0, finished_ = 0, expected_ = 0;
  std::unique_ptr<AppendFile> file_;
  std::atomic<bool> stop_{false};
  std::string note_;
  std::chrono::steady_clock::time_point start_;
};

// ---------------------------------------------------------------------------------------------
// Studies

std::vector<double> designOf(const Study& s, const std::vector<double>& unit) {
  std::vector<double> x(unit.size());
  for (std::size_t j = 0; j < unit.size(); ++j)
    x[j] = std::clamp(fromUnit(s.variables[j], unit[j]), s.variables[j].lower, s.variables[j].upper);
  return x;
}

/// The width of the name column of a summary: the longest variable or criterion name.
int nameWidth(const Study& s) {
  std::size_t w = 8;
  for (const auto& v : s.variables) w = std::max(w, v.name.size());
  for (const auto& c : s.criteria) w = std::max(w, c.name.size());
  return static_cast<int>(std::min<std::size_t>(w, 80));
}

/// One line per value, named by the variables' or criteria's names.
template <class Named>
std::string namedValues(const Study& s, const std::vector<Named>& names, const std::vector<double>& values, int digits) {
  std::string t;
  for (std::size_t k = 0; k < values.size(); ++k) {
    char b[300];
    ek::csnprintf(b, sizeof b, "    %-*s %.*g\n", nameWidth(s), names[k].name.c_str(), digits, values[k]);
    t += b;
  }
  return t;
}
std::string criteriaText(const Study& s, const std::vector<double>& c) { return namedValues(s, s.criteria, c, 6); }
std::string designText(const Study& s, const std::vector<double>& x) { return namedValues(s, s.variables, x, 8); }

void runDoe(const StudyContext& ctx, Ledger& ledger, StudyOutcome& out) {
  const Study& s = ctx.study;
  std::vector<std::vector<double>> plan;
  if (s.settings.plan == "full factorial") {
    std::vector<int> levels;
    for (const auto& v : s.variables) levels.push_back(v.levels);
    plan = fullFactorial(levels);
  } else {
    plan = latinHypercube(s.settings.points, static_cast<int>(s.variables.size()), s.settings.seed);
  }
  std::vector<std::vector<double>> designs;
  for (const auto& u : plan) designs.push_back(designOf(s, u));
  ledger.expect(static_cast<long long>(designs.size()));
  const auto records = ledger.evaluate("plan", designs);
  std::string t = "design of experiments: " + s.settings.plan + ", " + std::to_string(designs.size()) + " points\n";
  bool limited = false;
  for (const auto& c : s.criteria) limited = limited || c.hasLimit();
  if (limited) {
    long long meet = 0;
    for (const StudyRecord* r : records) {
      bool ok = r->result.ok;
      for (std::size_t i = 0; ok && i < s.criteria.size(); ++i) ok = s.criteria[i].withinLimits(r->result.criteria[i]);
      meet += ok ? 1 : 0;
    }
    t += "  runs that meet every limit: " + std::to_string(meet) + " of " + std::to_string(records.size()) + "\n";
  }
  for (std::size_t i = 0; i < s.criteria.size(); ++i) {
    const StudyRecord* lo = nullptr;
    const StudyRecord* hi = nullptr;
    for (const StudyRecord* r : records) {
      if (!r->result.ok) continue;
      if (!lo || r->result.criteria[i] < lo->result.criteria[i]) lo = r;
      if (!hi || r->result.criteria[i] > hi->result.criteria[i]) hi = r;
    }
    if (!lo) continue;
    char b[300];
    ek::csnprintf(b, sizeof b, "  %s: lowest %.6g (run %lld), highest %.6g (run %lld)\n", s.criteria[i].name.c_str(),
                  lo->result.criteria[i], lo->run, hi->result.criteria[i], hi->run);
    t += b;
  }
  out.summary += t;
}

void runSensitivity(const StudyContext& ctx, Ledger& ledger, StudyOutcome& out) {
  const Study& s = ctx.study;
  const std::vector<double>& x0 = ctx.startValues;
  const std::size_t n = x0.size();
  std::vector<double> h(n);
  std::vector<std::vector<double>> designs{x0};
  for (std::size_t j = 0; j < n; ++j) {
    h[j] = s.settings.relativeStep * (x0[j] != 0.0 ? std::abs(x0[j]) : s.variables[j].upper - s.variables[j].lower);
    for (double sign : {1.0, -1.0}) {
      designs.push_back(x0);
      designs.back()[j] += sign * h[j];
    }
  }
  ledger.expect(static_cast<long long>(designs.size()));
  const auto r = ledger.evaluate("sensitivity", designs);
  std::string t = "sensitivities at the start design (central differences, relative step " +
                  shortestText(s.settings.relativeStep) + "):\n";
  char b[600];
  int wc = 9, wv = 8;  // column widths: the longest names
  for (const auto& c : s.criteria) wc = std::max(wc, static_cast<int>(std::min<std::size_t>(c.name.size(), 60)));
  for (const auto& v : s.variables) wv = std::max(wv, static_cast<int>(std::min<std::size_t>(v.name.size(), 60)));
  ek::csnprintf(b, sizeof b, "  %-*s %-*s %14s %14s %12s\n", wc, "criterion", wv, "variable", "value", "dC/dx", "normalized");
  t += b;
  for (std::size_t i = 0; i < s.criteria.size(); ++i)
    for (std::size_t j = 0; j < n; ++j) {
      Sensitivity e;
      e.criterion = s.criteria[i].name;
      e.variable = s.variables[j].name;
      const StudyRecord* c = r[0];
      const StudyRecord* p = r[1 + 2 * j];
      const StudyRecord* m = r[2 + 2 * j];
      if (!c->result.ok || !p->result.ok || !m->result.ok) {
        e.message = "run " + std::to_string((!c->result.ok ? c : !p->result.ok ? p : m)->run) + " failed";
      } else {
        e.ok = true;
        e.value = c->result.criteria[i];
        e.derivative = (p->result.criteria[i] - m->result.criteria[i]) / (2.0 * h[j]);
        e.normalized = e.value != 0.0 ? e.derivative * x0[j] / e.value : std::nan("");
      }
      if (e.ok)
        ek::csnprintf(b, sizeof b, "  %-*s %-*s %14.6g %14.6g %12.4g\n", wc, e.criterion.c_str(), wv, e.variable.c_str(),
                      e.value, e.derivative, e.normalized);
      else
        ek::csnprintf(b, sizeof b, "  %-*s %-*s %s\n", wc, e.criterion.c_str(), wv, e.variable.c_str(), e.message.c_str());
      t += b;
      out.sensitivities.push_back(std::move(e));
    }
  out.summary += t;
}

nlopt::algorithm algorithmOf(const std::string& name) {
  if (name == "cobyla") return nlopt::LN_COBYLA;
  if (name == "sbplx") return nlopt::LN_SBPLX;
  if (name == "mma") return nlopt::LD_MMA;
  if (name == "slsqp") return nlopt::LD_SLSQP;
  if (name == "lbfgs") return nlopt::LD_LBFGS;
  if (name == "direct") return nlopt::GN_DIRECT_L;
  return nlopt::LN_BOBYQA;
}

bool usesGradient(const std::string& name) { return name == "mma" || name == "slsqp" || name == "lbfgs"; }

/// Minimizes sum_i weights[i] * C_i over the variables (normalized to [0, 1] for the optimizer).
OptimizationResult optimize(const StudyContext& ctx, Ledger& ledger, const std::string& objective,
                            const std::vector<double>& weights) {
  const Study& s = ctx.study;
  const std::size_t n = s.variables.size();
  const std::string phase = "optimize " + objective;
  const bool gradient = usesGradient(s.settings.algorithm);
  nlopt::opt opt(algorithmOf(s.settings.algorithm), static_cast<unsigned>(n));
  opt.set_lower_bounds(std::vector<double>(n, 0.0));
  opt.set_upper_bounds(std::vector<double>(n, 1.0));
  opt.set_xtol_abs(s.settings.tolerance);
  opt.set_maxeval(s.settings.maxEvaluations);
  if (!gradient && s.settings.algorithm != "direct") opt.set_initial_step(0.1);

  OptimizationResult res;
  res.objective = objective;
  res.start = ctx.startValues;
  bool haveBest = false, haveAny = false, constrained = false;
  for (const auto& c : s.criteria) constrained = constrained || c.hasLimit();
  double worst = 0.0;
  // The optimizer sees the objective divided by its value at the start, so that it is of order one
  // whatever the criteria's units (the gradient methods' tolerances are absolute).
  double scale = 1.0;
  std::exception_ptr failure;

  // The runs of a point and, with gradients, of its central-difference stencil (answered from the
  // session once run: the objective and every constraint share them).
  struct Stencil {
    std::vector<const StudyRecord*> r;
    std::vector<double> stepUp, stepDown;
  };
  auto stencil = [&](const std::vector<double>& u, bool withGradient) {
    Stencil st;
    std::vector<std::vector<double>> designs{designOf(s, u)};
    st.stepUp.assign(n, 0.0);
    st.stepDown.assign(n, 0.0);
    if (withGradient)
      for (std::size_t j = 0; j < n; ++j) {
        // Central differences inside, one-sided at a bound (the point itself on the other side).
        const double d = s.settings.gradientStep;
        std::vector<double> up = u, down = u;
        up[j] = std::min(1.0, u[j] + d);
        down[j] = std::max(0.0, u[j] - d);
        st.stepUp[j] = up[j] - u[j];
        st.stepDown[j] = u[j] - down[j];
        designs.push_back(designOf(s, up));
        designs.push_back(designOf(s, down));
      }
    st.r = ledger.evaluate(phase, designs);
    return st;
  };
  // value(record) of a linear function of the criteria, and its gradient from the stencil.
  auto gradientOf = [&](const Stencil& st, const std::function<double(const StudyRecord*)>& value, double v0,
                        std::vector<double>& grad, double divisor) {
    for (std::size_t j = 0; j < grad.size(); ++j) {
      const StudyRecord* up = st.r[1 + 2 * j];
      const StudyRecord* down = st.r[2 + 2 * j];
      // Central differences, or one-sided ones when a neighbour failed (or is u itself at a bound).
      const bool useUp = up->result.ok && st.stepUp[j] > 0.0, useDown = down->result.ok && st.stepDown[j] > 0.0;
      if (useUp && useDown) grad[j] = (value(up) - value(down)) / (st.stepUp[j] + st.stepDown[j]) / divisor;
      else if (useUp) grad[j] = (value(up) - v0) / st.stepUp[j] / divisor;
      else if (useDown) grad[j] = (v0 - value(down)) / st.stepDown[j] / divisor;
      else throw std::runtime_error("both runs of the gradient of " + s.variables[j].name + " failed (runs " +
                                    std::to_string(up->run) + ", " + std::to_string(down->run) + ")");
    }
  };
  auto combine = [&](const StudyRecord* r) {
    double f = 0.0;
    for (std::size_t i = 0; i < weights.size(); ++i)
      if (weights[i] != 0.0) f += weights[i] * r->result.criteria[i];
    return f;
  };
  auto feasible = [&](const StudyRecord* r) {
    for (std::size_t i = 0; i < s.criteria.size(); ++i)
      if (!s.criteria[i].withinLimits(r->result.criteria[i])) return false;
    return true;
  };
  // NLopt calls back through C: an exception must not cross it. The first one stops the optimizer
  // and is rethrown after it (failure).
  using Function = std::function<double(const std::vector<double>&, std::vector<double>&)>;
  auto guarded = [&](auto body) -> Function {
    return [&failure, &opt, body](const std::vector<double>& u, std::vector<double>& grad) -> double {
      try {
        return body(u, grad);
      } catch (...) {
        failure = std::current_exception();
        opt.force_stop();
        return 0.0;
      }
    };
  };
  Function f = guarded([&](const std::vector<double>& u, std::vector<double>& grad) -> double {
    const Stencil st = stencil(u, !grad.empty());
    const auto& r = st.r;
    ++res.evaluations;
    if (!r[0]->result.ok) {
      if (!haveAny) throw std::runtime_error("the start design failed (run " + std::to_string(r[0]->run) + "): " +
                                             r[0]->result.message);
      // A failed design: worse than anything seen, so the optimizer turns away from it.
      std::fill(grad.begin(), grad.end(), 0.0);
      return (worst + std::abs(worst) + 1.0) / scale;
    }
    const double value = combine(r[0]);
    if (!haveAny && value != 0.0) scale = std::abs(value);
    worst = haveAny ? std::max(worst, value) : value;
    haveAny = true;
    // The best design meets every limit (the start counts until one does).
    const bool ok = feasible(r[0]);
    if (!haveBest || (ok && (!res.bestFeasible || value < res.bestObjective))) {
      res.bestObjective = value;
      res.best = r[0]->values;
      res.bestCriteria = r[0]->result.criteria;
      res.bestFeasible = ok;
      haveBest = true;
    }
    if (res.evaluations == 1 && res.startCriteria.empty()) {
      res.startObjective = value;
      res.startCriteria = r[0]->result.criteria;
    }
    gradientOf(st, combine, value, grad, scale);
    return value / scale;
  });
  // Limits as constraints g(u) <= 0, each divided by its limit's size (1 for a limit of 0), so
  // that the optimizer's feasibility tolerance is relative.
  struct Limit {
    std::size_t criterion;
    double limit, sign;  // g = sign (C - limit) / |limit|
  };
  std::vector<Limit> limits;
  for (std::size_t i = 0; i < s.criteria.size(); ++i) {
    if (s.criteria[i].atMost) limits.push_back({i, *s.criteria[i].atMost, 1.0});
    if (s.criteria[i].atLeast) limits.push_back({i, *s.criteria[i].atLeast, -1.0});
  }
  std::vector<Function> constraints;
  for (const Limit& l : limits)
    constraints.push_back(guarded([&, l](const std::vector<double>& u, std::vector<double>& grad) -> double {
      if (failure) return 0.0;
      const Stencil st = stencil(u, !grad.empty());
      const double norm = l.limit != 0.0 ? std::abs(l.limit) : 1.0;  // a limit of 0: in the criterion's unit
      auto g = [&](const StudyRecord* r) { return l.sign * (r->result.criteria[l.criterion] - l.limit); };
      if (!st.r[0]->result.ok) {
        std::fill(grad.begin(), grad.end(), 0.0);
        return 1.0;  // a failed design counts as violating every limit
      }
      const double v = g(st.r[0]);
      gradientOf(st, g, v, grad, norm);
      return v / norm;
    }));
  auto call = [](const std::vector<double>& u, std::vector<double>& grad, void* data) {
    return (*static_cast<Function*>(data))(u, grad);
  };
  for (auto& c : constraints) opt.add_inequality_constraint(call, &c, 1e-6);
  opt.set_min_objective(call, &f);
  std::vector<double> u(n);
  for (std::size_t j = 0; j < n; ++j) u[j] = std::clamp(toUnit(s.variables[j], ctx.startValues[j]), 0.0, 1.0);
  // The start design first (a global method does not begin there): the before of the summary, and
  // the objective's scale. A local method's first request is the same design, answered at once.
  {
    std::vector<double> none;
    f(u, none);
    if (failure) std::rethrow_exception(failure);
    res.evaluations = 0;
  }
  double value = 0.0;
  nlopt::result code = nlopt::FAILURE;
  try {
    code = opt.optimize(u, value);
  } catch (const nlopt::roundoff_limited&) {
    code = nlopt::ROUNDOFF_LIMITED;
  } catch (const nlopt::forced_stop&) {
    code = nlopt::FORCED_STOP;
  }
  if (failure) std::rethrow_exception(failure);
  switch (code) {
    case nlopt::XTOL_REACHED: res.stopReason = "the variables changed by less than the tolerance"; break;
    case nlopt::FTOL_REACHED: res.stopReason = "the objective changed by less than the tolerance"; break;
    case nlopt::MAXEVAL_REACHED: res.stopReason = "the largest number of evaluations was reached"; break;
    case nlopt::ROUNDOFF_LIMITED: res.stopReason = "round-off limited the progress"; break;
    case nlopt::SUCCESS: case nlopt::STOPVAL_REACHED: res.stopReason = "converged"; break;
    default: res.stopReason = std::string("the optimizer stopped (") + nlopt_result_to_string(static_cast<nlopt_result>(code)) + ")";
  }
  if (constrained)
    res.stopReason += res.bestFeasible ? "; the best design meets every limit"
                                       : "; no design met every limit (the start is reported)";
  return res;
}

void runOptimization(const StudyContext& ctx, Ledger& ledger, StudyOutcome& out) {
  const Study& s = ctx.study;
  const std::size_t nc = s.criteria.size();
  const int perEvaluation = usesGradient(s.settings.algorithm) ? 1 + 2 * static_cast<int>(s.variables.size()) : 1;
  std::string t;
  auto describe = [&](const OptimizationResult& r) {
    char b[300];
    ek::csnprintf(b, sizeof b, "optimization of %s (%s, %d evaluations): %s\n  start: objective %.8g\n",
                  r.objective.c_str(), s.settings.algorithm.c_str(), r.evaluations, r.stopReason.c_str(), r.startObjective);
    std::string d = b;
    d += designText(s, r.start) + criteriaText(s, r.startCriteria);
    ek::csnprintf(b, sizeof b, "  best: objective %.8g (%.3g %% of the start)\n", r.bestObjective,
                  r.startObjective != 0.0 ? 100.0 * r.bestObjective / r.startObjective : std::nan(""));
    d += b;
    return d + designText(s, r.best) + criteriaText(s, r.bestCriteria);
  };
  if (s.settings.objective != "multi") {
    std::vector<double> w(nc, 0.0);
    for (std::size_t i = 0; i < nc; ++i) w[i] = s.criteria[i].name == s.settings.objective ? 1.0 : 0.0;
    ledger.expect(static_cast<long long>(s.settings.maxEvaluations) * perEvaluation);
    out.optimizations.push_back(optimize(ctx, ledger, s.settings.objective, w));
    t += describe(out.optimizations.back());
  } else {
    // Paper 001 eq. (25): psi = sum w_i psi_i / psi_i*, the weights normalized to sum 1 and each
    // criterion divided by its single-criterion optimum psi_i* (computed here unless given).
    double sum = 0.0;
    int singles = 1;
    for (const auto& c : s.criteria) {
      sum += c.weight;
      if (c.weight > 0.0 && !c.optimum) ++singles;
    }
    ledger.expect(static_cast<long long>(s.settings.maxEvaluations) * perEvaluation * singles);
    out.normalization.assign(nc, 0.0);
    for (std::size_t i = 0; i < nc; ++i) {
      const StudyCriterion& c = s.criteria[i];
      if (c.weight <= 0.0) continue;
      if (c.optimum) {
        out.normalization[i] = *c.optimum;
        continue;
      }
      std::vector<double> w(nc, 0.0);
      w[i] = 1.0;
      out.optimizations.push_back(optimize(ctx, ledger, c.name, w));
      t += describe(out.optimizations.back());
      out.normalization[i] = out.optimizations.back().bestObjective;
      if (!(out.normalization[i] > 0.0))
        throw std::runtime_error("the optimum of " + c.name + " is " + shortestText(out.normalization[i]) +
                                 ": the multi-criterion divides by it, so it must be positive (give \"optimum\")");
    }
    std::vector<double> w(nc, 0.0);
    t += "multi-criterion (paper 001 eq. 25): sum of";
    for (std::size_t i = 0; i < nc; ++i)
      if (s.criteria[i].weight > 0.0) {
        w[i] = s.criteria[i].weight / sum / out.normalization[i];
        char b[200];
        ek::csnprintf(b, sizeof b, " %.3g %s/%.6g", s.criteria[i].weight / sum, s.criteria[i].name.c_str(),
                      out.normalization[i]);
        t += b;
      }
    t += "\n";
    out.optimizations.push_back(optimize(ctx, ledger, "multi", w));
    t += describe(out.optimizations.back());
  }
  // The best design of the study's objective, as a new project file.
  const OptimizationResult& last = out.optimizations.back();
  Project best = applyDesign(ctx, last.best);
  best.description += (best.description.empty() ? "" : " ") + std::string("Best design of the study ") + s.path +
                      " (objective " + last.objective + ").";
  writeProject(best, s.bestProjectPath);
  out.bestProjectPath = s.bestProjectPath;
  t += "best design written to " + s.bestProjectPath + "\n";
  out.summary += t;
}

void runEvaluate(const StudyContext& ctx, Ledger& ledger, StudyOutcome& out) {
  ledger.expect(1);
  const auto r = ledger.evaluate("evaluate", {ctx.startValues});
  out.summary += "the start design (run " + std::to_string(r[0]->run) + "):\n" + designText(ctx.study, ctx.startValues);
  out.summary += r[0]->result.ok ? criteriaText(ctx.study, r[0]->result.criteria) : "  failed: " + r[0]->result.message + "\n";
}

}  // namespace

std::string resultsHeader(const Study& s) {
  std::string h = "run,phase,status";
  for (const auto& v : s.variables) h += "," + csvField(v.name);
  for (const auto& c : s.criteria) h += "," + csvField(c.name);
  return h + ",message";
}

StudyOutcome runStudy(const StudyContext& context, StudyExecutor& executor, const StudyRunOptions& options) {
  StudyOutcome out;
  Ledger ledger(context, executor, options, out);
  out.summary = ledger.note();
  try {
    switch (context.study.settings.type) {
      case StudyType::Evaluate: runEvaluate(context, ledger, out); break;
      case StudyType::Doe: runDoe(context, ledger, out); break;
      case StudyType::Sensitivity: runSensitivity(context, ledger, out); break;
      case StudyType::Optimization: runOptimization(context, ledger, out); break;
    }
  } catch (const Stopped&) {
    out.stopped = true;
    out.summary += "stopped after " + std::to_string(out.newRuns) + " new runs; run the study again to resume\n";
  }
  // Runs a stop left unfinished are not part of the outcome (nor of the results file).
  const std::size_t nc = context.study.criteria.size();
  out.records.erase(std::remove_if(out.records.begin(), out.records.end(),
                                   [&](const StudyRecord& r) { return r.result.criteria.size() != nc; }),
                    out.records.end());
  for (const StudyRecord& r : out.records) out.failedRuns += r.result.ok ? 0 : 1;
  std::sort(out.records.begin(), out.records.end(), [](const StudyRecord& a, const StudyRecord& b) { return a.run < b.run; });
  return out;
}

std::vector<StudyRecord> readResults(const Study& s, const std::string& path, bool* dropped) {
  std::string text;
  try {
    text = readTextFile(path, std::uintmax_t(4) << 30, "study results file");
  } catch (const ModelError& e) {
    throw IoError(e.what());
  }
  if (dropped) *dropped = false;
  std::vector<StudyRecord> out;
  std::size_t pos = 0;
  int lineNo = 0;
  std::vector<std::string> f;
  const std::size_t nv = s.variables.size(), nc = s.criteria.size();
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    ++lineNo;
    if (end == std::string::npos) {
      if (dropped) *dropped = true;  // cut off while written
      break;
    }
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineNo == 1) {
      if (line != resultsHeader(s))
        throw IoError(path + ": line 1: the columns are not this study's (" + line.substr(0, 120) +
                      "); move the file away, or name another results file in the study");
      continue;
    }
    if (line.empty()) continue;
    auto bad = [&](const std::string& what) {
      return IoError(path + ": line " + std::to_string(lineNo) + ": " + what);
    };
    if (!splitCsv(line, f) || f.size() != 4 + nv + nc)
      throw bad("expected " + std::to_string(4 + nv + nc) + " fields, found " + std::to_string(f.size()));
    StudyRecord r;
    if (!parseInteger(f[0], r.run, 1, std::numeric_limits<long long>::max()))
      throw bad("the run number '" + printableExcerpt(f[0]) + "' is not a whole number from 1");
    r.phase = f[1];
    if (f[2] != "ok" && f[2] != "failed") throw bad("the status '" + printableExcerpt(f[2]) + "' is neither ok nor failed");
    r.result.ok = f[2] == "ok";
    r.values.resize(nv);
    r.result.criteria.resize(nc);
    for (std::size_t j = 0; j < nv + nc; ++j) {
      double& v = j < nv ? r.values[j] : r.result.criteria[j - nv];
      if (!parseNumber(f[3 + j], v)) throw bad("field " + std::to_string(4 + j) + " '" + f[3 + j] + "' is not a number");
    }
    r.result.message = f.back();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ek
