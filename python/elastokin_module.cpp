// SPDX-License-Identifier: GPL-3.0-or-later
// elastokin._core: the engine for Python (docs/python.md). A thin layer: every computation is the
// engine's (the runner and the workbench call the same functions); here are only the conversions
// to NumPy arrays, Python exceptions, the GIL and Ctrl-C. The Python package (elastokin/__init__.py)
// wraps the arrays in small result classes.
//
// Long computations (runs, sweeps, responses, studies) run on a worker thread while the calling
// thread waits without the GIL and looks for Ctrl-C every 20 ms: a pending signal stops the
// engine (its cancel flag) and is raised as KeyboardInterrupt once the worker has stopped.
#include <pybind11/complex.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <future>
#include <optional>
#include <thread>

#include "engine/analysis/kc.h"
#include "engine/analysis/manoeuvre.h"
#include "engine/analysis/linear_analysis.h"
#include "engine/analysis/simulation.h"
#include "engine/analysis/study.h"
#include "engine/analysis/study_runner.h"
#include "engine/core/error.h"
#include "engine/core/output_file.h"
#include "engine/core/text.h"
#include "engine/model/project_io.h"
#include "engine/model/table_path.h"
#include "engine/model/validate.h"

namespace py = pybind11;
using namespace ek;

namespace {

// The exception classes (made once, alive for the interpreter's life).
PyObject* gModelError = nullptr;
PyObject* gSimulationError = nullptr;
PyObject* gFileError = nullptr;

/// Runs `work` on a worker thread; this thread waits without the GIL and checks for Ctrl-C. On a
/// signal, `cancel` is set, the worker is waited for and the signal's exception raised.
template <class R>
R interruptible(std::function<R()> work, std::atomic<bool>& cancel) {
  std::packaged_task<R()> task(std::move(work));
  std::future<R> done = task.get_future();
  std::thread worker;
  {
    py::gil_scoped_release nogil;
    worker = std::thread(std::move(task));
  }
  bool interrupted = false;
  for (;;) {
    std::future_status status;
    {
      py::gil_scoped_release nogil;
      status = done.wait_for(std::chrono::milliseconds(20));
    }
    if (status == std::future_status::ready) break;
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted = true;  // the Python exception stays set until we raise it
      cancel = true;
    }
  }
  {
    py::gil_scoped_release nogil;
    worker.join();
  }
  if (interrupted) throw py::error_already_set();
  return done.get();  // an engine exception is rethrown here, with the GIL held
}

