// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/analysis/study.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "engine/analysis/kc.h"
#include "engine/analysis/simulation.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "engine/core/text_file.h"
#include "engine/model/json_reader.h"
#include "engine/model/model.h"
#include "engine/model/project_io.h"
#include "engine/model/signal.h"
#include "engine/model/table_path.h"
#include "engine/model/validate.h"

namespace ek {

namespace {

constexpr const char* kFormat = "elastokin-study";
constexpr int kVersion = 1;
constexpr int kMaxDepth = 16;                        // a study needs 4
constexpr std::size_t kMaxStudyBytes = 16u << 20;    // 16 MiB
constexpr int kMaxPoints = 1000000;

constexpr EnumName<StudyType> kTypes[] = {{StudyType::Evaluate, "evaluate"},
                               {StudyType::Sensitivity, "sensitivity"},
                               {StudyType::Doe, "doe"},
                               {StudyType::Optimization, "optimization"}};
constexpr const char* kAlgorithms[] = {"bobyqa", "cobyla", "sbplx", "direct", "mma", "slsqp", "lbfgs"};
constexpr const char* kPlans[] = {"latin hypercube", "full factorial"};
constexpr const char* kIntegrators[] = {"lsrt2", "cvode", "ros34pw2", "lie", "bdf2", "galpha"};

template <std::size_t N>
bool oneOf(const std::string& s, const char* const (&list)[N]) {
  for (const char* x : list)
    if (s == x) return true;
  return false;
}
template <std::size_t N>
std::string listed(const char* const (&list)[N]) {
  std::string s;
  for (const char* x : list) s += (s.empty() ? "'" : ", '") + std::string(x) + "'";
  return s;
}

std::string resolve(const std::string& studyPath, const std::string& file) {
  namespace fs = std::filesystem;
  if (file.empty() || fs::path(file).is_absolute()) return file;
  return (fs::path(studyPath).parent_path() / file).lexically_normal().string();
}

std::string defaultBeside(const std::string& studyPath, const std::string& suffix) {
  namespace fs = std::filesystem;
  fs::path p(studyPath);
  return (p.parent_path() / (p.stem().string() + suffix)).string();
}

/// A study table's entry in messages: its number from 1 and its name.
void nameEntry(const Json& row, std::size_t index, Location& w) {
  w.row = std::to_string(index + 1);
  if (row.is_object() && row.contains("name") && row["name"].is_string()) w.rowName = row["name"].get<std::string>();
}

Location entry(const std::string& file, const char* table, std::size_t index, const Json& row) {
  Location w{file, table, "", ""};
  nameEntry(row, index, w);
  return w;
}

/// A name that becomes a results file's column: no control characters (a line break in a column
/// name makes the file unreadable, so the study could never resume).
void checkColumnName(ObjectReader& r, const std::string& name, const char* field) {
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) {
      r.fail(field, "'" + printableExcerpt(name) + "' holds a control character; names become the results file's columns");
      return;
    }
}

void readVariable(ObjectReader& r, StudyVariable& v) {
  v.path = r.string("path");
  v.name = r.string("name", v.path);
  checkColumnName(r, v.name, r.has("name") ? "name" : "path");
  v.lower = r.number("lower");
  v.upper = r.number("upper");
  const std::string scale = r.string("scale", "linear");
  if (scale != "linear" && scale != "log") r.fail("scale", "expected 'linear' or 'log', found '" + printableExcerpt(scale) + "'");
  v.logScale = scale == "log";
  if (r.has("start")) v.start = r.number("start");
  v.symmetric = r.boolean("symmetric", false);
  if (r.has("twins")) {
    const Json& t = r.raw("twins");
    if (!t.is_array()) {
      r.fail("twins", "expected an array of cell paths, found " + ObjectReader::describe(t));
    } else {
      for (const Json& x : t) {
        if (x.is_string())
          v.twins.push_back(x.get<std::string>());
        else
          r.fail("twins", "expected a cell path (a string), found " + ObjectReader::describe(x));
      }
    }
  }
  if (r.has("levels")) {
    v.levels = r.integer("levels");
    if (v.levels < 1 || v.levels > 1000) r.fail("levels", "must be 1 to 1000, found " + std::to_string(v.levels));
  }
  if (v.lower >= v.upper) r.fail("upper", "the bounds are reversed or equal: lower " + shortestText(v.lower) +
                                              ", upper " + shortestText(v.upper) + " (need lower < upper)");
  else if (!std::isfinite(v.upper - v.lower))
    r.fail("upper", "the range from " + shortestText(v.lower) + " to " + shortestText(v.upper) +
                        " is wider than a number can hold; plans and the optimizer work on upper - lower");
  else if (v.logScale && v.lower <= 0.0) r.fail("lower", "a log scale needs a positive lower bound");
  if (v.start && (*v.start < v.lower || *v.start > v.upper))
    r.fail("start", "the start " + shortestText(*v.start) + " is outside the bounds [" + shortestText(v.lower) + ", " +
                        shortestText(v.upper) + "]");
}

/// What every criterion has: weight and optimum (the multi-criterion), limits and absolute value.
void readCommon(ObjectReader& r, StudyCriterion& c) {
  c.absolute = r.boolean("absolute", false);
  c.weight = r.number("weight", 0.0);
  if (c.weight < 0.0) r.fail("weight", "must not be negative");
  if (r.has("optimum")) {
    c.optimum = r.number("optimum");
    if (*c.optimum <= 0.0) r.fail("optimum", "must be positive (criteria are divided by it)");
  }
  if (r.has("at most")) c.atMost = r.number("at most");
  if (r.has("at least")) c.atLeast = r.number("at least");
  if (c.atMost && c.atLeast && *c.atLeast > *c.atMost)
    r.fail("at least", "the limits exclude every value: at least " + shortestText(*c.atLeast) + ", at most " +
                           shortestText(*c.atMost));
}

void readCriterion(ObjectReader& r, StudyCriterion& c) {
  c.name = r.string("name");
  checkColumnName(r, c.name, "name");
  c.kcMetric = r.has("kind") && r.raw("kind").is_string() && r.raw("kind").get<std::string>() == "kc metric";
  c.kcMeasured = r.has("kind") && r.raw("kind").is_string() && r.raw("kind").get<std::string>() == "kc measured";
  readCommon(r, c);
  if (c.kcMeasured) {
    // A K&C sweep of the design against a rig's measurement: no load case or window.
    (void)r.string("kind");
    c.analysis = r.string("analysis");
    static const char* const kSweeps[] = {"parallel-travel", "opposite-travel", "single-travel", "static-load"};
    if (!oneOf(c.analysis, kSweeps))
      r.fail("analysis", "unknown K&C sweep '" + printableExcerpt(c.analysis) + "' (known: " + listed(kSweeps) + ")");
    c.file = r.string("file");
    c.channel = r.string("channel");
    c.wheel = r.string("wheel", "");
    c.load = r.string("load", "");
    if (c.analysis == "single-travel" && c.wheel.empty()) r.fail("wheel", "single-travel needs the moving wheel's name");
    if (c.analysis == "static-load" && wheelLoadByKey(c.load) < 0)
      r.fail("load", "static-load needs 'load': fx-contact, fy-contact, fz-contact, mx, my, mz or fx-centre");
    const std::string measure = r.string("measure", "rms");
    if (measure != "rms" && measure != "max") r.fail("measure", "expected \"rms\" or \"max\", found '" + printableExcerpt(measure) + "'");
    c.maxDeviation = measure == "max";
    if (r.has("points")) {
      c.sweepPoints = r.integer("points");
      if (c.sweepPoints < 3 || c.sweepPoints > 1001) r.fail("points", "must be 3 to 1001");
    }
    if (r.has("map")) {
      const Json& map = r.raw("map");
      if (!map.is_object()) r.fail("map", "expected an object {\"column\": \"channel\", ...}");
      for (auto it = map.begin(); map.is_object() && it != map.end(); ++it) {
        if (!it.value().is_string()) r.fail("map", "the channel of '" + printableExcerpt(it.key()) + "' must be a string");
        else c.mapping.emplace_back(it.key(), it.value().get<std::string>());
      }
    }
    return;
  }
  if (c.kcMetric) {
    // A figure of the design position: no load case, channel or window.
    c.metric = r.string("metric");
    c.wheel = r.string("wheel", "");
    (void)r.string("kind");
    c.reference = r.number("reference", 0.0);
    c.scale = r.number("scale", 1.0);
    if (c.scale == 0.0) r.fail("scale", "must not be zero (the metric is divided by it)");
    return;
  }
  c.loadCase = r.string("load case");
  c.channel = r.string("channel");
  c.minusChannel = r.string("minus channel", "");
  if (r.has("reference") && r.raw("reference").is_string()) {
    const std::string ref = r.string("reference");
    c.referenceAtStart = ref == "window start";
    if (!c.referenceAtStart) r.fail("reference", "expected a number or \"window start\", found '" + printableExcerpt(ref) + "'");
  } else {
    c.reference = r.number("reference", 0.0);
  }
  c.scale = r.number("scale", 1.0);
  if (c.scale == 0.0) r.fail("scale", "must not be zero (the channel is divided by it)");
  const std::string kind = r.string("kind");
  if (!kind.empty() && !parseCriterionKind(kind, c.criterion.kind))
    r.fail("kind", "unknown criterion '" + kind +
                       "' (known: 'rms', 'max', 'max abs', 'peak to peak', 'integral square', 'weighted integral', "
                       "'value at', 'settling time', 'kc metric')");
  Criterion& k = c.criterion;
  k.from = r.number("from [s]", 0.0);
  k.to = r.number("to [s]", 1e300);
  if (k.from < 0.0) r.fail("from [s]", "must not be negative");
  if (k.to <= k.from) r.fail("to [s]", "the window ends before it starts (from " + shortestText(k.from) + " s)");
  const bool weighted = k.kind == CriterionKind::WeightedIntegral;
  if (r.has("time power") || weighted) k.weightPower = r.number("time power", 0.0);
  if (r.has("derivative") || weighted) k.derivative = r.has("derivative") ? r.integer("derivative") : 0;
  k.exponent = r.number("exponent", 2.0);
  if (k.derivative < 0 || k.derivative > 2) r.fail("derivative", "must be 0, 1 or 2");
  if (k.weightPower < 0.0) r.fail("time power", "must not be negative");
  if (k.exponent <= 0.0) r.fail("exponent", "must be positive");
  if (k.kind == CriterionKind::ValueAt) k.time = r.number("time [s]");
  k.band = r.number("band", 0.02);
  if (k.band <= 0.0 || k.band >= 1.0) r.fail("band", "must be between 0 and 1 (a share of the range)");
}

void readSettings(ObjectReader& r, StudySettings& s) {
  const std::string type = r.string("type");
  s.targetsAsLimits = r.boolean("targets as limits", false);
  if (!valueOf(kTypes, type, s.type) && !type.empty())
    r.fail("type", "unknown study type '" + printableExcerpt(type) + "' (known: 'evaluate', 'sensitivity', 'doe', 'optimization')");
  if (s.type == StudyType::Doe) {
    s.plan = r.string("plan", s.plan);
    if (!oneOf(s.plan, kPlans)) r.fail("plan", "unknown plan '" + printableExcerpt(s.plan) + "' (known: " + listed(kPlans) + ")");
    if (s.plan == "latin hypercube") {
      s.points = r.integer("points");
      if (s.points < 1 || s.points > kMaxPoints)
        r.fail("points", "must be 1 to " + std::to_string(kMaxPoints) + ", found " + std::to_string(s.points));
      if (r.has("seed")) {
        const int seed = r.integer("seed");
        if (seed < 0) r.fail("seed", "must not be negative");
        s.seed = static_cast<unsigned>(std::max(seed, 0));
      }
    }
  } else if (s.type == StudyType::Sensitivity) {
    s.relativeStep = r.number("relative step", s.relativeStep);
    if (s.relativeStep <= 0.0 || s.relativeStep > 0.1) r.fail("relative step", "must be in (0, 0.1]");
  } else if (s.type == StudyType::Optimization) {
    s.algorithm = r.string("algorithm", s.algorithm);
    if (!oneOf(s.algorithm, kAlgorithms))
      r.fail("algorithm", "unknown algorithm '" + printableExcerpt(s.algorithm) + "' (known: " + listed(kAlgorithms) + ")");
    s.objective = r.string("objective");
    s.maxEvaluations = r.has("max evaluations") ? r.integer("max evaluations") : s.maxEvaluations;
    if (s.maxEvaluations < 1) r.fail("max evaluations", "must be at least 1");
    s.tolerance = r.number("tolerance", s.tolerance);
    if (s.tolerance <= 0.0 || s.tolerance >= 1.0) r.fail("tolerance", "must be in (0, 1)");
    s.gradientStep = r.number("gradient step", s.gradientStep);
    if (s.gradientStep <= 0.0 || s.gradientStep > 0.1) r.fail("gradient step", "must be in (0, 0.1]");
  }
}

void readRunSettings(ObjectReader& r, StudyRunSettings& s) {
  s.dt = r.number("step [s]", s.dt);
  if (r.has("step [s]") && !(s.dt > 0.0)) r.fail("step [s]", "must be positive");
  if (r.has("linearize every")) {
    s.linearizeEvery = r.integer("linearize every");
    if (s.linearizeEvery < 1) r.fail("linearize every", "must be at least 1");
  }
  s.integrator = r.string("integrator", s.integrator);
  if (!oneOf(s.integrator, kIntegrators))
    r.fail("integrator", "unknown integrator '" + printableExcerpt(s.integrator) + "' (known: " + listed(kIntegrators) + ")");
  s.duration = r.number("duration [s]", s.duration);
  if (r.has("duration [s]") && !(s.duration > 0.0)) r.fail("duration [s]", "must be positive");
  s.relativeTolerance = r.number("relative tolerance", s.relativeTolerance);
  if (s.relativeTolerance <= 0.0 || s.relativeTolerance >= 1.0) r.fail("relative tolerance", "must be in (0, 1)");
}

/// The K&C sweep of a "kc measured" criterion over [from, to]. @throws std::invalid_argument for
/// a wheel the model does not have.
KcOptions measuredSweepOptions(const StudyCriterion& c, const SuspensionModel& model, double from, double to, int points) {
  KcKind kind = KcKind::ParallelTravel;
  parseKcKind(c.analysis, kind);
  KcOptions o = defaultKcOptions(kind);
  o.from = from;
  o.to = to;
  o.points = points;
  if (!c.wheel.empty()) {
    for (std::size_t w = 0; w < model.wheels.size(); ++w)
      if (model.wheels[w].name == c.wheel) o.wheel = static_cast<int>(w);
    if (o.wheel < 0) throw std::invalid_argument("no wheel '" + printableExcerpt(c.wheel) + "' in the project");
  }
  if (kind == KcKind::StaticLoad) o.load = wheelLoadByKey(c.load);
  return o;
}

/// Checks of the study against its project and model: variable paths and their values, channels,
/// load cases and windows, the objective.
void checkAgainstProject(Study& s, const Project& project, const Json& doc, Diagnostics& diag) {
  const Json& vars = doc.contains("variables") ? doc["variables"] : Json();
  std::set<std::string> names;
  std::map<std::string, std::size_t> cellOwner;  ///< every cell a variable sets, and which variable
  auto claim = [&](const std::string& cell, std::size_t i, const char* field, const Location& w) {
    const auto [at, fresh] = cellOwner.emplace(cell, i);
    if (fresh) return;
    Location where = w;
    where.field = field;
    diag.error(where, at->second == i ? "the cell '" + printableExcerpt(cell) + "' is set twice by this variable"
                                      : "the cell '" + printableExcerpt(cell) + "' is also set by variable " + std::to_string(at->second + 1) +
                                            " ('" + s.variables[at->second].name + "'); one cell can have one value");
  };
  for (std::size_t i = 0; i < s.variables.size(); ++i) {
    StudyVariable& v = s.variables[i];
    const Location w = entry(s.path, "variables", i, vars.is_array() && i < vars.size() ? vars[i] : Json());
    auto fail = [&](const char* field, const std::string& what) {
      Location at = w;
      at.field = field;
      diag.error(at, what);
    };
    if (!names.insert(v.name).second) fail("name", "the name '" + printableExcerpt(v.name) + "' is used by another variable");
    if (v.path.empty()) continue;
    double value = 0.0;
    try {
      value = tableValue(project, v.path);
    } catch (const std::invalid_argument& e) {
      fail("path", e.what());
      continue;
    }
    for (const std::string& t : v.twins) {
      try {
        (void)tableValue(project, t);
      } catch (const std::invalid_argument& e) {
        fail("twins", e.what());
      }
    }
    if (v.symmetric) {
      try {
        v.twins.push_back(twinPath(project, v.path));
      } catch (const std::invalid_argument& e) {
        fail("symmetric", e.what());
      }
    }
    claim(v.path, i, "path", w);
    for (std::size_t t = 0; t < v.twins.size(); ++t)
      claim(v.twins[t], i, v.symmetric && t + 1 == v.twins.size() ? "symmetric" : "twins", w);
    const bool needsStart = s.settings.type == StudyType::Sensitivity || s.settings.type == StudyType::Optimization ||
                            s.settings.type == StudyType::Evaluate;
    if (needsStart && !v.start && v.lower < v.upper && (value < v.lower || value > v.upper))
      fail("lower", "the project's value " + shortestText(value) + " is outside the bounds [" + shortestText(v.lower) +
                        ", " + shortestText(v.upper) + "]; give a start or widen the bounds");
  }
  // Different paths to one cell (two markers of a joint, a hardpoint and its marker): one value.
  std::vector<std::string> cells;
  std::vector<std::size_t> owners;
  for (std::size_t i = 0; i < s.variables.size(); ++i) {
    if (s.variables[i].path.empty()) continue;
    cells.push_back(s.variables[i].path);
    owners.push_back(i);
    for (const std::string& t : s.variables[i].twins) {
      cells.push_back(t);
      owners.push_back(i);
    }
  }
  for (const CellAlias& a : aliasedCells(project, cells)) {
    if (cells[a.first] == cells[a.second]) continue;  // the same path: claimed above
    const std::size_t i = owners[a.second];
    Location at = entry(s.path, "variables", i, vars.is_array() && i < vars.size() ? vars[i] : Json());
    at.field = "path";
    diag.error(at, a.message + (owners[a.first] != i ? " (variable " + std::to_string(owners[a.first] + 1) + ", '" +
                                                           s.variables[owners[a.first]].name + "')"
                                                     : std::string()));
  }

  std::shared_ptr<const SuspensionModel> model;
  try {
    const Diagnostics d = check(project);
    d.throwIfErrors();
    model = SuspensionModel::build(project);
  } catch (const std::exception& e) {
    diag.error({s.path, "", "", "project"}, "the project " + s.projectPath + " is not a valid model:\n" + e.what());
    return;
  }
  std::set<std::string> channels;
  for (const Channel& c : resolveChannels(*model, {})) channels.insert(c.name);
  auto channelList = [&] {
    std::string l;
    for (const auto& c : channels) l += (l.empty() ? "'" : ", '") + c + "'";
    return l;
  };
  const Json& crit = doc.contains("criteria") ? doc["criteria"] : Json();
  names.clear();
  std::optional<std::vector<KcMetric>> metrics;  // computed when a criterion needs them
  double weights = 0.0;
  for (std::size_t i = 0; i < s.criteria.size(); ++i) {
    const StudyCriterion& c = s.criteria[i];
    const Location w = entry(s.path, "criteria", i, crit.is_array() && i < crit.size() ? crit[i] : Json());
    auto fail = [&](const char* field, const std::string& what) {
      Location at = w;
      at.field = field;
      diag.error(at, what);
    };
    weights += c.weight;
    if (c.name == "multi") fail("name", "'multi' names the multi-criterion; choose another name");
    if (!names.insert(c.name).second) fail("name", "the name '" + printableExcerpt(c.name) + "' is used by another criterion");
    if (c.kcMeasured) {
      // The measured file, read once with the columns of the sweep (a 3-point probe names them).
      try {
        if (model->wheels.empty()) throw std::invalid_argument("the project has no wheels: K&C sweeps need the 'wheels' table");
        const KcResult probe = runKc(*model, measuredSweepOptions(c, *model, -1e-3, 1e-3, 3));
        auto measured = std::make_shared<MeasuredKc>(readMeasuredKc(c.file, c.mapping, probe.columns, probe.units));
        std::string have;
        bool found = false;
        for (const auto& col : measured->columns) {
          found = found || col.channel == c.channel;
          have += (have.empty() ? "'" : ", '") + col.channel + "'";
        }
        if (!found)
          fail("channel", "the measured file has no column for '" + printableExcerpt(c.channel) + "' (its columns map to " + have + ")");
        s.criteria[i].measured = measured;
      } catch (const ModelError& e) {
        fail("file", e.what());
      } catch (const std::exception& e) {
        fail("analysis", e.what());
      }
      continue;
    }
    if (c.kcMetric) {
      // The metrics of the project's design position name what there is.
      if (!metrics) {
        metrics.emplace();
        try {
          *metrics = designMetrics(*model, solveDesign(*model));
        } catch (const std::exception& e) {
          fail("kind", std::string("the project's K&C design position cannot be found: ") + e.what());
        }
      }
      bool found = false;
      std::string known;
      for (const KcMetric& m : *metrics) {
        found = found || (m.name == c.metric && m.wheel == c.wheel);
        if (m.name == c.metric) known += (known.empty() ? "'" : ", '") + m.wheel + "'";
      }
      if (!found && !known.empty())
        fail("wheel", "the metric '" + printableExcerpt(c.metric) + "' is of the wheels " + known + ", not '" + printableExcerpt(c.wheel) + "'");
      else if (!found && !metrics->empty()) {
        std::set<std::string> all;
        for (const KcMetric& m : *metrics) all.insert(m.name);
        std::string list;
        for (const auto& n : all) list += (list.empty() ? "'" : ", '") + n + "'";
        if (const char* now = renamedKcMetric(c.metric))
          fail("metric", "the K&C metric '" + c.metric + "' is now '" + now +
                             "', with the sign of the load direction it names (docs/analyses.md)");
        else
          fail("metric", "no K&C metric '" + printableExcerpt(c.metric) + "' (the project's: " + list + ")");
      }
      continue;
    }
    if (!c.channel.empty() && !channels.count(c.channel))
      fail("channel", "unknown channel '" + printableExcerpt(c.channel) + "' (the project's channels: " + channelList() + ")");
    if (!c.minusChannel.empty() && !channels.count(c.minusChannel))
      fail("minus channel", "unknown channel '" + printableExcerpt(c.minusChannel) + "' (the project's channels: " + channelList() + ")");
    const LoadCaseRow* lc = nullptr;
    for (const auto& l : project.loadCases)
      if (l.name == c.loadCase) lc = &l;
    if (!c.loadCase.empty() && !lc) {
      std::string known;
      for (const auto& l : project.loadCases) known += (known.empty() ? "'" : ", '") + l.name + "'";
      fail("load case", "the project has no load case '" + printableExcerpt(c.loadCase) + "' (it has " + known + ")");
    }
    if (!lc) continue;
    const double end = s.run.duration > 0.0 ? std::min(s.run.duration, lc->duration) : lc->duration;
    if (c.criterion.from >= end)
      fail("from [s]", "the window starts at " + shortestText(c.criterion.from) + " s, after the load case '" + lc->name +
                           "' ends (" + shortestText(end) + " s): it produces no samples there");
    if (c.criterion.kind == CriterionKind::ValueAt && (c.criterion.time < c.criterion.from || c.criterion.time > end ||
                                                       c.criterion.time > c.criterion.to))
      fail("time [s]", "the time " + shortestText(c.criterion.time) + " s is outside the window and the load case '" +
                           lc->name + "' (0 to " + shortestText(end) + " s)");
    for (const std::string* ch : {&c.channel, &c.minusChannel}) {
      // An input's channel of an input the load case does not drive is zero throughout.
      for (const auto& o : project.outputs)
        if (o.name == *ch && o.quantity == OutputQuantity::Input) {
          bool driven = false;
          for (const auto& d : lc->drives) driven = driven || d.input == o.element;
          if (!driven)
            fail(ch == &c.channel ? "channel" : "minus channel",
                 "the load case '" + printableExcerpt(lc->name) + "' does not drive input " + std::to_string(o.element) +
                     ", so the channel '" + *ch + "' is zero in it");
        }
    }
  }
  if (s.settings.type == StudyType::Optimization && !s.settings.objective.empty()) {
    Location w{s.path, "study", "", "objective"};
    if (s.settings.objective == "multi") {
      if (weights <= 0.0) diag.error(w, "the multi-criterion needs a positive weight on at least one criterion");
    } else if (!names.count(s.settings.objective)) {
      std::string known;
      for (const auto& c : s.criteria) known += (known.empty() ? "'" : ", '") + c.name + "'";
      diag.error(w, "no criterion named '" + printableExcerpt(s.settings.objective) + "' (criteria: " + known + "; or 'multi')");
    }
    if (s.variables.empty()) diag.error(w, "an optimization needs at least one variable");
    std::string limited;
    for (const auto& c : s.criteria)
      if (c.hasLimit()) limited += (limited.empty() ? "'" : ", '") + c.name + "'";
    const std::string& a = s.settings.algorithm;
    // MMA takes constraints too, but in the tests it stopped short of an active limit (c = 168.6
    // instead of 160 N s/m on the oscillator): only the two that reach it are offered.
    if (!limited.empty() && a != "cobyla" && a != "slsqp")
      diag.error({s.path, "study", "", "algorithm"}, "the limits of " + limited + " are constraints, which only 'cobyla' "
                                                     "and 'slsqp' handle (not '" + printableExcerpt(a) + "')");
  }
  if ((s.settings.type == StudyType::Sensitivity || s.settings.type == StudyType::Doe) && s.variables.empty())
    diag.error({s.path, "variables", "", ""}, std::string("a ") + toString(s.settings.type) + " study needs at least one variable");
  if (s.settings.type == StudyType::Doe && s.settings.plan == "full factorial") {
    double total = 1.0;
    for (const auto& v : s.variables) total *= v.levels;
    if (total > kMaxPoints)
      diag.error({s.path, "study", "", "plan"}, "the full factorial plan has " + significant(total, 6) + " points (at most " +
                                                    std::to_string(kMaxPoints) + ")");
  }
}

/// The project's K&C targets as limits ("targets as limits": true): one criterion per target and
/// wheel, "target ID: metric (wheel)", weight 0, its range as "at least" / "at most".
void addTargetCriteria(Study& s, const Project& project, Diagnostics& diag) {
  const Location w{s.path, "study", "", "targets as limits"};
  if (std::all_of(project.targets.begin(), project.targets.end(), [](const TargetRow& t) { return !t.manoeuvre.empty(); })) {
    diag.error(w, project.targets.empty() ? "the project has no 'targets' table"
                                          : "the project's targets are all manoeuvres' (a study judges K&C metrics)");
    return;
  }
  std::vector<KcMetric> metrics;
  try {
    const auto model = SuspensionModel::build(project);
    metrics = designMetrics(*model, solveDesign(*model));
  } catch (const std::exception& e) {
    diag.error(w, std::string("the project's K&C design position cannot be found: ") + e.what());
    return;
  }
  for (const TargetCheck& t : checkTargets(project, metrics)) {
    if (t.status == TargetCheck::Status::NoMetric) {
      diag.error(w, "the project's target " + std::to_string(t.id) + " ('" + printableExcerpt(t.metric) + "'): " + t.message);
      continue;
    }
    StudyCriterion c;
    c.name = "target " + std::to_string(t.id) + ": " + t.metric + (t.wheel.empty() ? "" : " (" + t.wheel + ")");
    c.kcMetric = true;
    c.metric = t.metric;
    c.wheel = t.wheel;
    c.atLeast = t.lower;
    c.atMost = t.upper;
    s.criteria.push_back(c);
  }
}

/// Whether two paths name one file: the same file when both exist (links followed), else the same
/// normalized path.
bool samePlace(const std::string& a, const std::string& b) { return !a.empty() && !b.empty() && sameFile(a, b); }

/// `given`: the project to use instead of reading the study's "project" file (the workbench's).
Study parseStudyWith(const std::string& text, const std::string& path, Project* projectOut, const Project* given = nullptr) {
  JsonScan scan;
  const Json doc = parseJsonText(text, path, kMaxDepth, "a study needs 4; is this a study file?", scan);
  Diagnostics diag;
  for (const JsonDuplicateKey& d : scan.duplicates) {
    Location w{path, "", "", d.key};
    w.line = d.line;
    w.column = d.column;
    diag.error(w, "the key \"" + printableExcerpt(d.key) + "\" appears twice in one object; remove one of them");
  }
  Study s;
  s.path = path;
  ObjectReader top(doc, {path, "", "", ""}, diag);
  if (top.has("format") && top.string("format") != kFormat)
    top.fail("format", "expected \"" + std::string(kFormat) + "\" (is this a study file?)");
  if (top.has("version") && top.integer("version") != kVersion)
    top.fail("version", "version " + std::to_string(kVersion) + " is the only one known");
  (void)top.string("description", "");
  s.projectPath = given ? resolve(path, top.string("project", given->sourcePath)) : resolve(path, top.string("project"));
  if (!given && top.has("project") && top.raw("project").is_string() && s.projectPath.empty())
    top.fail("project", "is empty; name the project file (relative to the study file)");
  forEachRow(top, "variables", true, nameEntry, [&](ObjectReader& r) { readVariable(r, s.variables.emplace_back()); });
  forEachRow(top, "criteria", true, nameEntry, [&](ObjectReader& r) { readCriterion(r, s.criteria.emplace_back()); });
  for (auto& c : s.criteria)
    if (c.kcMeasured && !c.file.empty()) c.file = resolve(path, c.file);
  if (top.has("study")) {
    ObjectReader r(top.raw("study"), {path, "study", "", ""}, diag);
    readSettings(r, s.settings);
    r.finish();
  } else {
    top.fail("study", "required field is missing (e.g. {\"type\": \"doe\", \"points\": 16})");
  }
  if (top.has("run")) {
    ObjectReader r(top.raw("run"), {path, "run", "", ""}, diag);
    readRunSettings(r, s.run);
    r.finish();
  }
  s.resultsPath = resolve(path, top.string("results", ""));
  if (s.resultsPath.empty()) s.resultsPath = defaultBeside(path, ".results.csv");
  s.bestProjectPath = resolve(path, top.string("best project", ""));
  if (s.bestProjectPath.empty()) s.bestProjectPath = defaultBeside(path, ".best.json");
  top.finish();
  if (s.criteria.empty() && doc.contains("criteria")) diag.error({path, "criteria", "", ""}, "a study needs at least one criterion");

  if (!s.projectPath.empty() || given) {
    Project project;
    bool read = false;
    try {
      project = given ? *given : readProject(s.projectPath);
      read = true;
    } catch (const std::exception& e) {
      diag.error({path, "", "", "project"}, std::string("cannot use the project: ") + e.what());
    }
    if (read) {
      if (s.settings.targetsAsLimits) addTargetCriteria(s, project, diag);
      for (const auto& [field, message] : studyOutputConflicts(s, project)) diag.error({path, "", "", field}, message);
      checkAgainstProject(s, project, doc, diag);
      if (projectOut) *projectOut = std::move(project);
    }
  }
  diag.throwIfErrors();
  return s;
}

}  // namespace

