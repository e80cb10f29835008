// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file simulation.h
/// One run of a load case: initial state (static equilibrium or as modelled), fixed-step LSRT2,
/// divergence checks after every step, sampled output channels.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/analysis/equilibrium.h"
#include "engine/dynamics/outputs.h"
#include "engine/integrators/integrator.h"

namespace ek {

struct RunOptions {
  double dt = 1e-3;            ///< [s]
  int linearizeEvery = 1;
  double start = 0.0;          ///< [s]: the run covers [start, start + duration] of the load case
  double duration = -1.0;      ///< [s]; negative: the rest of the load case after start
  double sampleRate = -1.0;    ///< [Hz]; negative: one sample per step
  std::vector<std::string> channels;  ///< empty: all outputs of the project
  std::string solver = "topology";
  bool kinematicsDerivative = true;
  std::string integrator = "lsrt2";  ///< or "cvode" (the reference)
  double relativeTolerance = 1e-9;   ///< CVODE
  int threads = 1;                   ///< LSRT2: threads of the parallel step (same results)
  std::string cvodeSolver = "auto";  ///< CVODE Newton systems: "dense", "klu" or "auto" (KLU above 60 DOF)
  double rhoInfinity = 0.9;          ///< generalized-alpha: spectral radius at infinity, [0, 1]
  /// LSRT2 with threads > 1: the parallel step on every step instead of only while it is the
  /// faster one (parallel_choice.h); for benchmarks of the parallel step itself.
  bool threadsAlways = false;
  /// Steps between two checks of whether the parallel step is the faster (parallel_choice.h).
  long long threadsRecheck = 5000;
  /// Keep the samples (results()). Off for a run read from outside as it goes (an FMU, a script's
  /// step-wise loop: outputValues()): nothing is recorded and no memory is set aside for it.
  bool record = true;
  /// A sample is taken from the next step's linearization when that linearizes at the sample's
  /// state (saves an evaluation; the inputs are then the next step's). Off: every sample right
  /// after its step, with the inputs the step had (what an FMU's importer reads before it sets the
  /// next inputs: elastokin-sim --hold-inputs).
  bool samplesFromNextStep = true;
  /// Every input held over each step at the load case's value at the step's start (rate zero),
  /// as an FMU's importer gives them from an input file; the samples are taken right after each
  /// step (samplesFromNextStep is then off). elastokin-sim --hold-inputs.
  bool holdInputs = false;
};

/// The options of a run of `project` as elastokin-sim chooses them: the project's step,
/// linearization interval and sample rate where `dt`, `linearizeEvery` or `sampleRate` are
/// negative; the project's rate only when it divides the step rate (else every step, and `note`
/// says so). Everything else as in `given`.
RunOptions projectRunOptions(const Project& project, RunOptions given, std::string* note = nullptr);

/// Physical bounds beyond which a run counts as diverged.
struct DivergenceLimits {
  /// From the start of the run [m]; on tyres (a vehicle that drives) from where the whole model's
  /// centre of mass has taken the body, so that driving on is no divergence.
  double maxDisplacement = 10.0;
  double maxSpeed = 1e3;               ///< [m/s]
  double maxAngularSpeed = 1e5;        ///< [rad/s]
  double maxPitch = 89.0 * M_PI / 180; ///< |alpha_y'|, the Cardan singularity is at 90 deg
};

/// The integrator's local error estimates over a run (LSRT2's embedded solution): RMS over the
/// steps and the largest with its time, per kind (positions [m], angles [rad]).
struct ErrorSummary {
  bool available = false;
  long long steps = 0;
  double positionRms = 0.0, positionMax = 0.0, positionMaxTime = 0.0;
  double angleRms = 0.0, angleMax = 0.0, angleMaxTime = 0.0;
  double positionWarnTime = -1.0;  ///< first time the position estimate exceeded the threshold, -1 if never
};

class Simulation {
 public:
  /// @throws ModelError (load case tables), std::invalid_argument (options, channels, a run longer
  /// than kMaxSteps or recording more than kMaxRecordedValues).
  Simulation(std::shared_ptr<const SuspensionModel> model, const std::string& loadCase, const RunOptions& options);