py::array_t<double> toArray(const std::vector<double>& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

std::shared_ptr<const SuspensionModel> buildModel(const Project& p) { return SuspensionModel::build(p); }

/// Channels of `model` by name: the project's outputs and every wheel's alignment channels.
std::vector<Channel> pickChannels(const SuspensionModel& model, const std::optional<std::vector<std::string>>& names) {
  std::vector<Channel> all = responseChannels(model);
  if (!names) return all;
  std::vector<Channel> picked;
  for (const std::string& n : *names) {
    auto it = std::find_if(all.begin(), all.end(), [&](const Channel& c) { return c.name == n; });
    if (it == all.end()) {
      std::string known;
      for (const Channel& c : all) known += (known.empty() ? "'" : ", '") + c.name + "'";
      throw std::invalid_argument("unknown channel '" + printableExcerpt(n) + "' (the model has: " + known + ")");
    }
    picked.push_back(*it);
  }
  return picked;
}

int wheelIndex(const SuspensionModel& model, int id) {
  const int w = model.wheelById(id);
  if (w < 0) throw std::invalid_argument("wheel " + std::to_string(id) + " does not exist in the wheels table");
  return w;
}

int inputIndex(const SuspensionModel& model, int id) {
  const int k = model.inputById(id);
  if (k < 0) throw std::invalid_argument("input " + std::to_string(id) + " does not exist in the inputs table");
  return k;
}

int loadKey(const std::string& key) {
  const int k = wheelLoadByKey(key);
  if (k < 0) {
    std::string known;
    for (const char* n : kWheelLoadKeys) known += (known.empty() ? "'" : ", '") + std::string(n) + "'";
    throw std::invalid_argument("unknown load '" + printableExcerpt(key) + "' (" + known + ")");
  }
  return k;
}

// ---- the runner's limits (elastokin-sim's usage), applied to every keyword ----

constexpr int kMaxThreads = 64;           // --threads 1..64
constexpr int kMaxPoints = 100000;        // --points 2..100000
constexpr double kLoosestTolerance = 1e-2;  // an equilibrium residual above this is no equilibrium

/// A keyword that must be a positive finite number when given; -1 (the project's value) when not.
double positiveOr(const char* keyword, std::optional<double> v) {
  if (!v) return -1.0;
  if (!(*v > 0.0) || !std::isfinite(*v))
    throw std::invalid_argument(std::string(keyword) + "=" + shortestText(*v) + ": must be a positive finite number");
  return *v;
}
/// A whole-number keyword in [lo, hi].
int countIn(const char* keyword, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    throw std::invalid_argument(std::string(keyword) + "=" + std::to_string(v) + ": must be a whole number from " +
                                std::to_string(lo) + " to " + std::to_string(hi));
  return static_cast<int>(v);
}

// ---- runs ----

py::dict run(const Project& project, const std::string& loadCase, std::optional<double> dt, std::optional<double> duration,
             double start, const std::string& integrator, std::optional<long long> linEvery,
             std::optional<std::vector<std::string>> channels, std::optional<double> sampleRate, const std::string& solver,
             bool holdInputs, long long threads) {
  RunOptions o;
  o.dt = positiveOr("dt", dt);
  o.linearizeEvery = linEvery ? countIn("lin_every", *linEvery, 1, INT_MAX) : -1;
  o.sampleRate = positiveOr("sample_rate", sampleRate);
  o.start = start;
  o.duration = positiveOr("duration", duration);
  o.integrator = integrator;
  o.solver = solver;
  o.threads = countIn("threads", threads, 1, kMaxThreads);
  o.holdInputs = holdInputs;
  if (channels) o.channels = *channels;
  std::string note;
  o = projectRunOptions(project, o, &note);
  auto model = buildModel(project);
  auto sim = std::make_shared<Simulation>(model, loadCase, o);
  std::atomic<bool> cancel{false};
  std::string failure;
  interruptible<int>(
      [&] {
        sim->initialize();
        try {
          while (!cancel && sim->step()) {
          }
        } catch (const SimulationError& e) {
          failure = e.what();  // the samples up to the stop are kept, as the runner keeps them
        }
        return 0;
      },
      cancel);
  const Recorder& rec = sim->results();
  const std::size_t n = rec.size(), m = rec.channels().size();
  py::array_t<double> time(static_cast<py::ssize_t>(n));
  py::array_t<double> values({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(m)});
  auto t = time.mutable_unchecked<1>();
  auto v = values.mutable_unchecked<2>();
  for (std::size_t k = 0; k < n; ++k) {
    t(static_cast<py::ssize_t>(k)) = rec.time(k);
    for (std::size_t c = 0; c < m; ++c) v(static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(c)) = rec.value(k, c);
  }
  py::list names, units;
  for (const Channel& c : rec.channels()) names.append(c.name), units.append(c.unit);
  py::dict out;
  out["time"] = time;
  out["values"] = values;
  out["names"] = names;
  out["units"] = units;
  out["failure"] = failure;
  out["note"] = note;
  out["steps"] = sim->stepsDone();
  out["integrator"] = sim->integrator().describe();
  const ErrorSummary es = sim->errorSummary();
  if (es.available && es.steps > 0) {
    py::dict e;
    e["position_rms"] = es.positionRms;
    e["position_max"] = es.positionMax;
    e["angle_rms"] = es.angleRms;
    e["angle_max"] = es.angleMax;
    out["error_estimate"] = e;
  }
  return out;
}

/// A run driven step by step from Python (co-simulation): inputs set from outside are held over
/// the following steps (zero-order hold, as an FMU's importer gives them); the outputs are the
/// project's outputs and every wheel's alignment channels at the current time.
class Simulator {
 public:
  Simulator(const Project& project, std::optional<std::string> loadCase, std::optional<double> dt,
            const std::string& integrator, std::optional<long long> linEvery, double start, const std::string& solver) {
    Project p = project;
    std::string lc;
    if (loadCase) {
      lc = *loadCase;
    } else {  // none: the inputs held at 0 from the static equilibrium on, for as long as the engine runs at once
      LoadCaseRow own;
      own.name = "python";
      own.initialState = InitialState::Equilibrium;
      own.duration = 1.0;
      p.loadCases.push_back(own);
      lc = own.name;
    }
    model_ = buildModel(p);
    RunOptions o;
    o.dt = positiveOr("dt", dt);
    o.linearizeEvery = linEvery ? countIn("lin_every", *linEvery, 1, INT_MAX) : -1;
    o = projectRunOptions(p, o);
    o.integrator = integrator;
    o.solver = solver;
    o.start = start;
    o.record = false;
    o.duration = static_cast<double>(kMaxSteps - 1) * o.dt;
    sim_ = std::make_unique<Simulation>(model_, lc, o);
    if (!loadCase)
      for (int k = 0; k < model_->nInputs(); ++k) sim_->holdInput(k, 0.0);
    channels_ = responseChannels(*model_);
    values_.resize(channels_.size());
    sim_->initialize();
  }

  double time() const { return sim_->state().t; }
  long long steps() const { return sim_->stepsDone(); }
  std::vector<std::string> inputNames() const {
    std::vector<std::string> out;
    for (const auto& in : model_->inputs) out.push_back(in.name);
    return out;
  }
  std::vector<std::string> inputUnits() const {
    std::vector<std::string> out;
    for (const auto& in : model_->inputs) out.push_back(inputUnit(in.kind));
    return out;
  }
  std::vector<std::string> outputNames() const {
    std::vector<std::string> out;
    for (const auto& c : channels_) out.push_back(c.name);
    return out;
  }
  std::vector<std::string> outputUnits() const {
    std::vector<std::string> out;
    for (const auto& c : channels_) out.push_back(c.unit);
    return out;
  }

  /// Sets inputs (a dict by name, or a sequence in input order; held from now on), then takes
  /// `steps` steps.
  void step(const py::object& inputs, long long steps) {
    const Exclusive one(busy_);
    if (!inputs.is_none()) setInputs(inputs);
    if (steps < 1) throw std::invalid_argument("steps must be at least 1");
    if (steps == 1) {  // the co-simulation case: no thread, the GIL released for the step only
      py::gil_scoped_release nogil;
      takeStep();
      return;
    }
    std::atomic<bool> cancel{false};
    interruptible<int>(
        [&] {
          for (long long k = 0; k < steps && !cancel; ++k) takeStep();
          return 0;
        },
        cancel);
  }

  void setInputs(const py::object& inputs) {
    if (py::isinstance<py::dict>(inputs)) {
      for (auto item : py::reinterpret_borrow<py::dict>(inputs)) {
        const std::string name = py::cast<std::string>(item.first);
        int k = -1;
        for (int i = 0; i < model_->nInputs(); ++i)
          if (model_->inputs[i].name == name) k = i;
        if (k < 0) {
          std::string known;
          for (const auto& in : model_->inputs) known += (known.empty() ? "'" : ", '") + in.name + "'";
          throw std::invalid_argument("unknown input '" + printableExcerpt(name) + "' (the model has: " + known + ")");
        }
        hold(k, py::cast<double>(item.second));
      }
      return;
    }
    const auto values = py::cast<std::vector<double>>(inputs);
    if (static_cast<int>(values.size()) != model_->nInputs())
      throw std::invalid_argument("the inputs are " + std::to_string(values.size()) + " values; the model has " +
                                  std::to_string(model_->nInputs()) + " inputs");
    for (int k = 0; k < model_->nInputs(); ++k) hold(k, values[static_cast<std::size_t>(k)]);
  }

  /// Input `name` follows the load case again (all when None).
  void release(const std::optional<std::string>& name) {
    for (int k = 0; k < model_->nInputs(); ++k)
      if (!name || model_->inputs[k].name == *name) sim_->releaseInput(k);
  }

  py::array_t<double> outputArray() {
    const Exclusive one(busy_);
    sim_->outputValues(channels_, values_.data());
    return toArray(values_);
  }
  py::dict outputs() {
    const Exclusive one(busy_);
    sim_->outputValues(channels_, values_.data());
    py::dict d;
    for (std::size_t c = 0; c < channels_.size(); ++c) d[py::str(channels_[c].name)] = values_[c];
    return d;
  }
  py::dict inputs() const {
    VecX u;
    sim_->inputValues(u);
    py::dict d;
    for (int k = 0; k < model_->nInputs(); ++k) d[py::str(model_->inputs[k].name)] = u[k];
    return d;
  }
  Simulation::Snapshot snapshot() {
    const Exclusive one(busy_);
    return sim_->snapshot();
  }
  void restore(const Simulation::Snapshot& s) {
    const Exclusive one(busy_);
    sim_->restore(s);
  }

 private:
  void hold(int k, double value) {
    if (!std::isfinite(value))
      throw std::invalid_argument("input '" + model_->inputs[k].name + "' set to " + shortestText(value) +
                                  ": values must be finite numbers");
    sim_->holdInput(k, value);
  }
  void takeStep() {
    if (!sim_->step())
      throw SimulationError("the run reached the longest the engine takes at once (" + std::to_string(kMaxSteps) + " steps)");
  }

  // One thread at a time: the engine's run is not shared (its workspace is one), and with the GIL
  // released a second thread would step the same state at once.
  class Exclusive {
   public:
    explicit Exclusive(std::atomic<bool>& busy) : busy_(busy) {
      if (busy_.exchange(true))
        throw std::runtime_error("this Simulator is in use by another thread: a Simulator runs on one thread at a "
                                 "time (make one Simulator per thread)");
    }
    ~Exclusive() { busy_.store(false); }
    Exclusive(const Exclusive&) = delete;
    Exclusive& operator=(const Exclusive&) = delete;

   private:
    std::atomic<bool>& busy_;
  };

  std::shared_ptr<const SuspensionModel> model_;
  std::unique_ptr<Simulation> sim_;
  std::vector<Channel> channels_;
  std::vector<double> values_;
  std::atomic<bool> busy_{false};
};

// ---- analyses ----

py::dict kcResultDict(const KcResult& r) {
  const std::size_t n = r.sweep.size(), m = r.columns.size();
  py::array_t<double> values({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(m)});
  auto v = values.mutable_unchecked<2>();
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t c = 0; c < m; ++c) v(static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(c)) = r.values[k][c];
  py::list metrics;
  for (const KcMetric& x : r.metrics) metrics.append(py::make_tuple(x.name, x.wheel, x.unit, x.value));
  py::dict out;
  out["sweep"] = toArray(r.sweep);
  out["sweep_name"] = r.sweepName;
  out["sweep_unit"] = r.sweepUnit;
  out["columns"] = r.columns;
  out["units"] = r.units;
  out["values"] = values;
  out["metrics"] = metrics;
  out["iterations"] = r.iterations;
  return out;
}