const char* toString(StudyType type) { return nameOf(kTypes, type); }

std::vector<std::pair<std::string, std::string>> studyOutputConflicts(const Study& s, const Project& project) {
  std::vector<std::pair<std::string, std::string>> inputs = {{s.path, "the study file"},
                                                             {s.projectPath, "the study's project"}};
  for (const std::string& f : referencedFiles(project)) inputs.push_back({f, "a file the project reads (" + f + ")"});
  const std::pair<const char*, std::string> outputs[] = {{"results", s.resultsPath}, {"best project", s.bestProjectPath}};
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [field, written] : outputs) {
    if (written.empty()) continue;
    std::error_code ec;
    if (std::filesystem::is_directory(written, ec)) {
      out.push_back({field, written + " is a folder; name a file (the study writes it)"});
      continue;
    }
    for (const auto& [read, what] : inputs)
      if (samePlace(written, read))
        out.push_back({field, written + " is " + what + "; the study writes it, so the original would be lost"});
    if (samePlace(written, s.resultsPath + ".fingerprint"))
      out.push_back({field, written + " is the results' fingerprint file; name another file"});
  }
  if (!s.resultsPath.empty() && samePlace(s.resultsPath, s.bestProjectPath))
    out.push_back({"best project", s.bestProjectPath + " is also the results file; name two files"});
  return out;
}