  /// Sets the initial state by the load case's rule and records the first sample.
  /// @throws SimulationError if the equilibrium is not found.
  void initialize();
  /// Advances one step, checks divergence, records when a sample is due.
  /// @returns false when the run is complete.
  /// @throws SimulationError naming the time, step and body on divergence.
  bool step();
  /// Advances the run to time tEnd (an FMU's communication point): whole steps while the next
  /// grid time start + k dt is not past tEnd; where the run stands between two grid times, or
  /// tEnd lies between them, a shorter step of the same method (Integrator::shortStep) to the
  /// next grid time or to tEnd. Times within kGridTolerance dt of a grid time count as on it, so
  /// a run advanced to grid times takes exactly the steps of step(); a sample is recorded at
  /// grid times only. After a time off the grid, step() goes on to the next grid time.
  /// @throws std::invalid_argument for tEnd before the current time or past endTime(), or a
  ///   method without shorter steps (nothing is stepped then); SimulationError as step().
  void advanceTo(double tEnd);
  static constexpr double kGridTolerance = 1e-9;
  /// The run's end, start + duration [s] (on the step grid or not: advanceTo reaches it).
  double endTime() const { return options_.start + options_.duration; }
  /// True when the run stands between two grid times (after advanceTo).
  bool offGrid() const { return offGrid_; }
  /// initialize() then step() to the end; `progress(fraction)` is called every ~1 % of steps.
  void run(const std::function<void(double)>& progress = {});

  const State& state() const { return state_; }
  const Recorder& results() const { return recorder_; }
  const SuspensionModel& model() const { return *model_; }
  const Workspace& workspace() const { return ws_; }
  long long stepsDone() const { return step_; }
  long long totalSteps() const { return nSteps_; }
  double duration() const { return nSteps_ * options_.dt; }
  const EquilibriumResult& equilibrium() const { return equilibrium_; }
  const RunOptions& options() const { return options_; }
  const Integrator& integrator() const { return *integrator_; }
  Integrator& integrator() { return *integrator_; }
  DivergenceLimits limits;
  /// Local error estimates so far (RMS, largest); a threshold for the position estimate [m]
  /// marks the first step above it (positionWarnTime). 0: no threshold.
  ErrorSummary errorSummary() const;
  double positionErrorThreshold = 0.0;

  /// Input `index` (model order) held at `value` from the current time on, instead of the load
  /// case's signal (InputSignals::hold): set from outside, as an FMU's importer does. No allocation.
  void holdInput(int index, double value) { inputs_.hold(index, value); }
  void releaseInput(int index) { inputs_.release(index); }
  bool inputHeld(int index) const { return inputs_.held(index); }
  /// The inputs' values at the current time (held or the load case's), into u (sized to the
  /// model's inputs: allocates only when its size differs).
  void inputValues(VecX& u) const {
    if (u.size() != model_->nInputs()) u.resize(model_->nInputs());
    inputs_.evaluate(state_.t, u);
  }
  /// The values of `channels` at the current state and time, into out (channels.size()); no
  /// allocation. @throws SimulationError as the element stages do.
  void outputValues(const std::vector<Channel>& channels, double* out);

