// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file study.h
/// A parameter study as the study file describes it (docs/studies.md, resources/study.schema.json):
/// the project, design variables (table cells by path), criteria (functionals of output channels
/// over a load case), the study type and its settings; and the evaluation of one design, which is
/// what every study is made of. Running a study (plans, sensitivities, optimization, results file)
/// is study_runner.h.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/analysis/criteria.h"
#include "engine/analysis/kc_measured.h"
#include "engine/core/error.h"
#include "engine/model/project.h"

namespace ek {

struct StudyVariable {
  std::string name;                ///< the results file's column; default: the path
  std::string path;                ///< table_path.h
  std::vector<std::string> twins;  ///< cells set to the same value (given, and found by "symmetric")
  bool symmetric = false;          ///< the row's left/right twin (its name with left and right swapped)
  double lower = 0.0, upper = 0.0;
  bool logScale = false;           ///< plans and the optimizer work on log(value)
  std::optional<double> start;     ///< default: the project's value
  int levels = 3;                  ///< full factorial plans
};

/// A criterion: a functional of an output channel over a load case, or a K&C metric of the design
/// position ("kind": "kc metric": bump steer, wheel rate, roll centre, compliances, ...,
/// analysis.h's designMetrics, in the unit it is reported in).
struct StudyCriterion {
  std::string name;
  bool kcMetric = false;
  std::string metric, wheel;  ///< kc metric: its name and wheel (empty: an axle metric)
  /// "kind": "kc measured": the deviation of a K&C sweep of the design from a rig's measured one
  /// (docs/studies.md): RMS (or the largest) of computed - measured of `channel`, in deg or mm.
  bool kcMeasured = false;
  std::string analysis;  ///< parallel-travel, opposite-travel, single-travel (wheel), static-load (load)
  std::string load;      ///< static-load: fx-contact, fy-contact, ... (every wheel, or `wheel`)
  std::string file;      ///< the measured CSV, resolved against the study file
  std::vector<std::pair<std::string, std::string>> mapping;  ///< "map": {column: channel}
  bool maxDeviation = false;  ///< "measure": "max"; else "rms"
  int sweepPoints = 41;       ///< points of the computed sweep over the measured range
  std::shared_ptr<const MeasuredKc> measured;  ///< read with the study
  bool absolute = false;      ///< the criterion is |value| (with a reference: the distance to a target)
  std::string loadCase;
  std::string channel;
  std::string minusChannel;  ///< optional: the criterion is of channel - minusChannel
  double reference = 0.0;    ///< subtracted from the channel (e.g. its static value)
  bool referenceAtStart = false;  ///< "reference": "window start": the channel's value where the window starts
  double scale = 1.0;        ///< the channel is divided by it (paper 001's s0)
  Criterion criterion;
  double weight = 0.0;               ///< in the multi-criterion (weights are normalized to sum 1)
  std::optional<double> optimum;     ///< its single-criterion optimum, when known (else computed)
  /// Limits: an optimization keeps the criterion at most / at least this (inequality constraints,
  /// COBYLA or SLSQP); a DOE counts the runs that meet every limit.
  std::optional<double> atMost, atLeast;
  bool hasLimit() const { return atMost || atLeast; }
  /// The criterion value meets its limits.
  bool withinLimits(double value) const { return (!atMost || value <= *atMost) && (!atLeast || value >= *atLeast); }
};

enum class StudyType { Evaluate, Sensitivity, Doe, Optimization };
const char* toString(StudyType type);

struct StudySettings {
  StudyType type = StudyType::Evaluate;
  // design of experiments
  std::string plan = "latin hypercube";  ///< or "full factorial"
  int points = 16;
  unsigned seed = 1;
  // sensitivity
  double relativeStep = 1e-3;  ///< of the value (of the range for a value of zero)
  // optimization
  std::string algorithm = "bobyqa";  ///< bobyqa, cobyla, sbplx (local), direct (global); mma, slsqp, lbfgs (gradients)
  std::string objective;             ///< a criterion's name, or "multi" (paper 001 eq. 25)
  int maxEvaluations = 200;          ///< per optimization (each gradient counts 2 n + 1 runs)
  double tolerance = 1e-4;           ///< relative change of the variables (normalized to their range)
  double gradientStep = 1e-4;        ///< central differences, of the normalized range
  /// The project's K&C targets become criteria with limits (weight 0): "target ID: metric (wheel)".
  bool targetsAsLimits = false;
};

/// The run of each load case (the project's step unless given).
struct StudyRunSettings {
  double dt = -1.0;               ///< [s]; negative: the project's step
  int linearizeEvery = 1;
  std::string integrator = "lsrt2";
  double relativeTolerance = 1e-9;  ///< CVODE
  double duration = -1.0;           ///< [s]: each load case's first `duration` seconds; negative: all of it
};

struct Study {
  std::string path;         ///< the study file
  std::string projectPath;  ///< resolved against the study file's folder
  std::vector<StudyVariable> variables;
  std::vector<StudyCriterion> criteria;
  StudySettings settings;
  StudyRunSettings run;
  std::string resultsPath;      ///< resolved; default: STUDY.results.csv beside the study
  std::string bestProjectPath;  ///< resolved; default: STUDY.best.json beside the study