/// Rows of N numbers as an (rows, N) array.
template <std::size_t N>
py::array_t<double> rowsArray(const std::vector<std::array<double, N>>& rows) {
  py::array_t<double> a({static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(N)});
  auto v = a.template mutable_unchecked<2>();
  for (std::size_t k = 0; k < rows.size(); ++k)
    for (std::size_t c = 0; c < N; ++c) v(static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(c)) = rows[k][c];
  return a;
}

py::dict manoeuvre(const Project& project, const std::string& name, const std::map<std::string, double>& params) {
  std::atomic<bool> cancel{false};
  const ManoeuvreResult r =
      interruptible<ManoeuvreResult>([&] { return runManoeuvre(project, name, params, {}, &cancel); }, cancel);
  py::dict parameters, metrics, units, verdicts, targets;
  for (const ManoeuvreParameter& p : r.parameters) parameters[py::str(p.key)] = p.value;
  for (const ManoeuvreMetric& m : r.metrics) {
    metrics[py::str(m.name)] = m.value;
    units[py::str(m.name)] = m.unit;
    if (!m.limit.empty()) verdicts[py::str(m.name)] = py::make_tuple(m.limit, m.pass);
    if (m.targetId >= 0)
      targets[py::str(m.name)] = py::make_tuple(m.lower ? py::object(py::float_(*m.lower)) : py::object(py::none()),
                                                m.upper ? py::object(py::float_(*m.upper)) : py::object(py::none()), m.met);
  }
  py::dict out;
  out["manoeuvre"] = r.name;
  out["parameters"] = parameters;
  out["metrics"] = metrics;
  out["units"] = units;
  out["limits"] = verdicts;
  out["targets"] = targets;
  out["columns"] = std::vector<std::string>(kManoeuvreColumns.begin(), kManoeuvreColumns.end());
  out["series"] = rowsArray(r.series);
  out["frequency_response"] = rowsArray(r.frequencyResponse);
  out["lanes"] = rowsArray(r.lanes);
  out["track_path"] = rowsArray(r.trackPath);
  out["notes"] = r.notes;
  return out;
}

