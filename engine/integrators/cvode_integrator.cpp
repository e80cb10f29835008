// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/cvode_integrator.h"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <array>
#include <tuple>
#include <filesystem>
#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "engine/core/time_grid.h"
#include "engine/dynamics/linearize.h"
#include "engine/core/text.h"

namespace ek {

/// The SUNDIALS objects of one integrator, freed with it (also when its constructor throws).
struct CvodeIntegrator::Sundials {
  SUNContext ctx = nullptr;
  N_Vector y = nullptr, atol = nullptr;
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  void* mem = nullptr;
  Sundials() = default;
  Sundials(const Sundials&) = delete;
  Sundials& operator=(const Sundials&) = delete;
  ~Sundials() {
    if (mem) CVodeFree(&mem);
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    if (y) N_VDestroy(y);
    if (atol) N_VDestroy(atol);
    if (ctx) SUNContext_Free(&ctx);
  }
};

namespace {

int rhsCallback(sunrealtype t, N_Vector y, N_Vector ydot, void* user) {
  try {
    static_cast<CvodeIntegrator*>(user)->rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
    return 0;
  } catch (const SimulationError&) {
    return 1;  // recoverable: CVODE retries with a smaller step
  }
}

int jacCallback(sunrealtype t, N_Vector y, N_Vector, SUNMatrix J, void* user, N_Vector, N_Vector, N_Vector) {
  try {
    auto* self = static_cast<CvodeIntegrator*>(user);
    if (SUNMatGetID(J) == SUNMATRIX_SPARSE)
      self->sparseJacobian(t, N_VGetArrayPointer(y), SM_INDEXPTRS_S(J), SM_INDEXVALS_S(J), SM_DATA_S(J));
    else
      self->jacobian(t, N_VGetArrayPointer(y), SM_DATA_D(J), SM_ROWS_D(J));
    return 0;
  } catch (const SimulationError&) {
    return 1;
  }
}

void check(int flag, const char* what) {
  if (flag < 0) throw SimulationError(std::string("CVODE: ") + what + " failed (flag " + std::to_string(flag) + ")");
}

/// Times at which an input is not smooth.
void addBreakpoints(const SignalRow& s, std::vector<double>& out) {
  switch (s.type) {
    case SignalType::Constant: break;
    case SignalType::Step: out.push_back(s.t0); break;
    case SignalType::Sine: out.push_back(s.t0); break;
    case SignalType::Ramp:
    case SignalType::Chirp:
    case SignalType::Bump:
      out.push_back(s.t0);
      out.push_back(s.t1);
      break;
    case SignalType::Table:
      for (const auto& p : s.table) out.push_back(p[0]);
      break;
  }
}

}  // namespace

CvodeIntegrator::CvodeIntegrator(const SuspensionModel& model, const IntegratorOptions& options,
                                 const LoadCaseRow& loadCase)
    : model_(model), options_(options), ws_(model), u_(VecX::Zero(model.nInputs())), ud_(VecX::Zero(model.nInputs())), sd_(new Sundials) {
  if (options_.cvodeSolver != "auto" && options_.cvodeSolver != "dense" && options_.cvodeSolver != "klu")
    throw SimulationError("CVODE: unknown linear solver '" + options_.cvodeSolver + "' (auto, dense or klu)");
  for (const auto& d : loadCase.drives) {
    SignalRow s = d.signal;
    if (s.type == SignalType::Table) {
      try {
        s.table = readSignalTable((std::filesystem::path(model.project().sourcePath).parent_path() / s.file).string());
      } catch (const ModelError&) {
      }
    }
    addBreakpoints(s, breakpoints_);
  }
  std::sort(breakpoints_.begin(), breakpoints_.end());
  breakpoints_.erase(std::unique(breakpoints_.begin(), breakpoints_.end()), breakpoints_.end());

  const int n = 2 * model.nDof() + model.nElementStates();
  check(SUNContext_Create(nullptr, &sd_->ctx), "SUNContext_Create");
  sd_->y = N_VNew_Serial(n, sd_->ctx);
  sd_->atol = N_VNew_Serial(n, sd_->ctx);
  double* a = N_VGetArrayPointer(sd_->atol);
  // Absolute tolerances per state kind, scaled with the relative tolerance so that a tighter
  // reference converges further: positions and angles 0.01 rtol m / rad, velocities rtol m/s /
  // rad/s, at most 1e-11 and 1e-9 (the values of the default rtol 1e-9).
  const double rtol = options_.relativeTolerance;
  // Branch deflections (after r and v) are deflections: the position tolerance.
  for (int k = 0; k < n; ++k)
    a[k] = k < model.nDof() || k >= 2 * model.nDof() ? std::min(1e-11, 1e-2 * rtol) : std::min(1e-9, rtol);
  sd_->mem = CVodeCreate(CV_BDF, sd_->ctx);
  if (!sd_->mem) throw SimulationError("CVODE: CVodeCreate failed");
  s_.r.setZero(model.nDof());
  s_.v.setZero(model.nDof());
  s_.z.setZero(model.nElementStates());

  // Which force rows each body's columns touch (the transpose of the block pattern), and M^-1.
  const BlockPattern& bp = model.pattern;
  columnBlocks_.assign(model.nFreeBodies(), {});
  for (int l = 0; l < model.nFreeBodies(); ++l)
    for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s) columnBlocks_[bp.col[s]].push_back({l, s});
  for (int l = 0; l < model.nFreeBodies(); ++l) {
    inertiaInverse_.push_back(model.bodies[model.freeBodies[l]].inertia.inverse());
  }
  // The branch states whose rate rows touch each body's columns (ascending).
  branchColumns_.assign(model.nFreeBodies(), {});
  for (std::size_t d = 0; d < model.branchDirections.size(); ++d) {
    const ModelBranchDirection& dir = model.branchDirections[d];
    const ModelBushing& b = model.bushings[dir.bushing];
    for (int side : {model.markers[b.i.value].body.value, model.markers[b.j.value].body.value}) {
      const int l = model.bodies[side].state;
      if (l < 0) continue;
      // A flexible body's side: its modal slots' columns too.
      const int f = model.bodies[side].flexible;
      const int slots = f < 0 || model.flexibleBodies[f].modes() == 0 ? 0 : model.flexibleBodies[f].modalSlots;
      for (int m = 0; m <= slots; ++m)
        for (std::size_t i = 0; i < dir.branches.size(); ++i)
          branchColumns_[m == 0 ? l : model.flexibleBodies[f].firstModalSlot + m - 1].push_back({int(d), dir.first + int(i)});
    }
  }
  for (auto& c : branchColumns_) {
    std::sort(c.begin(), c.end(), [](auto a, auto b) { return a.second < b.second; });
    c.erase(std::unique(c.begin(), c.end()), c.end());
  }
}

