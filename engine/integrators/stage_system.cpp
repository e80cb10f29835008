// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/integrators/stage_system.h"

#include <chrono>
#include <numeric>
#include <stdexcept>
#include <string>

#include "engine/core/block6.h"
#include "engine/dynamics/linearize.h"

namespace ek {

void stageKinematics(const Mat3& N, const Mat3& Kinv, double hg, bool kinematicsDerivative, Mat3& P, Mat3& Kt) {
  P = kinematicsDerivative ? Mat3((Mat3::Identity() - hg * N).inverse()) : Mat3::Identity();
  Kt = P * Kinv;
}

void stageKinematics(const BodyKinematics& b, double hg, bool kinematicsDerivative, Mat3& P, Mat3& Kt, Mat3& RTKt) {
  stageKinematics(b.N, b.Tinv, hg, kinematicsDerivative, P, Kt);
  RTKt.noalias() = b.RT * Kt;
}

void assembleStageMatrixRowFromWrenches(const SuspensionModel& model, const Workspace& ws, int l, double cv,
                                        double cr, const std::vector<Mat3>& RTKt, Mat6* const* A) {
  // Column by column as 6-vectors: a_j = -cv Wv_j - cr Wr_j (translations), and for the rotation
  // columns -cv Wv_j - cr sum_k Wr_k M_kj with M = RTKt of the column's body. The rows stay in
  // world coordinates (no T_l: diag(I, R_l) A), so no product from the left.
  const BlockPattern& bp = model.pattern;
  const ModelBody& body = model.bodies[model.freeBodies[l]];
  const BodyKinematics& bl = ws.bodies[model.freeBodies[l]];
  const Vec3& tau = ws.wrench[l].tail<3>();
  using block6::Column;
  for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s) {
    const double* wr = ws.Jw_r[s].data();
    const double* wv = ws.Jw_v[s].data();
    const double* M = RTKt[bp.col[s]].data();
    double* a = A[s]->data();
    for (int c = 0; c < 3; ++c) block6::store(a + 6 * c, block6::load(wv + 6 * c) * -cv - block6::load(wr + 6 * c) * cr);
    // Wr's rotation columns; on the diagonal d tau = ... + [tau]x d theta (rows 3-5: lo[3], hi).
    Column r[3] = {block6::load(wr + 18), block6::load(wr + 24), block6::load(wr + 30)};
    if (s == bp.diag[l]) {
      r[0].hi[0] += tau.z(), r[0].hi[1] -= tau.y();  // [tau]x e_x = (0, tau_z, -tau_y)
      r[1].lo[3] -= tau.z(), r[1].hi[1] += tau.x();  // [tau]x e_y = (-tau_z, 0, tau_x)
      r[2].lo[3] += tau.y(), r[2].hi[0] -= tau.x();  // [tau]x e_z = (tau_y, -tau_x, 0)
    }
    for (int c = 0; c < 3; ++c) {
      const Column wrM = r[0] * (cr * M[3 * c]) + r[1] * (cr * M[3 * c + 1]) + r[2] * (cr * M[3 * c + 2]);
      block6::store(a + 18 + 6 * c, block6::load(wv + 18 + 6 * c) * -cv - wrM);
    }
  }
  // M, and -cv times J_v's gyroscopic block -(w x I w)' = -([w]x I - [I w]x), in world rows.
  Mat6& D = *A[bp.diag[l]];
  D.topLeftCorner<3, 3>().diagonal().array() += body.mass;
  D.bottomRightCorner<3, 3>() +=
      bl.R * (body.inertia + cv * (skew(bl.w_B) * body.inertia - skew(body.inertia * bl.w_B)));
}

namespace {
/// Row l of Jw_r yW (+ Jw_v dv) + [0; [tau]x yW_l,theta] in world-wrench rows: J_r y (+ J_v dv)
/// before T_l and the gyroscopic block, with tau the row body's torque at the linearization.
Vec6 wrenchProductRow(const SuspensionModel& model, const Workspace& ws, int l, const VecX& yW, const VecX* dv,
                      const Vec3& tau) {
  const BlockPattern& bp = model.pattern;
  block6::Sums sum;
  for (int s = bp.rowStart[l]; s < bp.rowStart[l + 1]; ++s) {
    sum.add(ws.Jw_r[s].data(), yW.data() + 6 * bp.col[s]);
    if (dv) sum.add(ws.Jw_v[s].data(), dv->data() + 6 * bp.col[s]);
  }
  Vec6 acc;
  sum.get(acc.data());
  acc.tail<3>() += tau.cross(yW.segment<3>(6 * l + 3));  // [tau]x of J_r's diagonal block
  return acc;
}
}  // namespace