py::dict kc(const Project& project, const std::string& analysis, std::optional<int> wheel, std::optional<std::string> load,
            std::optional<int> input, std::optional<double> from, std::optional<double> to, std::optional<long long> points,
            double tolerance) {
  KcKind kind{};
  if (!parseKcKind(analysis, kind))
    throw std::invalid_argument("unknown analysis '" + printableExcerpt(analysis) +
                                "' (parallel-travel, opposite-travel, single-travel, static-load, steering)");
  auto model = buildModel(project);
  const bool steering = kind == KcKind::Steering;
  int in = -1;
  if (steering) {
    if (!input) throw std::invalid_argument("steering needs input= (the id of the rack's translation or rotation input)");
    in = inputIndex(*model, *input);
    if (!model->inputs[in].motion())
      throw std::invalid_argument("input " + std::to_string(*input) + " is a " + inputKindName(model->inputs[in].kind) +
                                  "; steering sweeps a translation or rotation input");
  } else if (input) {
    throw std::invalid_argument("input= is for steering");
  }
  KcOptions o = defaultKcOptions(kind, steering && model->inputs[in].kind == InputKind::Rotation);
  o.input = in;
  if (!(tolerance > 0.0) || !(tolerance <= kLoosestTolerance))
    throw std::invalid_argument("tolerance=" + shortestText(tolerance) + ": must be a number above 0 and at most " +
                                shortestText(kLoosestTolerance) + " (m/s^2 and rad/s^2 of residual acceleration)");
  o.tolerance = tolerance;
  if (kind == KcKind::StaticLoad) {
    if (!load) throw std::invalid_argument("static-load needs load= ('fx-contact', 'fy-contact', ...)");
    o.load = loadKey(*load);
  } else if (load) {
    throw std::invalid_argument("load= is for static-load");
  }
  if (wheel) o.wheel = wheelIndex(*model, *wheel);
  else if (kind == KcKind::SingleTravel) throw std::invalid_argument("single-travel needs wheel= (a wheel id)");
  if (from) o.from = *from;
  if (to) o.to = *to;
  if (points) o.points = countIn("points", *points, 2, kMaxPoints);
  if (!(o.to > o.from)) throw std::invalid_argument("to must be greater than from_");
  std::atomic<bool> cancel{false};
  const KcResult r = interruptible<KcResult>([&] { return runKc(*model, o, {}, &cancel); }, cancel);
  py::dict out = kcResultDict(r);
  out["analysis"] = analysis;
  out["metrics_json"] = kcMetricsJson(r, analysis, checkTargets(model->project(), r.metrics));  // as --metrics
  return out;
}

OperatingPoint pointOf(const std::shared_ptr<const SuspensionModel>& model, const std::optional<std::string>& loadCase) {
  if (loadCase) return loadCasePoint(model, *loadCase);
  if (!model->wheels.empty()) return designPoint(*model);
  if (model->project().loadCases.empty())
    throw std::invalid_argument("the project has neither wheels nor load cases: nothing to linearize at");
  return loadCasePoint(model, model->project().loadCases.front().name);
}