CvodeIntegrator::~CvodeIntegrator() = default;

void CvodeIntegrator::load(const double* y) {
  const int n = model_.nDof();
  s_.r = Eigen::Map<const VecX>(y, n);
  s_.v = Eigen::Map<const VecX>(y + n, n);
  s_.z = Eigen::Map<const VecX>(y + 2 * n, model_.nElementStates());
}

void CvodeIntegrator::linearizeAt(double t, const double* y) {
  load(y);
  inputs_->evaluate(inputTime(t), u_);
  inputs_->evaluateRate(inputTime(t), ud_);
  linearize(model_, s_, u_, ud_, ws_);
}

double CvodeIntegrator::inputTime(double t) const {
  // Inside [segmentStart, segmentEnd] only: a step at the segment end is not seen early.
  const double eps = 1e-9;
  return std::clamp(t, segmentStart_ + eps, std::max(segmentStart_ + eps, segmentEnd_ - eps));
}

void CvodeIntegrator::rhs(double t, const double* y, double* ydot) {
  ++nRhs_;
  linearizeAt(t, y);
  const int n = model_.nDof();
  for (int l = 0; l < model_.nFreeBodies(); ++l) {
    const ModelBody& b = model_.bodies[model_.freeBodies[l]];
    Eigen::Map<Vec6> rd(ydot + 6 * l), vd(ydot + n + 6 * l);
    rd.head<3>() = s_.v.segment<3>(6 * l);
    rd.tail<3>() = ws_.Kinv[l] * s_.v.segment<3>(6 * l + 3);
    vd.head<3>() = ws_.h.segment<3>(6 * l) / b.mass;
    vd.tail<3>() = b.inertia.ldlt().solve(Vec3(ws_.h.segment<3>(6 * l + 3)));
  }
  // Maxwell branches: z_i' = x' - (k_i s / c_i) z_i (paper 002 eq. 5), x' the direction's
  // deflection rate, s the slope scaling (1 when unscaled).
  for (std::size_t d = 0; d < model_.branchDirections.size(); ++d) {
    const ModelBranchDirection& dir = model_.branchDirections[d];
    const double rate = ws_.bushings[dir.bushing].rate[dir.direction];
    for (std::size_t i = 0; i < dir.branches.size(); ++i) {
      const int s = dir.first + int(i);
      ydot[2 * n + s] = rate - dir.branches[i].lambda() * ws_.branches[d].scale * s_.z[s];
    }
  }
}