std::vector<std::string> Study::loadCases() const {
  std::vector<std::string> out;
  for (const auto& c : criteria)
    if (!c.kcMetric && !c.kcMeasured && std::find(out.begin(), out.end(), c.loadCase) == out.end()) out.push_back(c.loadCase);
  return out;
}

Study parseStudy(const std::string& text, const std::string& path) { return parseStudyWith(text, path, nullptr); }

Study readStudy(const std::string& path) { return parseStudy(readTextFile(path, kMaxStudyBytes, "study file"), path); }

StudyContext loadStudy(const std::string& path) {
  return studyContext(readTextFile(path, kMaxStudyBytes, "study file"), path, nullptr);
}

StudyContext studyContext(const std::string& text, const std::string& path, const Project* project) {
  StudyContext c;
  c.study = parseStudyWith(text, path, &c.project, project);
  for (const StudyVariable& v : c.study.variables) {
    c.projectValues.push_back(tableValue(c.project, v.path));
    c.startValues.push_back(v.start ? *v.start : c.projectValues.back());
  }
  return c;
}

Project applyDesign(const StudyContext& context, const std::vector<double>& values) {
  std::vector<std::pair<std::string, double>> cells;
  for (std::size_t i = 0; i < context.study.variables.size(); ++i) {
    const StudyVariable& v = context.study.variables[i];
    cells.emplace_back(v.path, values.at(i));
    for (const std::string& t : v.twins) cells.emplace_back(t, values.at(i));
  }
  return cells.empty() ? context.project : withTableValues(context.project, cells);
}