  /// The load cases the criteria need, in the order of first use (K&C metrics need none).
  std::vector<std::string> loadCases() const;
};

/// The files a study writes (its results, their fingerprint, the best project) that are files it
/// reads (the study, the project, the project's signal tables) or each other: (the field, the
/// message) per conflict, e.g. ("best project", "P is the study's project; ...").
std::vector<std::pair<std::string, std::string>> studyOutputConflicts(const Study& study, const Project& project);

/// Reads and checks a study file against its project (which it reads): every problem of the file
/// in one pass, each naming the study file, the entry (table, row number from 1, name) and field:
/// unknown keys, wrong types, an unknown variable path or one that is not a number, bounds
/// reversed or a start outside them, unknown channels and load cases, criterion windows outside the
/// load case, an unknown objective or algorithm.
/// @throws ModelError with all of them; IoError when a file cannot be read.
Study readStudy(const std::string& path);
Study parseStudy(const std::string& text, const std::string& path);

/// The result of one design: every criterion's value in the study's order, or the failure.
struct DesignResult {
  bool ok = false;
  bool cancelled = false;  ///< stopped by StudyContext::cancel: no result (not a failure; run it again)
  std::vector<double> criteria;
  std::string message;  ///< why it failed
};

/// What every evaluation shares, read-only (each evaluation builds its own model and runs its own
/// simulations: nothing mutable is shared, so evaluations may run on any number of threads).
struct StudyContext {
  Study study;
  Project project;                    ///< as read
  std::vector<double> projectValues;  ///< each variable's value in the project
  std::vector<double> startValues;    ///< the start or the project's value
  /// Set from outside (a signal, the workbench's Stop) to end every evaluation within a few
  /// hundred microseconds of compute: runs stop between steps and report `cancelled`.
  const std::atomic<bool>* cancel = nullptr;
};

/// Reads the study and its project. @throws as readStudy().
StudyContext loadStudy(const std::string& path);
/// A study from its text (named `path` in messages; relative files are relative to it), on
/// `project` when given (the workbench's, edited or not yet saved) instead of its "project" file.
StudyContext studyContext(const std::string& text, const std::string& path, const Project* project);

/// The project with the design's values set (variables and their twins).
/// @throws std::invalid_argument (table_path.h)
Project applyDesign(const StudyContext& context, const std::vector<double>& values);

/// Runs every load case the criteria need with the design's values and evaluates the criteria.
/// Never throws for a design the model rejects or a run that diverges: the result says why.
DesignResult evaluateDesign(const StudyContext& context, const std::vector<double>& values);

/// What the results of a design depend on, as 16 hex digits (FNV-1a, 64 bits): the project's
/// tables (signal tables' points included), the variables' names and cells, the criteria's
/// definitions and the run settings; not the study type, plan or weights, which choose designs
/// but do not change a design's result. A results file is resumed only with the same fingerprint.
std::string studyFingerprint(const StudyContext& context);

/// A variable's value from a point u in [0, 1] of its range (linear, or log for logScale), and back.
double fromUnit(const StudyVariable& v, double u);
double toUnit(const StudyVariable& v, double value);

}  // namespace ek