void CvodeIntegrator::jacobian(double t, const double* y, double* J, long ld) {
  linearizeAt(t, y);
  const int n = model_.nDof();
  const int nTotal = 2 * n + model_.nElementStates();
  Eigen::Map<MatX, 0, Eigen::OuterStride<>> Jm(J, nTotal, nTotal, Eigen::OuterStride<>(ld));
  Jm.setZero();
  const BlockPattern& bp = model_.pattern;
  for (int l = 0; l < model_.nFreeBodies(); ++l) {
    const ModelBody& b = model_.bodies[model_.freeBodies[l]];
    Jm.block<3, 3>(6 * l, n + 6 * l).setIdentity();
    Jm.block<3, 3>(6 * l + 3, n + 6 * l + 3) = ws_.Kinv[l];
    Jm.block<3, 3>(6 * l + 3, 6 * l + 3) = ws_.N[l];
    const Mat3& Iinv = inertiaInverse_[l];
    for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s) {
      const int c = bp.col[s];
      Jm.block<3, 6>(n + 6 * l, 6 * c) = ws_.Jr[s].topRows<3>() / b.mass;
      Jm.block<3, 6>(n + 6 * l + 3, 6 * c) = Iinv * ws_.Jr[s].bottomRows<3>();
      Jm.block<3, 6>(n + 6 * l, n + 6 * c) = ws_.Jv[s].topRows<3>() / b.mass;
      Jm.block<3, 6>(n + 6 * l + 3, n + 6 * c) = Iinv * ws_.Jv[s].bottomRows<3>();
    }
  }
  // Branch columns: dh/dz_i = -k_i s (wA; wB); branch rows: the rate's partials (with the
  // scaling's change -l_i s' z_i D), and -l_i s, l_i = k_i / c_i.
  for (std::size_t d = 0; d < model_.branchDirections.size(); ++d) {
    const ModelBranchDirection& dir = model_.branchDirections[d];
    const BranchCoupling& bc = ws_.branches[d];
    for (std::size_t i = 0; i < dir.branches.size(); ++i) {
      const int row = 2 * n + dir.first + int(i);
      const double k = dir.branches[i].k * bc.scale;
      const double q = -dir.branches[i].lambda() * bc.scaleSlope * s_.z[dir.first + int(i)];
      for (const auto& [l, w, gr, gv, dr] : {std::tuple{bc.stateA, &bc.wA, &bc.grA, &bc.gvA, &bc.drA},
                                             std::tuple{bc.stateB, &bc.wB, &bc.grB, &bc.gvB, &bc.drB}}) {
        if (l < 0) continue;
        Jm.block<6, 1>(n + 6 * l, row) += generalizedAcceleration(l, -k * *w);
        Jm.block<1, 6>(row, 6 * l) += (*gr + q * *dr).transpose();
        Jm.block<1, 6>(row, n + 6 * l) += gv->transpose();
      }
      for (const BranchModalSide* ms : {&bc.modalA, &bc.modalB}) {  // a side's modes (unit modal mass)
        if (ms->modes == 0) continue;
        const int c = 6 * ms->firstSlot;
        Jm.block(n + c, row, ms->modes, 1) -= k * ms->wq;
        Jm.block(row, c, 1, ms->modes) += (ms->gq + q * ms->dq).transpose();
        Jm.block(row, n + c, 1, ms->modes) += ms->gqd.transpose();
      }
      Jm(row, row) = -dir.branches[i].lambda() * bc.scale;
    }
  }
}