DesignResult evaluateDesign(const StudyContext& context, const std::vector<double>& values) {
  const Study& s = context.study;
  DesignResult result;
  result.criteria.assign(s.criteria.size(), std::nan(""));
  auto cancelled = [&] { return context.cancel && context.cancel->load(std::memory_order_relaxed); };
  if (cancelled()) {
    result.cancelled = true;
    return result;
  }
  std::string where = "the design";
  try {
    const Project project = applyDesign(context, values);
    const Diagnostics d = check(project);
    if (d.hasErrors()) {
      result.message = "the design is not a valid model: " + d.items().front().text();
      return result;
    }
    const auto model = SuspensionModel::build(project);
    bool anyMetric = false;
    for (const auto& c : s.criteria) anyMetric = anyMetric || c.kcMetric;
    if (anyMetric) {
      where = "the K&C design position";
      const std::vector<KcMetric> metrics = designMetrics(*model, solveDesign(*model));
      for (std::size_t i = 0; i < s.criteria.size(); ++i) {
        const StudyCriterion& c = s.criteria[i];
        if (!c.kcMetric) continue;
        for (const KcMetric& m : metrics)
          if (m.name == c.metric && m.wheel == c.wheel) result.criteria[i] = (m.value - c.reference) / c.scale;
        if (c.absolute) result.criteria[i] = std::abs(result.criteria[i]);
        if (!std::isfinite(result.criteria[i])) throw SimulationError("the metric '" + printableExcerpt(c.metric) + "' is not finite");
      }
    }
    for (std::size_t i = 0; i < s.criteria.size(); ++i) {
      const StudyCriterion& c = s.criteria[i];
      if (!c.kcMeasured || !c.measured) continue;
      where = "the K&C sweep of criterion '" + c.name + "'";
      const MeasuredKc& ms = *c.measured;
      const auto [low, high] = std::minmax_element(ms.sweep.begin(), ms.sweep.end());
      const KcResult kr = runKc(*model, measuredSweepOptions(c, *model, *low, *high, c.sweepPoints), {}, context.cancel);
      if (kr.cancelled) {
        result.cancelled = true;
        return result;
      }
      if (!kr.warnings.empty()) throw SimulationError(kr.warnings.front() + ": the measured range is not reached");
      MeasuredKc one = ms;
      std::erase_if(one.columns, [&](const MeasuredKc::Column& col) { return col.channel != c.channel; });
      one.columns.resize(1);
      // Over every branch of a loop: the largest deviation, or the RMS of all points.
      double largest = 0.0, squares = 0.0;
      int points = 0;
      for (const KcCorrelation& k : correlate(kr, one)) {
        if (k.points == 0) continue;
        largest = std::max(largest, k.max);
        squares += k.rms * k.rms * k.points;
        points += k.points;
      }
      result.criteria[i] = c.maxDeviation ? largest : std::sqrt(squares / std::max(points, 1));
    }
    for (const std::string& lc : s.loadCases()) {
      where = "load case " + lc;
      RunOptions opt;
      opt.dt = s.run.dt > 0.0 ? s.run.dt : project.simulation.step;
      opt.linearizeEvery = s.run.linearizeEvery;
      opt.integrator = s.run.integrator;
      opt.relativeTolerance = s.run.relativeTolerance;
      opt.sampleRate = 1.0 / opt.dt;
      if (s.run.duration > 0.0) opt.duration = std::min(s.run.duration, model->loadCase(lc)->duration);
      for (const auto& c : s.criteria)
        if (c.loadCase == lc)
          for (const std::string* ch : {&c.channel, &c.minusChannel})
            if (!ch->empty() && std::find(opt.channels.begin(), opt.channels.end(), *ch) == opt.channels.end())
              opt.channels.push_back(*ch);
      Simulation sim(model, lc, opt);
      sim.initialize();
      // Checked every 32 steps: a stop ends the run within a few hundred microseconds of compute.
      for (long long k = 1; sim.step(); ++k)
        if (k % 32 == 0 && cancelled()) {
          result.cancelled = true;
          return result;
        }
      const Recorder& rec = sim.results();
      std::vector<double> t(rec.size());
      for (std::size_t k = 0; k < rec.size(); ++k) t[k] = rec.time(k);
      auto column = [&](const std::string& name) {
        const auto at = std::find(opt.channels.begin(), opt.channels.end(), name) - opt.channels.begin();
        return rec.series(static_cast<std::size_t>(at));
      };
      for (std::size_t i = 0; i < s.criteria.size(); ++i) {
        const StudyCriterion& c = s.criteria[i];
        if (c.loadCase != lc) continue;
        std::vector<double> y = column(c.channel);
        const std::vector<double> minus = c.minusChannel.empty() ? std::vector<double>() : column(c.minusChannel);
        for (std::size_t k = 0; k < y.size(); ++k) y[k] -= minus.empty() ? 0.0 : minus[k];
        double reference = c.reference;
        if (c.referenceAtStart) {
          const auto first = std::lower_bound(t.begin(), t.end(), c.criterion.from - 1e-12);
          reference = first == t.end() ? 0.0 : y[static_cast<std::size_t>(first - t.begin())];
        }
        for (double& v : y) v = (v - reference) / c.scale;
        where = "criterion " + c.name;
        result.criteria[i] = evaluateCriterion(c.criterion, t, y);
        if (c.absolute) result.criteria[i] = std::abs(result.criteria[i]);
        if (!std::isfinite(result.criteria[i])) throw SimulationError("its value is not finite");
      }
    }
    result.ok = true;
  } catch (const std::exception& e) {
    result.message = where + ": " + e.what();
    result.criteria.assign(s.criteria.size(), std::nan(""));
  }
  return result;
}

