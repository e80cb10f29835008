// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file stage_system.h
/// The linear system that every linear-implicit stage and every Newton iteration of the
/// fixed-step methods solves (docs/method.md, "One linear system for every method"):
///
///   (I - hg J) (U_r, U_v) = (R_r, R_v),   J = [[N, K], [M^-1 J_r, M^-1 J_v]]
///
/// with J the analytic linearization (K = T^-1 and N = d(K v)/dr per body; N left out with the
/// papers' frozen kinematics). Eliminating U_r body by body keeps the 6x6 block pattern:
///
///   U_r = P R_r + hg Kt U_v,   A U_v = M R_v + hg J_r P R_r,
///   A = M - hg J_v - hg^2 J_r Kt,   P = (I - hg N)^-1,   Kt = P K   (paper 003 eq. 19).
///
/// Every method builds A with one row function, from the world-wrench partials Jw_r, Jw_v
/// (assembleStageMatrixRowFromWrenches(); the linearization need not assemble J_r, J_v): LSRT2
/// in its own stages (which also run on threads), the W-methods, BDF2 and generalized-alpha
/// through StageSystem.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/function_ref.h"
#include "engine/dynamics/linearize.h"
#include "engine/dynamics/workspace.h"
#include "engine/solvers/linear_solver.h"

namespace ek {

/// A body's P = (I - hg N)^-1 (identity with the frozen kinematics) and Kt = P K, from its N
/// and K = T^-1.
void stageKinematics(const Mat3& N, const Mat3& Kinv, double hg, bool kinematicsDerivative, Mat3& P, Mat3& Kt);
/// The same from a body's kinematics, and RTKt = R T Kt: Kt in the coordinates of the
/// world-wrench partials (the columns of assembleStageMatrixRowFromWrenches()).
void stageKinematics(const BodyKinematics& b, double hg, bool kinematicsDerivative, Mat3& P, Mat3& Kt, Mat3& RTKt);

/// Block row l of A = M - cv J_v - cr J_r Kt (the stage systems: cv = hg, cr = hg^2) from the
/// world-wrench partials Jw_r, Jw_v (J_r, J_v need not be assembled), with its torque rows in
/// world axes: with
/// T_l = diag(I, R_l^T) and RTKt_k = R_k T_k Kt_k,
///   A_lk = T_l^-1 M_lk - (cv Jw_v + cr Jw_r diag(I, RTKt_k))   (+ [0, 0; 0, [tau_l]x RTKt_l]
/// and cv's gyroscopic block on the diagonal), which is T_l^-1 times the block of
/// A in generalized rows: J_r = T_l Jw_r diag(I, R_k T_k) and J_v = T_l Jw_v folded in, and
/// no product with T_l at all (a right-hand side goes to the same rows: StageSystem::rhsRow()).
/// A[s] is where block s goes (a solver's own storage, LinearSolver::blockStorage()).
void assembleStageMatrixRowFromWrenches(const SuspensionModel& model, const Workspace& ws, int l, double cv,
                                        double cr, const std::vector<Mat3>& RTKt, Mat6* const* A);

/// out = M x (mass on the translations, the inertia tensor on the body-axis rotations).
void massTimes(const SuspensionModel& model, const VecX& x, VecX& out);
/// x = M^-1 b, body by body.
void massSolve(const SuspensionModel& model, const VecX& b, VecX& x);
/// r' = K v with the K of the last linearization (ws.Kinv): the kinematic rates at the state
/// linearized, without evaluating anything.
void kinematicRates(const SuspensionModel& model, const Workspace& ws, const VecX& v, VecX& rDot);

// Maxwell branches in the stage equations (docs/method.md, "Maxwell branches"): the branch
// deflections are eliminated per viscoelastic direction; these apply a direction's coupling
// (ws.branches, from the linearization).

/// rhs -= sum_d W_d f_d: the generalized forces of branch-force changes f (one per direction).
void addBranchForces(const Workspace& ws, const VecX& f, VecX& rhs);

/// q_d += G_d . (xr, xv): the directions' deflection-rate changes for changes (xr, xv) of the state.
void addBranchRateChanges(const Workspace& ws, const VecX& xr, const VecX& xv, VecX& q);

/// q_d += the directions' deflection-rate changes for changes du, dud of the motion inputs and
/// their rates (bushings on driven bodies).
void addBranchInputRateChanges(const SuspensionModel& model, const Workspace& ws, const VecX& du, const VecX& dud,
                               VecX& q);

/// p_d += D_d . xr + the motion inputs' part for du: the directions' deflection changes (used by
/// branches scaled with the static slope).
void addBranchDeflectionChanges(const SuspensionModel& model, const Workspace& ws, const VecX& xr, const VecX& du,
                                VecX& p);

/// The eliminated branch rows of a stage with gain g (docs/method.md, "Maxwell branches"), per
/// branch state i of direction d, with l_i = k_i / c_i and the linearization's scaling s, s':
///   dz_i = (offset_i + q_d - l_i s zbar_i - l_i s' z_lin,i p_d) / (1 + g l_i s)
/// (offset or zbar may be null: left out). q: the directions' rate terms, p: deflection changes.
void eliminatedBranchIncrements(const SuspensionModel& model, const Workspace& ws, const VecX* offset, const VecX& q,
                                const VecX* zbar, const VecX& zLin, const VecX& p, double g, VecX& dz);

/// zDot = x' - l_i s(x) z: the branch states' rates at the bushings ws last evaluated (their
/// deflections x and rates x'; s the slope scaling at x).
void branchStateRates(const SuspensionModel& model, const Workspace& ws, const VecX& z, VecX& zDot);

/// The directions' deflection rates in ws (from its last evaluation of the bushings).
void branchRates(const SuspensionModel& model, const Workspace& ws, VecX& q);

/// Throws std::invalid_argument when the model's Maxwell branches cannot be integrated by
/// `method` (every thread count of LSRT2 can).
void checkBranchesSupported(const SuspensionModel& model, const std::string& method);

/// For the methods that carry history from step to step (BDF2, generalized-alpha): notices a
/// state set from outside (the first step, a new run), which must start a new history.
class StepHistory {
 public:
  /// True if `state` is the one the last step left (bit for bit).
  bool continues(const State& state) const {
    return started_ && state.t == t_ && state.r == r_ && state.v == v_;
  }
  /// Records the state a step leaves. Allocates only on the first call (sizes are fixed).
  void leave(const State& state) {
    started_ = true;
    t_ = state.t;
    r_ = state.r;
    v_ = state.v;
  }