Vec6 CvodeIntegrator::generalizedAcceleration(int l, const Vec6& h) const {
  Vec6 a;
  a.head<3>() = h.head<3>() / model_.bodies[model_.freeBodies[l]].mass;
  a.tail<3>() = inertiaInverse_[l] * h.tail<3>();
  return a;
}

bool CvodeIntegrator::sparse() const { return options_.cvodeSolver == "klu" || (options_.cvodeSolver == "auto" && model_.nDof() > kDenseLimit); }

long CvodeIntegrator::jacobianNonzeros() const {
  long nnz = 0;
  for (int c = 0; c < model_.nFreeBodies(); ++c) {
    nnz += 2 * 36 * long(columnBlocks_[c].size()) + 9 + 3 + 9;  // force rows, N, identity, K^-1
    nnz += 2 * 6 * long(branchColumns_[c].size());             // branch rate rows in r and v columns
  }
  for (const ModelBranchDirection& dir : model_.branchDirections) {
    const ModelBushing& b = model_.bushings[dir.bushing];
    int sides = 0;  // slots: a free side's, and a flexible side's modal slots
    for (int m : {b.i.value, b.j.value}) {
      const ModelBody& body = model_.bodies[model_.markers[m].body.value];
      sides += body.state >= 0;
      if (body.flexible >= 0 && model_.flexibleBodies[body.flexible].modes() > 0)
        sides += model_.flexibleBodies[body.flexible].modalSlots;
    }
    nnz += long(dir.branches.size()) * (6 * sides + 1);  // force rows of z_i's column, diagonal
  }
  return nnz;
}