std::string studyFingerprint(const StudyContext& context) {
  const Study& s = context.study;
  std::string t = writeProjectText(context.project);
  // The contents of every file the project reads (a road profile edited after the runs changes them).
  for (const std::string& f : referencedFiles(context.project)) {
    t += "\nfile|" + f + "|";
    try {
      t += readTextFile(f, std::uintmax_t(1) << 30, "signal table");
    } catch (const std::exception& e) {
      t += std::string("unreadable|") + e.what();
    }
  }
  t += "\nvariables";
  for (const auto& v : s.variables) {
    t += "\n" + v.name + "|" + v.path;
    for (const auto& w : v.twins) t += "|" + w;
  }
  t += "\ncriteria";
  for (const auto& c : s.criteria) {
    const Criterion& k = c.criterion;
    if (c.kcMeasured) {  // the measured data are part of the criterion
      t += "\n" + c.name + "|measured|" + c.analysis + "|" + c.load + "|" + c.wheel + "|" + c.channel + "|" +
           (c.maxDeviation ? "max" : "rms") + "|" + std::to_string(c.sweepPoints) + "|" + c.file;
      for (const auto& [column, channel] : c.mapping) t += "|" + column + "=" + channel;
      try {
        t += "|" + readTextFile(c.file, std::uintmax_t(64) << 20, "measured K&C file");
      } catch (const std::exception& e) {
        t += std::string("|unreadable|") + e.what();
      }
      continue;
    }
    t += "\n" + c.name + "|" + (c.kcMetric ? "kc|" + c.metric + "|" + c.wheel : c.loadCase + "|" + c.channel + "|" + c.minusChannel) +
         "|" + (c.absolute ? "abs" : "") + "|" + shortestText(c.reference) + (c.referenceAtStart ? "|start" : "") + "|" +
         shortestText(c.scale) + "|" + toString(k.kind) + "|" + shortestText(k.from) + "|" + shortestText(k.to) + "|" +
         shortestText(k.weightPower) + "|" + std::to_string(k.derivative) + "|" + shortestText(k.exponent) + "|" +
         shortestText(k.time) + "|" + shortestText(k.band);
  }
  t += "\nrun|" + shortestText(s.run.dt) + "|" + std::to_string(s.run.linearizeEvery) + "|" + s.run.integrator + "|" +
       shortestText(s.run.relativeTolerance) + "|" + shortestText(s.run.duration);
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char ch : t) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  char b[17];
  ek::csnprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

double fromUnit(const StudyVariable& v, double u) {
  if (v.logScale) return std::exp(std::log(v.lower) + u * (std::log(v.upper) - std::log(v.lower)));
  return v.lower + u * (v.upper - v.lower);
}

double toUnit(const StudyVariable& v, double value) {
  if (v.logScale) return (std::log(value) - std::log(v.lower)) / (std::log(v.upper) - std::log(v.lower));
  return (value - v.lower) / (v.upper - v.lower);
}

}  // namespace ek
