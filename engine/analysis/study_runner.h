// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file study_runner.h
/// Running a study (docs/studies.md): the designs of its type (one design, a sensitivity stencil,
/// a plan, or an optimizer's requests), evaluated by an executor (threads here, MPI ranks in the
/// study runner program), each finished run appended to the results file at once, so a stopped
/// study resumes without repeating a finished run. Runs are numbered in the order the study asks
/// for them, not the order they finish, so every executor writes the same rows.

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/analysis/study.h"

namespace ek {

/// Evaluates batches of designs.
class StudyExecutor {
 public:
  using Done = std::function<void(std::size_t index, const DesignResult& result)>;
  virtual ~StudyExecutor() = default;
  /// Evaluates every design of the batch, calling `done` on the calling thread as each one
  /// finishes (in any order). Stops starting new designs once `stop` is set (those in flight
  /// finish and are reported).
  virtual void evaluate(const std::vector<std::vector<double>>& designs, const Done& done,
                        const std::atomic<bool>& stop) = 0;
  /// How many designs run at once.
  virtual int width() const = 0;
  virtual std::string describe() const = 0;
};

/// One simulation per thread, `threads` at once.
class ThreadExecutor : public StudyExecutor {
 public:
  ThreadExecutor(const StudyContext& context, int threads);
  void evaluate(const std::vector<std::vector<double>>& designs, const Done& done, const std::atomic<bool>& stop) override;
  int width() const override { return threads_; }
  std::string describe() const override;

 private:
  const StudyContext& context_;
  int threads_;
};

/// One row of the results file.
struct StudyRecord {
  long long run = 0;  ///< from 1, in the order the study asked for the designs
  std::string phase;  ///< "plan", "nominal", "sensitivity", "optimize <criterion>", "optimize multi", ...
  std::vector<double> values;
  DesignResult result;
};

/// A criterion's derivatives at the nominal design (sensitivity studies).
struct Sensitivity {
  std::string criterion, variable;
  double value = 0.0;       ///< the criterion at the nominal design
  double derivative = 0.0;  ///< dC/dx by central differences
  double normalized = 0.0;  ///< (dC/dx) x / C: the % change of C per % change of x
  bool ok = false;
  std::string message;
};

/// The result of one optimization (a single criterion's, or the multi-criterion's).
struct OptimizationResult {
  std::string objective;
  std::vector<double> start, best;
  double startObjective = 0.0, bestObjective = 0.0;
  bool bestFeasible = true;  ///< the best design meets every criterion's limits
  std::vector<double> startCriteria, bestCriteria;
  int evaluations = 0;
  std::string stopReason;
};

struct StudyOutcome {
  bool stopped = false;     ///< stopped before it finished (a stop request, or the run budget)
  long long newRuns = 0;    ///< runs evaluated by this call
  long long cachedRuns = 0; ///< designs answered from the results file
  long long failedRuns = 0; ///< of all runs of the study
  std::vector<StudyRecord> records;  ///< every run of the study, by run number
  std::vector<Sensitivity> sensitivities;
  std::vector<OptimizationResult> optimizations;  ///< single criteria first, then the multi-criterion
  std::vector<double> normalization;              ///< multi: each criterion's optimum (0: weight 0)
  std::string bestProjectPath;                    ///< written, when an optimization finished
  std::string summary;                            ///< for people: what was found
};

struct StudyRunOptions {
  bool fresh = false;            ///< ignore (replace) an existing results file instead of resuming
  long long maxNewRuns = -1;     ///< stop after this many new runs (negative: no limit)
  const std::atomic<bool>* stop = nullptr;  ///< set from outside to stop (runs in flight finish)
  /// After every finished run: runs done (cached included), runs expected (an estimate for
  /// optimizations), seconds left (negative: unknown), the record.
  std::function<void(long long done, long long expected, double secondsLeft, const StudyRecord&)> progress;
};

/// Runs the study. The results file is created (with a header naming the columns) or, when it
/// exists with the same columns, resumed: its runs are not repeated. The best design of an
/// optimization is written as a new project file (never over the study's project).
/// @throws IoError (the results file cannot be written, or it belongs to another study),
///   std::runtime_error from the optimizer.
StudyOutcome runStudy(const StudyContext& context, StudyExecutor& executor, const StudyRunOptions& options = {});

/// The results file's header line (without newline).
std::string resultsHeader(const Study& study);
/// Reads a results file's rows (run, phase, status, values, criteria, message). A last line without
/// its newline (a run cut off while written) is left out and reported in `dropped`.
/// @throws IoError for a file of another study or a malformed row (naming file and line).
std::vector<StudyRecord> readResults(const Study& study, const std::string& path, bool* dropped = nullptr);

}  // namespace ek