void CvodeIntegrator::sparseJacobian(double t, const double* y, sunindextype* colPtr, sunindextype* rowIdx, double* val) {
  linearizeAt(t, y);
  const int n = model_.nDof();
  const int nb = model_.nFreeBodies();
  sunindextype k = 0;
  // Column by column; rows ascending: the body's own kinematic rows (< n), then the force rows
  // of every body l whose block row holds body c, in increasing l.
  auto forceRows = [&](int c, int j, bool velocity) {
    for (const auto& [l, s] : columnBlocks_[c]) {
      const Mat6& B = velocity ? ws_.Jv[s] : ws_.Jr[s];
      const double mass = model_.bodies[model_.freeBodies[l]].mass;
      const Vec3 rot = inertiaInverse_[l] * B.block<3, 1>(3, j);
      for (int i = 0; i < 3; ++i) { rowIdx[k] = n + 6 * l + i; val[k++] = B(i, j) / mass; }
      for (int i = 0; i < 3; ++i) { rowIdx[k] = n + 6 * l + 3 + i; val[k++] = rot[i]; }
    }
    for (const auto& [d, state] : branchColumns_[c]) {  // branch rate rows, after all force rows
      const BranchCoupling& bc = ws_.branches[d];
      const ModelBranchDirection& dir = model_.branchDirections[d];
      const double q = -dir.branches[state - dir.first].lambda() * bc.scaleSlope * s_.z[state];
      double g = 0.0;
      if (bc.stateA == c) g += velocity ? bc.gvA[j] : bc.grA[j] + q * bc.drA[j];
      if (bc.stateB == c) g += velocity ? bc.gvB[j] : bc.grB[j] + q * bc.drB[j];
      for (const BranchModalSide* ms : {&bc.modalA, &bc.modalB}) {
        const int e = 6 * (c - ms->firstSlot) + j;  // the mode of column (c, j) on that side
        if (ms->modes > 0 && c >= ms->firstSlot && e < ms->modes) g += velocity ? ms->gqd[e] : ms->gq[e] + q * ms->dq[e];
      }
      rowIdx[k] = 2 * n + state;
      val[k++] = g;
    }
  };
  for (int c = 0; c < nb; ++c)  // position columns
    for (int j = 0; j < 6; ++j) {
      colPtr[6 * c + j] = k;
      if (j >= 3)
        for (int i = 0; i < 3; ++i) { rowIdx[k] = 6 * c + 3 + i; val[k++] = ws_.N[c](i, j - 3); }
      forceRows(c, j, false);
    }
  for (int c = 0; c < nb; ++c)  // velocity columns
    for (int j = 0; j < 6; ++j) {
      colPtr[n + 6 * c + j] = k;
      if (j < 3) {
        rowIdx[k] = 6 * c + j;
        val[k++] = 1.0;
      } else {
        for (int i = 0; i < 3; ++i) { rowIdx[k] = 6 * c + 3 + i; val[k++] = ws_.Kinv[c](i, j - 3); }
      }
      forceRows(c, j, true);
    }
  for (std::size_t d = 0; d < model_.branchDirections.size(); ++d) {  // branch state columns
    const ModelBranchDirection& dir = model_.branchDirections[d];
    const BranchCoupling& bc = ws_.branches[d];
    // The force rows of the free sides in increasing body slot (both sides on one slot: summed),
    // a flexible side's modal slots among them.
    std::vector<std::pair<int, Vec6>>& sides = branchSides_;
    sides.clear();
    for (const auto& [l, w, ms] : {std::tuple{bc.stateA, &bc.wA, &bc.modalA}, std::tuple{bc.stateB, &bc.wB, &bc.modalB}}) {
      if (l >= 0) sides.push_back({l, *w});
      for (int e0 = 0; e0 < ms->modes; e0 += 6) {
        Vec6 chunk = Vec6::Zero();
        chunk.head(std::min(6, ms->modes - e0)) = ms->wq.segment(e0, std::min(6, ms->modes - e0));
        sides.push_back({ms->firstSlot + e0 / 6, chunk});
      }
    }
    std::sort(sides.begin(), sides.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t kept = 0;
    for (std::size_t a = 0; a < sides.size(); ++a)
      if (kept > 0 && sides[kept - 1].first == sides[a].first)
        sides[kept - 1].second += sides[a].second;
      else
        sides[kept++] = sides[a];
    sides.resize(kept);
    for (std::size_t i = 0; i < dir.branches.size(); ++i) {
      const int s = dir.first + int(i);
      colPtr[2 * n + s] = k;
      for (const auto& [l, w] : sides) {
        if (l < 0) continue;
        const Vec6 a = generalizedAcceleration(l, -dir.branches[i].k * bc.scale * w);
        for (int r = 0; r < 6; ++r) { rowIdx[k] = n + 6 * l + r; val[k++] = a[r]; }
      }
      rowIdx[k] = 2 * n + s;
      val[k++] = -dir.branches[i].lambda() * bc.scale;
    }
  }
  colPtr[2 * n + model_.nElementStates()] = k;
}

void CvodeIntegrator::restart(double t, const State& state) {
  const int n = model_.nDof();
  const int nTotal = 2 * n + model_.nElementStates();
  double* y = N_VGetArrayPointer(sd_->y);
  Eigen::Map<VecX>(y, n) = state.r;
  Eigen::Map<VecX>(y + n, n) = state.v;
  Eigen::Map<VecX>(y + 2 * n, model_.nElementStates()) =
      state.z.size() ? state.z : model_.relaxedElementStates();
  if (!started_) {
    check(CVodeInit(sd_->mem, rhsCallback, t, sd_->y), "CVodeInit");
    check(CVodeSVtolerances(sd_->mem, options_.relativeTolerance, sd_->atol), "CVodeSVtolerances");
    if (sparse()) {
      sd_->A = SUNSparseMatrix(nTotal, nTotal, jacobianNonzeros(), CSC_MAT, sd_->ctx);
      sd_->LS = SUNLinSol_KLU(sd_->y, sd_->A, sd_->ctx);
    } else {
      sd_->A = SUNDenseMatrix(nTotal, nTotal, sd_->ctx);
      sd_->LS = SUNLinSol_Dense(sd_->y, sd_->A, sd_->ctx);
    }
    if (!sd_->A || !sd_->LS) throw SimulationError("CVODE: the linear solver could not be created");
    check(CVodeSetLinearSolver(sd_->mem, sd_->LS, sd_->A), "CVodeSetLinearSolver");
    check(CVodeSetJacFn(sd_->mem, jacCallback), "CVodeSetJacFn");
    check(CVodeSetUserData(sd_->mem, this), "CVodeSetUserData");
    check(CVodeSetMaxNumSteps(sd_->mem, 1000000), "CVodeSetMaxNumSteps");
    check(CVodeSetMaxOrd(sd_->mem, 5), "CVodeSetMaxOrd");
    started_ = true;
  } else {
    check(CVodeReInit(sd_->mem, t, sd_->y), "CVodeReInit");
  }
  segmentStart_ = t;
}

void CvodeIntegrator::step(State& state, const InputSignals& inputs, Workspace&) {
  inputs_ = &inputs;
  const double target = gridTime(state.t, options_.dt, 1.0);
  // Restart when the state was set from outside (first step, or the caller changed it).
  if (!started_) restart(state.t, state);
  double t = state.t;
  while (t < target - 1e-12) {
    double stop = target;
    for (double b : breakpoints_)
      if (b > t + 1e-12 && b < stop) stop = b;
    const bool atBreakpoint = stop < target || std::binary_search(breakpoints_.begin(), breakpoints_.end(), target);
    segmentEnd_ = std::numeric_limits<double>::infinity();
    for (double b : breakpoints_)
      if (b > t + 1e-12) {
        segmentEnd_ = b;
        break;
      }
    check(CVodeSetStopTime(sd_->mem, stop), "CVodeSetStopTime");
    double tret = t;
    const int flag = CVode(sd_->mem, stop, sd_->y, &tret, CV_NORMAL);
    if (flag < 0)
      throw SimulationError("CVODE failed at t = " + shortestText(tret) + " s (flag " + std::to_string(flag) +
                            "): the reference integration did not converge");
    t = tret;
    if (atBreakpoint && std::abs(t - stop) < 1e-12) {
      load(N_VGetArrayPointer(sd_->y));
      restart(stop, s_);  // no history across the discontinuity
    }
  }
  load(N_VGetArrayPointer(sd_->y));
  state.r = s_.r;
  state.v = s_.v;
  state.z = s_.z;
  state.t = target;
}

std::unique_ptr<Integrator> makeCvodeIntegrator(const SuspensionModel& model, const IntegratorOptions& options,
                                                const LoadCaseRow& loadCase) {
  return std::make_unique<CvodeIntegrator>(model, options, loadCase);
}

std::string CvodeIntegrator::describe() const {
  char buf[200];
  ek::csnprintf(buf, sizeof buf, "CVODE BDF (Newton, %s direct solver), rtol = %.0e, output every %g s",
                sparse() ? "sparse KLU" : "dense", options_.relativeTolerance, options_.dt);
  return buf;
}

}  // namespace ek