py::dict modes(const Project& project, std::optional<std::string> loadCase) {
  auto model = buildModel(project);
  std::atomic<bool> cancel{false};
  const ModesResult r = interruptible<ModesResult>([&] { return computeModes(*model, pointOf(model, loadCase)); }, cancel);
  const std::size_t n = r.modes.size(), b = static_cast<std::size_t>(model->nFreeBodies());
  py::array_t<double> frequency(static_cast<py::ssize_t>(n)), damped(static_cast<py::ssize_t>(n)),
      ratio(static_cast<py::ssize_t>(n));
  py::array_t<std::complex<double>> eigenvalue(static_cast<py::ssize_t>(n));
  py::array_t<double> energy({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(b)});
  py::array_t<bool> oscillatory(static_cast<py::ssize_t>(n));
  py::list dominant, largest;
  auto e = energy.mutable_unchecked<2>();
  for (std::size_t k = 0; k < n; ++k) {
    const Mode& m = r.modes[k];
    frequency.mutable_at(k) = m.frequency;
    damped.mutable_at(k) = m.dampedFrequency;
    ratio.mutable_at(k) = m.dampingRatio;
    eigenvalue.mutable_at(k) = m.eigenvalue;
    oscillatory.mutable_at(k) = m.oscillatory;
    for (std::size_t j = 0; j < b; ++j) e(static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(j)) = m.energy[j];
    dominant.append(model->bodies[model->freeBodies[m.dominantBody]].name);
    largest.append(dominantText(*model, m));
  }
  py::list bodies;
  for (int s : model->freeBodies) bodies.append(model->bodies[s].name);
  py::dict out;
  out["frequency"] = frequency;
  out["damped_frequency"] = damped;
  out["damping_ratio"] = ratio;
  out["eigenvalue"] = eigenvalue;
  out["oscillatory"] = oscillatory;
  out["energy"] = energy;
  out["dominant_body"] = dominant;
  out["largest_energy"] = largest;  // "wheel left + wheel right, in phase (29 % each)"
  out["bodies"] = bodies;
  out["zero_modes"] = r.zeroModes;
  out["point"] = r.point;
  return out;
}

py::dict frequencyResponseOf(const Project& project, std::optional<int> wheel, std::optional<std::string> load,
                             std::optional<int> input, double from, double to, long long points, std::optional<std::string> loadCase,
                             std::optional<std::vector<std::string>> channels) {
  auto model = buildModel(project);
  ResponseInput in;
  if (input) {
    if (wheel || load) throw std::invalid_argument("input= excludes wheel= and load=");
    in.index = inputIndex(*model, *input);
  } else {
    if (!wheel || !load) throw std::invalid_argument("frequency_response needs input=, or wheel= and load=");
    in.kind = ResponseInput::Kind::WheelLoad;
    in.index = wheelIndex(*model, *wheel);
    in.load = loadKey(*load);
  }
  FrequencyOptions o;
  o.from = from;
  o.to = to;
  o.points = countIn("points", points, 2, kMaxPoints);
  const std::vector<Channel> picked = pickChannels(*model, channels);
  std::atomic<bool> cancel{false};
  const FrequencyResponse r = interruptible<FrequencyResponse>(
      [&] { return frequencyResponse(*model, pointOf(model, loadCase), in, picked, o, {}, &cancel); }, cancel);
  const std::size_t n = r.frequency.size(), m = r.outputs.size();
  py::array_t<std::complex<double>> response({static_cast<py::ssize_t>(m), static_cast<py::ssize_t>(n)});
  // Magnitude and phase [deg] as the runner's CSV has them (the same operations, the same bits).
  py::array_t<double> magnitude({static_cast<py::ssize_t>(m), static_cast<py::ssize_t>(n)});
  py::array_t<double> phase({static_cast<py::ssize_t>(m), static_cast<py::ssize_t>(n)});
  auto v = response.mutable_unchecked<2>();
  auto mag = magnitude.mutable_unchecked<2>();
  auto ph = phase.mutable_unchecked<2>();
  for (std::size_t c = 0; c < m; ++c)
    for (std::size_t k = 0; k < n; ++k) {
      const auto i = static_cast<py::ssize_t>(c), j = static_cast<py::ssize_t>(k);
      v(i, j) = r.response[c][k];
      mag(i, j) = std::abs(r.response[c][k]);
      ph(i, j) = std::arg(r.response[c][k]) * 180.0 / M_PI;
    }
  py::dict out;
  out["frequency"] = toArray(r.frequency);
  out["outputs"] = r.outputs;
  out["units"] = r.units;
  out["response"] = response;
  out["magnitude"] = magnitude;
  out["phase"] = phase;
  out["input_name"] = r.inputName;
  out["input_unit"] = r.inputUnit;
  out["point"] = r.point;
  return out;
}

// ---- studies ----

/// A study and its project, read once; evaluations and runs share it read-only.
class PyStudy {
 public:
  explicit PyStudy(StudyContext c) : context_(std::move(c)) {}
  static PyStudy load(const std::string& path) { return PyStudy(loadStudy(path)); }
  static PyStudy fromText(const std::string& text, const std::string& path, const std::optional<Project>& project) {
    return PyStudy(studyContext(text, path, project ? &*project : nullptr));
  }
  const StudyContext& context() const { return context_; }