void massTimes(const SuspensionModel& model, const VecX& x, VecX& out) {
  for (int l = 0, m = model.nFreeBodies(); l < m; ++l) {
    const ModelBody& body = model.bodies[model.freeBodies[l]];
    out.segment<3>(6 * l) = body.mass * x.segment<3>(6 * l);
    out.segment<3>(6 * l + 3) = body.inertia * x.segment<3>(6 * l + 3);
  }
}

void massSolve(const SuspensionModel& model, const VecX& b, VecX& x) {
  for (int l = 0, m = model.nFreeBodies(); l < m; ++l) {
    const ModelBody& body = model.bodies[model.freeBodies[l]];
    x.segment<3>(6 * l) = b.segment<3>(6 * l) / body.mass;
    x.segment<3>(6 * l + 3) = body.inertia.inverse() * b.segment<3>(6 * l + 3);
  }
}

void kinematicRates(const SuspensionModel& model, const Workspace& ws, const VecX& v, VecX& rDot) {
  for (int l = 0, m = model.nFreeBodies(); l < m; ++l) {
    rDot.segment<3>(6 * l) = v.segment<3>(6 * l);
    rDot.segment<3>(6 * l + 3) = ws.Kinv[l] * v.segment<3>(6 * l + 3);
  }
}

StageSystem::StageSystem(const SuspensionModel& model, std::unique_ptr<LinearSolver> solver, bool kinematicsDerivative)
    : model_(model), solver_(std::move(solver)), kinematicsDerivative_(kinematicsDerivative) {
  const int n = model.nDof(), m = model.nFreeBodies();
  for (auto* v : {&P_, &Kt_, &RTKt_, &R_, &RT_}) v->assign(m, Mat3::Identity());
  wB_.assign(m, Vec3::Zero());
  tau_.assign(m, Vec3::Zero());
  inPlace_ = solver_->blockStorage(0) != nullptr;
  if (!inPlace_) A_.assign(model.pattern.nBlocks(), Mat6::Zero());
  for (int s = 0; s < model.pattern.nBlocks(); ++s) Aslot_.push_back(inPlace_ ? solver_->blockStorage(s) : &A_[s]);
  for (VecX* v : {&PRr_, &yW_, &rhs_}) v->setZero(n);
}

void StageSystem::beginAssembly(double hg) {
  hg_ = hgN_ = cv_ = hg;
  cr_ = hg * hg;
  withN_ = kinematicsDerivative_;
}

void StageSystem::beginVelocityAssembly(double cv, double cr) {
  hgN_ = 0.0;
  cv_ = cv;
  cr_ = cr;
  withN_ = false;
}

void StageSystem::bodyOfA(const Workspace& ws, int l) {
  const BodyKinematics& b = ws.bodies[model_.freeBodies[l]];
  stageKinematics(b, hgN_, withN_, P_[l], Kt_[l], RTKt_[l]);
  R_[l] = b.R;
  RT_[l] = b.RT;
  wB_[l] = b.w_B;
}

void StageSystem::rowOfA(const Workspace& ws, int l) {
  tau_[l] = ws.wrench[l].tail<3>();
  assembleStageMatrixRowFromWrenches(model_, ws, l, cv_, cr_, RTKt_, Aslot_.data());
}

void StageSystem::factorizeAssembled() {
  if (inPlace_) solver_->factorizeInPlace();
  else solver_->factorize(A_);
  ++factorizations_;
}

void StageSystem::factorize(const Workspace& ws, double hg) {
  beginAssembly(hg);
  const int m = model_.nFreeBodies();
  for (int l = 0; l < m; ++l) bodyOfA(ws, l);
  for (int l = 0; l < m; ++l) rowOfA(ws, l);
  factorizeAssembled();
}

void StageSystem::factorizeVelocityMatrix(const Workspace& ws, double cv, double cr) {
  beginVelocityAssembly(cv, cr);
  const int m = model_.nFreeBodies();
  for (int l = 0; l < m; ++l) bodyOfA(ws, l);
  for (int l = 0; l < m; ++l) rowOfA(ws, l);
  factorizeAssembled();
}

void StageSystem::toWorldRows(const VecX& b) {
  for (int l = 0, m = model_.nFreeBodies(); l < m; ++l) {
    rhs_.segment<3>(6 * l) = b.segment<3>(6 * l);
    rhs_.segment<3>(6 * l + 3) = R_[l] * b.segment<3>(6 * l + 3);
  }
}

void StageSystem::solveVelocity(const VecX& b, VecX& x) {
  toWorldRows(b);
  solver_->solve(rhs_, x);
  ++solves_;
}