  /// What restoring a run to an earlier point needs (FMI get/set state): the state, the step
  /// count and the held inputs. A restore makes the next step linearize afresh.
  struct Snapshot {
    State state;
    long long step = 0;
    std::vector<char> held;
    VecX heldValues;
    /// A path follower with a reaction time: the commands it has not acted on yet (by step modulo
    /// their number), the step it last looked at (-1: not yet) and the angle it acts on now.
    std::vector<double> steering;
    long long steeringStep = -1;
    double steeringActed = 0.0;
  };
  Snapshot snapshot() const;
  /// What makes `s` unfit for this run, every problem in one line ("" when it fits): vectors of
  /// another length (another model, or Maxwell states of another length), a step outside
  /// 0..steps, a time or a value that is not finite.
  std::string snapshotProblem(const Snapshot& s) const;
  /// @throws std::invalid_argument with snapshotProblem() when the snapshot does not fit; the
  /// run is then unchanged.
  void restore(const Snapshot& s);

 private:
  void record(const LocalErrorEstimate& stepError);
  /// A step shorter than dt from the current time to tTo, the next grid time (toGrid) or a time
  /// before it.
  void shortStep(double tTo, bool toGrid);
  /// After a step: the error summary, the divergence check and the sample when one is due (at a
  /// grid time; after a whole step it may come from the next step's linearization).
  void afterStep(bool onGrid, bool wholeStep);
  /// The load case's speed follower (if any) sets its drive inputs for the next step from the
  /// current state. No allocation.
  void followSpeed();
  /// The load case's path follower (if any) sets the steering-wheel angle for the next step from
  /// the current state, with a reaction time from the state that many steps before (the
  /// command it computed then). No allocation.
  void followPath();
  /// Rethrows an integrator's failure on the step that was to end at tEnd with its cause.
  [[noreturn]] void stopped(const SimulationError& e, double tEnd);
  /// The last step's local error estimate; zero before the first step or without one.
  LocalErrorEstimate lastError() const;
  void flushPending();
  void checkDivergence() const;
  /// The first cause of a divergence, or empty: an input that is not finite over the step ending
  /// at t; a body whose state is not finite or beyond the limits.
  std::string inputCause(double t) const;
  std::string bodyCause() const;
  enum class BodyLimit { Within, NotFinite, Displacement, Speed, AngularSpeed, Pitch };
  /// Free body l against `limits`, its displacement less `shift` (travel()).
  BodyLimit bodyLimit(int l, const Vec3& shift) const;
  /// How far the model's centre of mass has moved since the start when it stands on tyres (it
  /// drives on the road), zero otherwise: what a body's displacement is measured from.
  Vec3 travel() const;

  std::shared_ptr<const SuspensionModel> model_;
  const LoadCaseRow* loadCase_;
  RunOptions options_;
  InputSignals inputs_;
  Workspace ws_, outWs_;
  std::unique_ptr<Integrator> integrator_;
  State state_;
  Recorder recorder_;
  std::vector<Vec3> markerStart_;
  VecX r0_;
  int followerSlot_ = -1;             ///< the speed follower's body's state slot, -1 without one
  std::vector<int> followerInputs_;   ///< its drive inputs (model order)
  int pathSlot_ = -1;                 ///< the path follower's body's state slot, -1 without one
  int pathInput_ = -1;                ///< its steering input (model order)
  /// Its reaction time in steps (N = size, 0: none): the commands of the last N grid steps, the
  /// command of step s at s % N; the grid step it last looked at and the command it acts on.
  std::vector<double> steerHistory_;
  long long steerStep_ = -1;
  double steerActed_ = 0.0;
  EquilibriumResult equilibrium_;
  long long nSteps_ = 0, step_ = 0, sampleStride_ = 1;
  bool offGrid_ = false;  ///< state_.t lies between the grid times of step_ and step_ + 1
  /// A sample of the current state is due but not yet recorded: the next step's linearization
  /// computes everything it needs, so it is taken from there (or evaluated when that does not come).
  bool pending_ = false;
  double pendingTime_ = 0.0;
  LocalErrorEstimate pendingError_;  ///< the estimate of the step that ended at pendingTime_
  ErrorSummary error_;
  double positionSq_ = 0.0, angleSq_ = 0.0;
};

}  // namespace ek