  std::vector<std::string> variables() const {
    std::vector<std::string> out;
    for (const auto& v : context_.study.variables) out.push_back(v.name);
    return out;
  }
  std::vector<std::string> criteria() const {
    std::vector<std::string> out;
    for (const auto& c : context_.study.criteria) out.push_back(c.name);
    return out;
  }
  Project apply(const std::vector<double>& values) const { return applyDesign(context_, checkedValues(values)); }

  /// Every criterion of one design (the study's load cases run with the values set).
  py::dict evaluate(const std::vector<double>& values) {
    const std::vector<double> v = checkedValues(values);
    std::atomic<bool> cancel{false};
    StudyContext c = context_;
    c.cancel = &cancel;
    const DesignResult r = interruptible<DesignResult>([&] { return evaluateDesign(c, v); }, cancel);
    if (!r.ok) throw SimulationError("the design " + describe(v) + " failed: " + r.message);
    py::dict out;
    for (std::size_t k = 0; k < r.criteria.size(); ++k) out[py::str(context_.study.criteria[k].name)] = r.criteria[k];
    return out;
  }

  py::dict run(long long threads, bool fresh, std::optional<long long> maxRuns) {
    countIn("threads", threads, 1, 1024);  // elastokin-study --threads
    std::atomic<bool> cancel{false};
    StudyContext c = context_;
    c.cancel = &cancel;
    ThreadExecutor executor(c, static_cast<int>(threads));
    StudyRunOptions o;
    o.fresh = fresh;
    o.maxNewRuns = maxRuns.value_or(-1);
    o.stop = &cancel;
    const StudyOutcome r = interruptible<StudyOutcome>([&] { return runStudy(c, executor, o); }, cancel);
    const std::size_t n = r.records.size(), nv = context_.study.variables.size(), nc = context_.study.criteria.size();
    py::array_t<long long> runs(static_cast<py::ssize_t>(n));
    py::array_t<bool> ok(static_cast<py::ssize_t>(n));
    py::array_t<double> values({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(nv)});
    py::array_t<double> criteria({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(nc)});
    auto V = values.mutable_unchecked<2>();
    auto C = criteria.mutable_unchecked<2>();
    py::list phases, messages;
    for (std::size_t k = 0; k < n; ++k) {
      const StudyRecord& rec = r.records[k];
      runs.mutable_at(k) = rec.run;
      ok.mutable_at(k) = rec.result.ok;
      phases.append(rec.phase);
      messages.append(rec.result.message);
      for (std::size_t j = 0; j < nv; ++j)
        V(static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(j)) = j < rec.values.size() ? rec.values[j] : NAN;
      for (std::size_t j = 0; j < nc; ++j)
        C(static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(j)) =
            rec.result.ok && j < rec.result.criteria.size() ? rec.result.criteria[j] : NAN;
    }
    py::list sensitivities;
    for (const Sensitivity& s : r.sensitivities) {
      py::dict d;
      d["criterion"] = s.criterion;
      d["variable"] = s.variable;
      d["value"] = s.value;
      d["derivative"] = s.derivative;
      d["normalized"] = s.normalized;
      d["ok"] = s.ok;
      d["message"] = s.message;
      sensitivities.append(d);
    }
    py::list optimizations;
    for (const OptimizationResult& x : r.optimizations) {
      py::dict d;
      d["objective"] = x.objective;
      d["start"] = x.start;
      d["best"] = x.best;
      d["start_objective"] = x.startObjective;
      d["best_objective"] = x.bestObjective;
      d["best_feasible"] = x.bestFeasible;
      d["start_criteria"] = x.startCriteria;
      d["best_criteria"] = x.bestCriteria;
      d["evaluations"] = x.evaluations;
      d["stop_reason"] = x.stopReason;
      optimizations.append(d);
    }
    py::dict out;
    out["run"] = runs;
    out["phase"] = phases;
    out["ok"] = ok;
    out["values"] = values;
    out["criteria"] = criteria;
    out["message"] = messages;
    out["variables"] = variables();
    out["criteria_names"] = this->criteria();
    out["sensitivities"] = sensitivities;
    out["optimizations"] = optimizations;
    out["new_runs"] = r.newRuns;
    out["cached_runs"] = r.cachedRuns;
    out["failed_runs"] = r.failedRuns;
    out["stopped"] = r.stopped;
    out["best_project"] = r.bestProjectPath;
    out["summary"] = r.summary;
    out["results_file"] = context_.study.resultsPath;
    return out;
  }

 private:
  std::vector<double> checkedValues(const std::vector<double>& values) const {
    if (values.size() != context_.study.variables.size())
      throw std::invalid_argument("the design has " + std::to_string(values.size()) + " values; the study has " +
                                  std::to_string(context_.study.variables.size()) + " variables");
    return values;
  }
  static std::string describe(const std::vector<double>& v) {
    std::string s = "(";
    for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + shortestText(v[k]);
    return s + ")";
  }
  StudyContext context_;
};

// ---- exceptions ----