void StageSystem::stageRow(int l, const VecX& Rr, const VecX* dr0) {
  PRr_.segment<3>(6 * l) = Rr.segment<3>(6 * l);
  PRr_.segment<3>(6 * l + 3) = P_[l] * Rr.segment<3>(6 * l + 3);
  Vec6 y = hg_ * PRr_.segment<6>(6 * l);
  if (dr0) y += dr0->segment<6>(6 * l);
  yW_.segment<3>(6 * l) = y.head<3>();
  yW_.segment<3>(6 * l + 3) = RT_[l] * y.tail<3>();
}

void StageSystem::rhsRow(const Workspace& ws, int l, const VecX& b, const VecX* dv0) {
  // J_r y + J_v dv0 = T_l (Jw_r yW + Jw_v dv0 + [0; [tau_l]x yW_l,theta]) - (J_v's gyroscopic block)
  // dv0 (wrenchProductRow() at the linearization point, whose R, R T, w_B and tau were kept); in
  // A's rows the torque rows are world rows: R_l times the body-axis rows.
  const Vec6 acc = wrenchProductRow(model_, ws, l, yW_, dv0, tau_[l]);
  rhs_.segment<3>(6 * l) = b.segment<3>(6 * l) + acc.head<3>();
  Vec3 torque = b.segment<3>(6 * l + 3);
  if (dv0) {
    const Mat3& I = model_.bodies[model_.freeBodies[l]].inertia;
    const Vec3 dw = dv0->segment<3>(6 * l + 3);
    torque -= wB_[l].cross(I * dw) - (I * wB_[l]).cross(dw);
  }
  rhs_.segment<3>(6 * l + 3) = R_[l] * torque + acc.tail<3>();
}

void StageSystem::finishRow(int l, const VecX& Uv, VecX& Ur) const {
  Ur.segment<3>(6 * l) = PRr_.segment<3>(6 * l) + hg_ * Uv.segment<3>(6 * l);
  Ur.segment<3>(6 * l + 3) = PRr_.segment<3>(6 * l + 3) + hg_ * (Kt_[l] * Uv.segment<3>(6 * l + 3));
}

void StageSystem::solve(const Workspace& ws, const VecX& Rr, const VecX& MRv, VecX& Ur, VecX& Uv) {
  const int m = model_.nFreeBodies();
  for (int l = 0; l < m; ++l) stageRow(l, Rr, nullptr);
  for (int l = 0; l < m; ++l) rhsRow(ws, l, MRv, nullptr);
  solver_->solve(rhs_, Uv);
  for (int l = 0; l < m; ++l) finishRow(l, Uv, Ur);
  ++solves_;
}

double lapSeconds(std::chrono::steady_clock::time_point& t0) {
  const auto t1 = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(t1 - t0).count();
  t0 = t1;
  return s;
}

SerialStageRunner::SerialStageRunner(const SuspensionModel& model) : model_(model), rows_(model.nFreeBodies()) {
  std::iota(rows_.begin(), rows_.end(), 0);
}

void SerialStageRunner::linearizeAndFactorize(const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
                                              const LinearizeOptions& options, StageSystem& system) {
  auto t0 = std::chrono::steady_clock::now();
  linearize(model_, state, u, uDot, ws, options);
  if (timing_) times_.linearize += lapSeconds(t0);
  for (int l : rows_) system.bodyOfA(ws, l);
  for (int l : rows_) system.rowOfA(ws, l);
  if (timing_) times_.assemble += lapSeconds(t0);
  system.factorizeAssembled();
  if (timing_) times_.factorize += lapSeconds(t0), ++times_.linearizations;
}

void SerialStageRunner::solve(Rows before, StageSystem& system, VecX& x, Rows after) {
  before(rows_);
  auto t0 = std::chrono::steady_clock::now();
  system.solver().solve(system.rhs(), x);
  if (timing_) times_.solve += lapSeconds(t0);
  after(rows_);
}

void addBranchForces(const Workspace& ws, const VecX& f, VecX& rhs) {
  for (std::size_t d = 0; d < ws.branches.size(); ++d) {
    const BranchCoupling& c = ws.branches[d];
    if (c.stateA >= 0) rhs.segment<6>(6 * c.stateA) -= f[d] * c.wA;
    if (c.stateB >= 0) rhs.segment<6>(6 * c.stateB) -= f[d] * c.wB;
    for (const BranchModalSide* s : {&c.modalA, &c.modalB})  // a side on a flexible body's modes
      if (s->modes > 0) rhs.segment(6 * s->firstSlot, s->modes) -= f[d] * s->wq;
  }
}

void addBranchRateChanges(const Workspace& ws, const VecX& xr, const VecX& xv, VecX& q) {
  for (std::size_t d = 0; d < ws.branches.size(); ++d) {
    const BranchCoupling& c = ws.branches[d];
    if (c.stateA >= 0) q[d] += c.grA.dot(xr.segment<6>(6 * c.stateA)) + c.gvA.dot(xv.segment<6>(6 * c.stateA));
    if (c.stateB >= 0) q[d] += c.grB.dot(xr.segment<6>(6 * c.stateB)) + c.gvB.dot(xv.segment<6>(6 * c.stateB));
    for (const BranchModalSide* s : {&c.modalA, &c.modalB})
      if (s->modes > 0)
        q[d] += s->gq.dot(xr.segment(6 * s->firstSlot, s->modes)) + s->gqd.dot(xv.segment(6 * s->firstSlot, s->modes));
  }
}

