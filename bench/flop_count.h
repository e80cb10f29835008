// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file flop_count.h
/// Floating-point operations of one LSRT2 step, counted from the model's element and block
/// counts and the operations the engine's code performs on each (docs/performance.md, "Flop
/// count"). A multiply and an add count one each (a fused multiply-add two); a division or square
/// root one; sines, cosines and arc tangents are counted apart, as calls. Curve evaluations are
/// counted at 10 (a cubic segment by Horner plus its slope, the segment search not counted).

#include "engine/model/model.h"
#include "engine/solvers/topology_solver.h"

namespace bench {

/// Per item, from the code (engine/dynamics, engine/integrators/lsrt2.cpp, engine/solvers):
/// 3x3 times 3x3 = 45, 3x3 times a vector = 15, a cross product = 9, M [a]x = 27.
namespace flops {
constexpr double kBody = 85;            ///< R, T^-1, R T, w_W, N from one set of sines and cosines
constexpr double kBodyTrig = 150;       ///< three angles' sine and cosine (lanes::sincos: reduction, two series)
constexpr double kMarker = 75;          ///< rho, p, R_WM, v of a moving marker
constexpr double kBushingValues = 503;  ///< deflections, rates, 3 lanes::atan2 (45 each), 12 curve laws, F, tau
constexpr double kBushingPartials = 640;  ///< K, C and the marker blocks (force_elements.cpp, in lanes)
constexpr double kP2PValues = 55;       ///< length, direction, rate, 2-4 curve laws, F
constexpr double kP2PPartials = 90;     ///< the two marker blocks
constexpr double kSideA = 225, kSideB = 279;  ///< storePartials(): the body blocks per moving side
constexpr double kSideNoTorque = 144;         ///< the same for a P2P element
constexpr double kRowHalfA = 296, kRowHalfB = 261;  ///< storePartials(): the row blocks of a half
constexpr double kWrench = 20;          ///< adding F, tau + rho x F to a body's wrench
constexpr double kSlotAdd = 72;         ///< adding a half's position and velocity blocks to a slot
constexpr double kAssembleBody = 60;    ///< h (LSRT2 assembles no J_r, J_v)
/// A = T_l^-1 M - (dt g Jw_v + (dt g)^2 Jw_r diag(I, R T Kt)), one block from the world partials
/// in world-torque rows, as 6-vector columns (stage_system.cpp, assembleStageMatrixRowFromWrenches()).
constexpr double kMatrixBlock = 153;
constexpr double kMatrixBody = 310;     ///< P = (I - dt g N)^-1, Kt = P T^-1, R T Kt, mass, R (I + gyroscopic terms)
constexpr double kInvertPivot = 410;    ///< 6x6 pivot inverse by 3x3 blocks (two cofactor inverses, six products)
constexpr double kBlockProduct = 432;   ///< 6x6 times 6x6 (216 multiply-adds)
constexpr double kBlockVector = 72;     ///< 6x6 times a vector, accumulated
constexpr double kStageBody = 122;      ///< G, y, dr, y in world coordinates, R^T and [tau]x of one body in one stage
constexpr double kStageGyro = 51;       ///< J_v's gyroscopic block times (v - v_lin), stage 2
constexpr double kStageRotate = 15;     ///< a body's torque rows to world axes (StageSystem::rhsRow()), per stage
/// The second stage's c (M dv1 - q1) / hg of one body, after a first stage at the linearization.
constexpr double kStageFromFirst = 36;
}  // namespace flops

struct StepFlops {
  double kinematics = 0, elements = 0, scatter = 0, assemble = 0;  ///< linearization
  double matrix = 0, factorization = 0;                            ///< relinearization
  double stages = 0;  ///< two stages incl. solves, of a step that did not linearize
  /// The same of a step that linearized: its second stage takes J_r dr1 + J_v dv1 from the first
  /// stage's equation (no Maxwell branches), one block product less.
  double stagesLinearized = 0;
  int transcendentals = 0;  ///< sin/cos/atan2 calls per linearization
  double total(int linearizeEvery) const {
    return (kinematics + elements + scatter + assemble + matrix + factorization + stagesLinearized +
            (linearizeEvery - 1) * stages) /
           linearizeEvery;
  }
};

inline StepFlops countStepFlops(const ek::SuspensionModel& model, const ek::TopologySolver* topology) {
  using namespace flops;
  StepFlops f;
  const int nFree = model.nFreeBodies(), nBlocks = model.pattern.nBlocks();
  auto moves = [&](ek::MarkerIndex m) {
    const ek::ModelBody& b = model.bodies[model.markers[m.value].body.value];
    return b.state >= 0 || !b.drives.empty() || b.rotation >= 0;
  };
  auto free = [&](ek::MarkerIndex m) { return model.bodies[model.markers[m.value].body.value].state >= 0; };
  f.kinematics = (kBody + kBodyTrig) * nFree;
  f.transcendentals = 0;  // sines, cosines and arc tangents are polynomials in lanes, counted as flops
  for (std::size_t k = 0; k < model.markers.size(); ++k)
    if (moves(ek::MarkerIndex{static_cast<int>(k)})) f.kinematics += kMarker;
  // The row blocks of the halves of moving sides; the scatter adds the wrench and a half's
  // blocks to one slot per free side.
  auto rows = [&](ek::MarkerIndex i, ek::MarkerIndex j) {
    return (moves(i) ? kRowHalfA : 0) + (moves(j) ? kRowHalfB : 0);
  };
  auto scatter = [&](ek::MarkerIndex i, ek::MarkerIndex j) {
    const bool a = free(i), b = free(j);
    double s = 0;
    if (a) s += kWrench + kSlotAdd * (b ? 2 : 1);
    if (b) s += kWrench + kSlotAdd * (a ? 2 : 1);
    return s;
  };
  for (const auto& e : model.bushings) {
    f.elements += kBushingValues + kBushingPartials + (moves(e.i) ? kSideA : 0) + (moves(e.j) ? kSideB : 0) +
                  rows(e.i, e.j);
    f.scatter += scatter(e.i, e.j);
  }
  for (const auto& e : model.p2ps) {
    f.elements += kP2PValues + kP2PPartials + kSideNoTorque * ((moves(e.i) ? 1 : 0) + (moves(e.j) ? 1 : 0)) +
                  rows(e.i, e.j);
    f.scatter += scatter(e.i, e.j);
  }
  f.assemble = kAssembleBody * nFree;
  f.matrix = kMatrixBlock * nBlocks + kMatrixBody * nFree;
  // Two stages: J_r y (and J_v (v - v_lin) in stage 2), two block solves, the input columns.
  const double inputs = 2.0 * model.nDof() * model.nInputs();
  const double common = 2 * ((kStageBody + kStageRotate) * nFree + inputs) + 4.0 * model.nDof();
  f.stages = common + 3 * kBlockVector * nBlocks + kStageGyro * nFree;
  f.stagesLinearized = model.nElementStates() > 0 ? f.stages
                                                  : common + 2 * kBlockVector * nBlocks + kStageFromFirst * nFree;
  if (topology) {
    const int offDiagonal = topology->factorBlocks() - nFree;  // L and U blocks
    f.factorization = kInvertPivot * nFree + kBlockProduct * (offDiagonal / 2 + topology->updateOperations());
    f.stages += 2 * kBlockVector * (offDiagonal + nFree);  // forward and back substitution
    f.stagesLinearized += 2 * kBlockVector * (offDiagonal + nFree);
  } else {
    const double n = model.nDof();  // dense LU with partial pivoting
    f.factorization = 2.0 / 3.0 * n * n * n;
    f.stages += 2 * 2.0 * n * n;
    f.stagesLinearized += 2 * 2.0 * n * n;
  }
  return f;
}

}  // namespace bench