void raiseModelError(const ModelError& e) {
  py::object type = py::reinterpret_borrow<py::object>(gModelError);
  py::object exc = type(py::str(e.what()));
  exc.attr("errors") = py::cast(e.errors());
  PyErr_SetObject(gModelError, exc.ptr());
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "The Elastokin engine (docs/python.md); use the package elastokin.";

  gModelError = PyErr_NewExceptionWithDoc(
      "elastokin.ModelError",
      "Bad input: a project, study or file with errors. str() lists every error, one per line; "
      ".errors holds each as a Problem (file, table, row, field, message).",
      PyExc_ValueError, nullptr);
  gSimulationError = PyErr_NewExceptionWithDoc(
      "elastokin.SimulationError", "A run or analysis that cannot go on (divergence, no equilibrium): says when and where.",
      PyExc_RuntimeError, nullptr);
  gFileError = PyErr_NewExceptionWithDoc("elastokin.FileError",
                                         "A file that cannot be read or written: names the file and the cause.",
                                         PyExc_OSError, nullptr);
  m.add_object("ModelError", py::reinterpret_borrow<py::object>(gModelError));
  m.add_object("SimulationError", py::reinterpret_borrow<py::object>(gSimulationError));
  m.add_object("FileError", py::reinterpret_borrow<py::object>(gFileError));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ModelError& e) {
      raiseModelError(e);
    } catch (const SimulationError& e) {
      PyErr_SetString(gSimulationError, e.what());
    } catch (const IoError& e) {
      PyErr_SetString(gFileError, e.what());
    }
  });

  py::class_<Diagnostic>(m, "Problem", "One problem of a project or file: where it is and what is wrong.")
      .def_property_readonly("severity",
                             [](const Diagnostic& d) { return d.severity == Severity::Error ? "error" : "warning"; })
      .def_property_readonly("file", [](const Diagnostic& d) { return d.where.file; })
      .def_property_readonly("table", [](const Diagnostic& d) { return d.where.table; })
      .def_property_readonly("row", [](const Diagnostic& d) { return d.where.row; })
      .def_property_readonly("row_name", [](const Diagnostic& d) { return d.where.rowName; })
      .def_property_readonly("field", [](const Diagnostic& d) { return d.where.field; })
      .def_property_readonly("line", [](const Diagnostic& d) { return d.where.line; })
      .def_property_readonly("column", [](const Diagnostic& d) { return d.where.column; })
      .def_property_readonly("message", [](const Diagnostic& d) { return d.message; })
      .def("__str__", &Diagnostic::text)
      .def("__repr__", [](const Diagnostic& d) { return "<Problem " + d.text() + ">"; });

  py::class_<Project>(m, "Project", "A suspension project: its tables, as the project file holds them.")
      .def_static("load", &readProject, py::arg("path"),
                  "Reads a project file: a file that is not one (syntax, types, unknown keys) is a ModelError listing "
                  "every problem; check() lists what else is wrong with the tables.")
      .def_static("from_json", &parseProject, py::arg("text"), py::arg("path") = "<text>",
                  "A project from the text of a project file (relative files resolved against `path`'s folder).")
      .def("to_json", &writeProjectText, "The project file's text (the canonical form the workbench saves).")
      .def("save", [](const Project& p, const std::string& path) { writeProject(p, path); }, py::arg("path"),
           "Writes the project file (safely: a temporary renamed over the target). The file reads the signal tables "
           "this project reads (names relative to the project file are re-expressed against the new folder); a "
           "path that is one of them is a ModelError and the table is kept.")
      .def("get", &tableValue, py::arg("path"), "The number at a cell path, e.g. 'bushings/9/x.stiffness [N/m]'.")
      .def(
          "set", [](Project& p, const std::string& path, double value) { p = withTableValue(p, path, value); },
          py::arg("path"), py::arg("value"), "Sets the number at a cell path (in place).")
      .def(
          "with_values",
          [](const Project& p, const std::map<std::string, double>& cells) {
            return withTableValues(p, std::vector<std::pair<std::string, double>>(cells.begin(), cells.end()));
          },
          py::arg("cells"), "A copy with the cells {path: value} set.")
      .def("twin_path", &twinPath, py::arg("path"), "The same cell of the row's left/right twin.")
      .def(
          "check", [](const Project& p) { return check(p).items(); },
          "Every problem of the project (errors and warnings), as Problem records.")
      .def("copy", [](const Project& p) { return Project(p); })
      .def("__copy__", [](const Project& p) { return Project(p); })
      .def("__deepcopy__", [](const Project& p, py::dict) { return Project(p); }, py::arg("memo"))
      .def("__eq__", [](const Project& a, const Project& b) { return a == b; })
      .def_readwrite("name", &Project::name)
      .def_readwrite("description", &Project::description)
      .def_property_readonly("path", [](const Project& p) { return p.sourcePath; })
      .def_property_readonly("load_cases",
                             [](const Project& p) {
                               std::vector<std::string> v;
                               for (const auto& l : p.loadCases) v.push_back(l.name);
                               return v;
                             })
      .def_property_readonly("inputs",
                             [](const Project& p) {
                               std::vector<std::string> v;
                               for (const auto& i : p.inputs) v.push_back(i.name);
                               return v;
                             })
      .def_property_readonly("outputs",
                             [](const Project& p) {
                               std::vector<std::string> v;
                               for (const auto& o : p.outputs) v.push_back(o.name);
                               return v;
                             })
      .def_property_readonly("wheels",
                             [](const Project& p) {
                               std::vector<std::pair<int, std::string>> v;
                               for (const auto& w : p.wheels) v.emplace_back(w.id, w.name);
                               return v;
                             })
      .def("__repr__", [](const Project& p) {
        return "<Project '" + p.name + "': " + std::to_string(p.bodies.size()) + " bodies, " +
               std::to_string(p.bushings.size()) + " bushings, " + std::to_string(p.p2ps.size()) + " P2P elements>";
      });

  m.def("run", &run, py::arg("project"), py::arg("loadcase"), py::arg("dt") = py::none(), py::arg("duration") = py::none(),
        py::arg("start") = 0.0, py::arg("integrator") = "lsrt2", py::arg("lin_every") = py::none(),
        py::arg("channels") = py::none(), py::arg("sample_rate") = py::none(), py::arg("solver") = "topology",
        py::arg("hold_inputs") = false, py::arg("threads") = 1);

  py::class_<Simulation::Snapshot>(m, "Snapshot", "A saved point of a Simulator's run (Simulator.snapshot()).");
  py::class_<Simulator>(m, "Simulator")
      .def(py::init<const Project&, std::optional<std::string>, std::optional<double>, const std::string&, std::optional<int>,
                    double, const std::string&>(),
           py::arg("project"), py::arg("loadcase") = py::none(), py::arg("dt") = py::none(), py::arg("integrator") = "lsrt2",
           py::arg("lin_every") = py::none(), py::arg("start") = 0.0, py::arg("solver") = "topology")
      .def_property_readonly("time", &Simulator::time)
      .def_property_readonly("steps", &Simulator::steps)
      .def_property_readonly("input_names", &Simulator::inputNames)
      .def_property_readonly("input_units", &Simulator::inputUnits)
      .def_property_readonly("output_names", &Simulator::outputNames)
      .def_property_readonly("output_units", &Simulator::outputUnits)
      .def("step", &Simulator::step, py::arg("inputs") = py::none(), py::arg("steps") = 1)
      .def("release", &Simulator::release, py::arg("name") = py::none())
      .def_property_readonly("outputs", &Simulator::outputs)
      .def_property_readonly("output_array", &Simulator::outputArray)
      .def_property_readonly("inputs", &Simulator::inputs)
      .def("snapshot", &Simulator::snapshot)
      .def("restore", &Simulator::restore, py::arg("snapshot"));

  m.def("kc", &kc, py::arg("project"), py::arg("analysis"), py::arg("wheel") = py::none(), py::arg("load") = py::none(),
        py::arg("input") = py::none(), py::arg("from_") = py::none(), py::arg("to") = py::none(),
        py::arg("points") = py::none(), py::arg("tolerance") = 1e-8);
  m.def("manoeuvre", &manoeuvre, py::arg("project"), py::arg("name"), py::arg("params") = std::map<std::string, double>{},
        "Runs a standard manoeuvre (step-steer, steady-state-circle, sine-with-dwell, swept-sine, double-lane-change, "
        "double-lane-change-limit) on a vehicle on tyres: "
        "a dict with its metrics, units, parameters used, the vehicle's time series (columns) and, for the swept sine, "
        "the frequency response (frequency, yaw rate gain and phase, lateral acceleration gain and phase).");
  m.def("manoeuvres", [] {
    py::dict all;
    for (const std::string& n : manoeuvreNames()) {
      py::list params;
      for (const ManoeuvreParameter& p : manoeuvreParameters(n)) params.append(py::make_tuple(p.key, p.unit, p.value, p.meaning));
      all[py::str(n)] = params;
    }
    return all;
  }, "Every manoeuvre's parameters: (key, unit, default, meaning).");
  m.def("modes", &modes, py::arg("project"), py::arg("loadcase") = py::none());
  m.def("frequency_response", &frequencyResponseOf, py::arg("project"), py::arg("wheel") = py::none(),
        py::arg("load") = py::none(), py::arg("input") = py::none(), py::arg("from_") = 0.5, py::arg("to") = 100.0,
        py::arg("points") = 500, py::arg("loadcase") = py::none(), py::arg("channels") = py::none());

  py::class_<PyStudy>(m, "Study")
      .def_static("load", &PyStudy::load, py::arg("path"))
      .def_static("from_json", &PyStudy::fromText, py::arg("text"), py::arg("path"), py::arg("project") = py::none())
      .def_property_readonly("variables", &PyStudy::variables)
      .def_property_readonly("criteria", &PyStudy::criteria)
      .def_property_readonly("project", [](const PyStudy& s) { return s.context().project; })
      .def_property_readonly("type", [](const PyStudy& s) { return std::string(toString(s.context().study.settings.type)); })
      .def_property_readonly("results_file", [](const PyStudy& s) { return s.context().study.resultsPath; })
      .def("apply", &PyStudy::apply, py::arg("values"))
      .def("evaluate", &PyStudy::evaluate, py::arg("values"))
      .def("run", &PyStudy::run, py::arg("threads") = 1, py::arg("fresh") = false, py::arg("max_runs") = py::none());
}