 private:
  bool started_ = false;
  double t_ = 0.0;
  VecX r_, v_;
};

/// Seconds since t0, and t0 set to now: the clock of the phase times.
double lapSeconds(std::chrono::steady_clock::time_point& t0);

/// Wall time of a linear-implicit step's phases, accumulated over steps (when timing is on).
struct PhaseTimes {
  double linearize = 0.0, assemble = 0.0, factorize = 0.0, solve = 0.0, other = 0.0;  ///< [s]
  long long linearizations = 0, steps = 0;
};

/// The stage system of a linear-implicit method. A is assembled body by body and row by row
/// (bodyOfA(), rowOfA(): what a StageRunner runs, on one thread or by the threads' rows) into the
/// solver's own block storage where it has one (factorized in place), else into blocks of its own.
/// A stage in its general form,
///
///   U_r = P R_r + hg Kt U_v,   A U_v = b + J_r (dr0 + hg P R_r) + J_v dv0,
///
/// covers every method: the W-methods, BDF2 (b = M R_v, no offsets) and LSRT2 (R_r the linear
/// model's kinematic rates at the stage values, b = h + J_u du, dr0, dv0 the stage values' offsets
/// from the linearization point). Row by row: stageRow() (P R_r and the products' argument),
/// rhsRow() (b plus the products, in A's world-torque rows), the solve, finishRow() (U_r).
class StageSystem {
 public:
  StageSystem(const SuspensionModel& model, std::unique_ptr<LinearSolver> solver, bool kinematicsDerivative);

  // A = M - cv J_v - cr J_r Kt, Kt = P K, P = (I - hgN N)^-1 (I with the frozen kinematics).
  /// The next A is the stage matrix of factor hg: cv = hg, cr = hg^2, hgN = hg.
  void beginAssembly(double hg);
  /// The next A is the Newton matrix in the accelerations (generalized-alpha): the given cv, cr,
  /// K without N.
  void beginVelocityAssembly(double cv, double cr);
  /// Body l's P, Kt, R T Kt and what the solves keep of the linearization point (R, R T, w_B), from
  /// its kinematics in ws. @pre beginAssembly() or beginVelocityAssembly().
  void bodyOfA(const Workspace& ws, int l);
  /// Block row l of A from the world-wrench partials in ws, and body l's torque (kept).
  /// @pre bodyOfA() ran for every free body.
  void rowOfA(const Workspace& ws, int l);
  /// Factorizes the assembled A. @throws SimulationError if A is singular.
  void factorizeAssembled();
  /// Whether A is assembled in the solver's own storage (factorizeAssembled() in place).
  bool inPlace() const { return inPlace_; }
  /// All of the above on the calling thread, for the factor hg.
  void factorize(const Workspace& ws, double hg);