void addBranchInputRateChanges(const SuspensionModel& model, const Workspace& ws, const VecX& du, const VecX& dud,
                                VecX& q) {
  for (std::size_t d = 0; d < ws.branches.size(); ++d) {
    const BranchCoupling& c = ws.branches[d];
    for (const auto& [body, g] : {std::pair{c.drivenA, &c.gDrivenA}, std::pair{c.drivenB, &c.gDrivenB}}) {
      if (body < 0) continue;
      for (int k : model.bodies[body].drives)
        q[d] += g->dot(ws.drives[k].dPose_du) * du[k] + g->dot(ws.drives[k].dPose_dudot) * dud[k];
    }
  }
}

void addBranchDeflectionChanges(const SuspensionModel& model, const Workspace& ws, const VecX& xr, const VecX& du,
                                VecX& p) {
  for (std::size_t d = 0; d < ws.branches.size(); ++d) {
    const BranchCoupling& c = ws.branches[d];
    if (c.scaleSlope == 0.0) continue;  // only scaled branches use it
    if (c.stateA >= 0) p[d] += c.drA.dot(xr.segment<6>(6 * c.stateA));
    if (c.stateB >= 0) p[d] += c.drB.dot(xr.segment<6>(6 * c.stateB));
    for (const BranchModalSide* s : {&c.modalA, &c.modalB})
      if (s->modes > 0) p[d] += s->dq.dot(xr.segment(6 * s->firstSlot, s->modes));
    if (!model.hasMotionInputs()) continue;
    for (const auto& [body, g] : {std::pair{c.drivenA, &c.dDrivenA}, std::pair{c.drivenB, &c.dDrivenB}}) {
      if (body < 0) continue;
      for (int k : model.bodies[body].drives) p[d] += g->dot(ws.drives[k].dPose_du) * du[k];
    }
  }
}

void eliminatedBranchIncrements(const SuspensionModel& model, const Workspace& ws, const VecX* offset, const VecX& q,
                                const VecX* zbar, const VecX& zLin, const VecX& p, double g, VecX& dz) {
  for (std::size_t d = 0; d < model.branchDirections.size(); ++d) {
    const ModelBranchDirection& dir = model.branchDirections[d];
    const BranchCoupling& c = ws.branches[d];
    for (std::size_t k = 0; k < dir.branches.size(); ++k) {
      const double l = dir.branches[k].lambda();
      const int s = dir.first + static_cast<int>(k);
      double num = offset ? (*offset)[s] + q[d] : q[d];
      if (zbar) num -= l * c.scale * (*zbar)[s];
      dz[s] = (num - l * c.scaleSlope * zLin[s] * p[d]) / (1.0 + g * l * c.scale);
    }
  }
}

void branchStateRates(const SuspensionModel& model, const Workspace& ws, const VecX& z, VecX& zDot) {
  for (const ModelBranchDirection& dir : model.branchDirections) {
    const BushingResult& b = ws.bushings[dir.bushing];
    const double scale =
        dir.scaled ? model.bushings[dir.bushing].stiffness[dir.direction].eval(b.deflection[dir.direction]).dydx / dir.slope0
                   : 1.0;
    for (std::size_t i = 0; i < dir.branches.size(); ++i) {
      const int s = dir.first + static_cast<int>(i);
      zDot[s] = b.rate[dir.direction] - dir.branches[i].lambda() * scale * z[s];
    }
  }
}

void branchRates(const SuspensionModel& model, const Workspace& ws, VecX& q) {
  for (std::size_t d = 0; d < model.branchDirections.size(); ++d) {
    const ModelBranchDirection& dir = model.branchDirections[d];
    q[static_cast<Eigen::Index>(d)] = ws.bushings[dir.bushing].rate[dir.direction];
  }
}

void checkBranchesSupported(const SuspensionModel& model, const std::string& method) {
  if (model.branchDirections.empty()) return;
  const ModelBushing& first = model.bushings[model.branchDirections.front().bushing];
  const std::string which = "bushing " + std::to_string(first.id) + " ('" + first.name + "') has Maxwell branches";
  if (method != "lsrt2" && method != "cvode" && method != "ros34pw2" && method != "lie")
    throw std::invalid_argument(which + ": the method '" + method +
                                "' does not integrate viscoelastic bushings yet (lsrt2, ros34pw2, lie and cvode do)");
}

}  // namespace ek