  /// Row l of a stage before the products: P R_r, and y = dr0 + hg P R_r in the world-wrench
  /// partials' coordinates (dr0 null: zero).
  void stageRow(int l, const VecX& Rr, const VecX* dr0);
  /// Row l of the stage's right-hand side b + J_r y + J_v dv0 (dv0 null: zero), its torque rows in
  /// world axes, into rhs(). ws holds the world-wrench partials of the last factorization.
  /// @pre stageRow() ran for every free body.
  void rhsRow(const Workspace& ws, int l, const VecX& b, const VecX* dv0);
  /// Row l of U_r = P R_r + hg Kt U_v.
  void finishRow(int l, const VecX& Uv, VecX& Ur) const;
  /// The right-hand side rhsRow() writes (and a split solve substitutes in place).
  VecX& rhs() { return rhs_; }
  /// (U_r, U_v) from R_r and b = M R_v (the velocity rows already multiplied by M), no offsets,
  /// on the calling thread. No allocation.
  void solve(const Workspace& ws, const VecX& Rr, const VecX& MRv, VecX& Ur, VecX& Uv);

  /// For Newton iterations in the accelerations (generalized-alpha): A = M - cv J_v - cr J_r K
  /// (K the linearization's, no N), factorized; solveVelocity() then solves A x = b (b in
  /// generalized rows, as the residuals).
  void factorizeVelocityMatrix(const Workspace& ws, double cv, double cr);
  void solveVelocity(const VecX& b, VecX& x);

  double hg() const { return hg_; }
  const LinearSolver& solver() const { return *solver_; }
  LinearSolver& solver() { return *solver_; }
  long long factorizations() const { return factorizations_; }
  long long solves() const { return solves_; }

 private:
  const SuspensionModel& model_;
  std::unique_ptr<LinearSolver> solver_;
  bool kinematicsDerivative_;
  bool inPlace_ = false;
  // The factors of the A being assembled (beginAssembly()).
  double hg_ = 0.0, hgN_ = 0.0, cv_ = 0.0, cr_ = 0.0;
  bool withN_ = true;
  /// b with its torque rows in world axes, into rhs_.
  void toWorldRows(const VecX& b);
  /// Per body: P, Kt, R T Kt, and of the linearization point R (A's torque rows are world rows),
  /// R T (to the world-wrench coordinates), w_B (J_v's gyroscopic block) and the torque.
  std::vector<Mat3> P_, Kt_, RTKt_, R_, RT_;
  std::vector<Vec3> wB_, tau_;
  std::vector<Mat6> A_;  ///< A, for a solver without storage of its own (empty otherwise)
  std::vector<Mat6*> Aslot_;  ///< where block s of A goes
  VecX PRr_, yW_, rhs_;
  long long factorizations_ = 0, solves_ = 0;
};

/// Who runs the row work of a linear-implicit step: the calling thread (SerialStageRunner), or the
/// threads of the parallel step (engine/parallel, a layer above). Work is handed over once per
/// region as a function of a list of rows, never per row.
class StageRunner {
 public:
  using Rows = FunctionRef<void(const std::vector<int>& rows)>;
  virtual ~StageRunner() = default;
  /// linearize() at (state, u, uDot) and A from it (system.bodyOfA(), rowOfA() for every free
  /// body), factorized; system.beginAssembly() ran.
  virtual void linearizeAndFactorize(const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
                                     const LinearizeOptions& options, StageSystem& system) = 0;
  /// f(rows) for parts of the free bodies that together hold each once.
  virtual void forRows(Rows f) = 0;
  /// before(rows) by parts (they write system.rhs()), then A x = system.rhs(), then after(rows)
  /// by parts.
  virtual void solve(Rows before, StageSystem& system, VecX& x, Rows after) = 0;
  virtual int threads() const = 0;

  /// Phase timing for benchmarks (off by default; costs a clock read per phase when on).
  void enableTiming(bool on) { timing_ = on; }
  bool timing() const { return timing_; }
  const PhaseTimes& phaseTimes() const { return times_; }
  PhaseTimes& phaseTimes() { return times_; }

 protected:
  bool timing_ = false;
  PhaseTimes times_;
};

/// The row work on the calling thread, rows in order.
class SerialStageRunner final : public StageRunner {
 public:
  explicit SerialStageRunner(const SuspensionModel& model);
  void linearizeAndFactorize(const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
                             const LinearizeOptions& options, StageSystem& system) override;
  void forRows(Rows f) override { f(rows_); }
  void solve(Rows before, StageSystem& system, VecX& x, Rows after) override;
  int threads() const override { return 1; }

 private:
  const SuspensionModel& model_;
  std::vector<int> rows_;  ///< every free body
};

}  // namespace ek
