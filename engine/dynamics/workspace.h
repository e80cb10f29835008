// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file workspace.h
/// State (t, r, v) and Workspace: every intermediate of the linearization, sized once from a
/// SuspensionModel, grouped by the stage that fills it. Nothing here allocates after construction.

#include <array>
#include <vector>

#include "engine/core/types.h"
#include "engine/dynamics/flexible_body.h"
#include "engine/dynamics/tyre_contact.h"
#include "engine/model/model.h"

namespace ek {

using Mat6x12 = Eigen::Matrix<double, 6, 12>;

/// The small copyable state of paper 003 eq. (1): r = (x, y, z, alpha_z, alpha_y', alpha_x'')
/// and v = (v_x, v_y, v_z, w_x, w_y, w_z) of every free body, stacked.
struct State {
  double t = 0.0;
  VecX r, v;
  VecX z;  ///< element states: the Maxwell branch deflections (model.nElementStates(); empty: relaxed)
};

struct alignas(64) BodyKinematics {
  Vec3 p, angles, v, w_B;  ///< the body's slices of r and v
  Mat3 R;                  ///< R_WB
  Mat3 Tinv;               ///< T(alpha)^-1: K_l's rotational block (eq. 2a)
  Mat3 RT;                 ///< R*T: world rotation vector per Cardan-angle change
  Vec3 w_W;                ///< angular velocity, global
  Mat3 N;                  ///< d(T^-1 w_B)/d(alpha): derivative of K(r)v for fixed v
};

/// A marker's global kinematics. Its partials with respect to its body's (p, theta, v, w_B),
/// where theta is the global rotation vector of a virtual rotation (d theta = R T d alpha), are
/// the cross-product maps of markerPartials() (kinematics.h); the stages apply them as cross
/// products instead of storing them. Markers on fixed bodies are set once by the Workspace.
struct alignas(64) MarkerKinematics {
  int state = -1;  ///< the body's state slot, -1 on a fixed body
  int body = -1;   ///< the body's index
  bool moves = false;  ///< on a free or a driven body (partials are needed)
  Vec3 p, v, w;    ///< position, velocity, angular velocity (global)
  Mat3 R;          ///< R_WM
  Vec3 rho;        ///< p_WM - p_WC: lever arm from the body's reference point (global)
};

/// What a force element produces: the wrench (F, tau) it applies, in global coordinates, to the
/// body of marker I at p_I, the opposite wrench at p_I on the body of marker J, and the partials of
/// (F, tau) with respect to the (p, theta, v, w_B) of the bodies of I (side A) and J (side B),
/// theta the global rotation vector, as their 3x3 blocks that can be non-zero: F depends on the
/// positions and velocities through p_A - p_B and v_A - v_B only (dF/dp_B = -Fp, dF/dv_B = -Fv),
/// tau on neither. Without torque (P2P) the T blocks are zero and not written (`torque` false).
/// The blocks of a side whose body does not move are not written either. sidePartials() gives a
/// side as a dense 6x12 matrix.
struct ElementWrench {
  Vec3 F = Vec3::Zero(), tau = Vec3::Zero();
  Mat3 Fp = Mat3::Zero(), Fv = Mat3::Zero();
  Mat3 FthA = Mat3::Zero(), FwA = Mat3::Zero(), FthB = Mat3::Zero(), FwB = Mat3::Zero();
  Mat3 TthA = Mat3::Zero(), TwA = Mat3::Zero(), TthB = Mat3::Zero(), TwB = Mat3::Zero();
  bool torque = true;
  /// The same partials for the rows they are added to, ready for the slots of Jw_r and Jw_v: the
  /// wrench about the row body's centre, the lever arm's own partials included. The A half in the
  /// rows of I's body (slots aa, ab), the B half, the reaction at p_I, in the rows of J's body
  /// (slots bb, ba). Written for the slots of moving bodies only.
  struct Slot {
    Mat6 r = Mat6::Zero(), v = Mat6::Zero();
  };
  Slot aa, ab, bb, ba;
};

/// d(F, tau)/d(p, theta, v, w_B) of the body of side A (or B) as one dense matrix.
inline Mat6x12 sidePartials(const ElementWrench& w, bool sideA) {
  Mat6x12 d = Mat6x12::Zero();
  const double s = sideA ? 1.0 : -1.0;
  d.block<3, 3>(0, 0) = s * w.Fp;
  d.block<3, 3>(0, 3) = sideA ? w.FthA : w.FthB;
  d.block<3, 3>(0, 6) = s * w.Fv;
  d.block<3, 3>(0, 9) = sideA ? w.FwA : w.FwB;
  if (w.torque) {
    d.block<3, 3>(3, 3) = sideA ? w.TthA : w.TthB;
    d.block<3, 3>(3, 9) = sideA ? w.TwA : w.TwB;
  }
  return d;
}

struct BushingResult {
  Vec6 deflection = Vec6::Zero();  ///< x, y, z [m] (J frame), rx, ry, rz [rad] (relative Cardan)
  Vec6 rate = Vec6::Zero();        ///< their time derivatives
  Vec6 force = Vec6::Zero();       ///< on I: force [N] in J frame; generalized torques [N m]
  ElementWrench wrench;
};

struct P2PResult {
  double length = 0.0, rate = 0.0, tension = 0.0;
  ElementWrench wrench;
};

/// A steering rack's travel from its position as modelled and its rate [m, m/s], the force on the
/// rack along the housing's z axis [N], the column's torque [N m] and twist [rad].
struct SteeringRackResult {
  double travel = 0.0, rate = 0.0, force = 0.0, columnTorque = 0.0, columnTwist = 0.0;
  double dForce_du = 0.0, dForce_dudot = 0.0;  ///< the force's partials by the angle and its rate
  ElementWrench wrench;
};

using Vec12 = Eigen::Matrix<double, 12, 1>;

/// How a driven body's (p, theta, v, w_B) change with one motion input's value u and rate u_dot
/// (docs/method.md, "Driven rig bodies").
struct DrivePartials {
  Vec12 dPose_du = Vec12::Zero();
  Vec12 dPose_dudot = Vec12::Zero();
};

/// A step's local error estimate from an embedded lower-order solution (no extra factorization):
/// the largest estimated error of any coordinate of each kind [m, rad, m/s, rad/s].
struct LocalErrorEstimate {
  double position = 0.0, angle = 0.0, velocity = 0.0, angularVelocity = 0.0;
};

/// A side of a viscoelastic direction on a flexible body with modes (docs/flexible-bodies.md,
/// "Maxwell branches"): the parts of BranchCoupling in the body's modal coordinates q (the frame's
/// stay in wA, grA, ...), sized once. The element pass leaves the side's marker-level partials and
/// the unit wrench on I here; the flexible pass chains them through the node (gq, gqd, dq) and
/// gives the generalized force (R^T torque; Q), which the body's rows map through M0 M(q)^-1 (wq).
struct BranchModalSide {
  int firstSlot = -1;  ///< the body's first modal slot (-1: a rigid side); q = r.segment(6 firstSlot, modes)
  int modes = 0;
  int marker = -1;     ///< the side's marker
  VecX wq, gq, gqd, dq;  ///< h's modal rows per unit branch force; the rate's and deflection's partials
  Vec12 gMarker = Vec12::Zero(), dMarker = Vec12::Zero();  ///< by the marker's (p, theta, v, w)
  Vec3 F = Vec3::Zero(), tau = Vec3::Zero();  ///< the unit wrench on I at p_I
  Vec3 torqueB = Vec3::Zero();                ///< R^T (frame torque) before the mapping
};

/// A viscoelastic bushing direction's coupling to the bodies, in generalized coordinates (the
/// rows and columns of h, J_r, J_v of the two bodies; a fixed body's parts stay zero):
/// h changes by -(wA; wB) dF for a change dF of the direction's branch force sum_i k_i z_i, and
/// the direction's deflection rate changes by grA.dr_a + grB.dr_b + gvA.dv_a + gvB.dv_b.
struct BranchCoupling {
  int stateA = -1, stateB = -1;  ///< free-body slots of the bodies of markers I and J (-1: fixed)
  Vec6 wA = Vec6::Zero(), wB = Vec6::Zero();
  Vec6 grA = Vec6::Zero(), grB = Vec6::Zero(), gvA = Vec6::Zero(), gvB = Vec6::Zero();
  /// A side on a driven body: its index (-1 otherwise) and the rate's partials w.r.t. that body's
  /// (p, theta, v, w_B) (theta: global rotation vector), to be taken through ws.drives.
  int drivenA = -1, drivenB = -1;
  Vec12 gDrivenA = Vec12::Zero(), gDrivenB = Vec12::Zero();
  /// The direction's deflection partials (d(deflection) = drA.dr_a + drB.dr_b, driven sides
  /// through dDrivenA/B), and the branch scaling at the linearization point: the branches act
  /// with stiffness k_i scale and rate (k_i / c_i) scale, d(scale)/d(deflection) = scaleSlope
  /// (1 and 0 for unscaled branches).
  Vec6 drA = Vec6::Zero(), drB = Vec6::Zero();
  Vec12 dDrivenA = Vec12::Zero(), dDrivenB = Vec12::Zero();
  double scale = 1.0, scaleSlope = 0.0;
  BranchModalSide modalA, modalB;  ///< a side on a flexible body: its modal coordinates' parts
};

/// What the stages keep of a flexible body (dynamics/flexible_rows.h), sized once.
struct FlexibleBodyState {
  explicit FlexibleBodyState(const ModelFlexibleBody& body, const BlockPattern& pattern);
  FlexibleWorkspace inertia;
  VecX q, qd;                ///< modal coordinates and rates at the evaluation
  std::vector<int> cols;     ///< the column slots of the body's rows (the same for each of its slots)
  int qColumn = -1;          ///< first column of q among the position columns (6 per column slot)
  /// The pattern's block of (the body's slot m, cols[j]) at blocks[m * cols.size() + j], slot 0 the
  /// frame's, 1.. the modal ones.
  std::vector<int> blocks;
  VecX rhs;                  ///< (tau_B; Q) + f, 3 + n
  MatX drhs;                 ///< its partials: 6 position columns per column slot, then 6 velocity ones
  MatX noColumns;            ///< (3 + n) x 0: the values-only pass
};

/// A marker on a flexible body: what its kinematics add to the rigid map (dynamics/flexible_rows.h).
struct FlexibleMarkerState {
  Mat3 expPhi = Mat3::Identity();  ///< Exp(phi), phi = R_s q (body axes)
  Mat3 jl = Mat3::Identity();      ///< the left Jacobian of Exp at phi
  Vec3 phi = Vec3::Zero(), phiDot = Vec3::Zero();
  Vec3 elasticVelocity = Vec3::Zero();  ///< R T q' (global)
};

/// Whether a force element between markers i and j has a side on a flexible body: it then goes
/// through the flexible pass (calcFlexibleElements()), the others through the lane kernels. The
/// one place that splits them (the Workspace's element lists, the parallel step's thread lists).
bool joinsFlexibleBody(const SuspensionModel& model, MarkerIndex i, MarkerIndex j);

struct Workspace {
  explicit Workspace(const SuspensionModel& model);

  // calcBodyKinematics (nBodies, fixed bodies filled once, driven bodies from u and u_dot)
  std::vector<BodyKinematics> bodies;
  std::vector<DrivePartials> drives;  ///< nInputs, filled for motion inputs
  // calcMarkerKinematics (nMarkers)
  std::vector<MarkerKinematics> markers;
  // calcBushings (nBushings), calcP2Ps (nP2P)
  /// The element states the bushings are evaluated at (model.nElementStates(); zero: relaxed).
  VecX z;
  std::vector<BranchCoupling> branches;  ///< per model.branchDirections, with the partials
  std::vector<BushingResult> bushings;
  std::vector<P2PResult> p2ps;
  std::vector<SteeringRackResult> steeringRacks;
  /// The markers on moving (free or driven) bodies, ascending: those calcMarkerKinematics() updates.
  std::vector<int> movingMarkers;
  /// The order calcBushings() and calcP2Ps() take the elements in (batchOrder()).
  std::vector<int> bushingOrder, p2pOrder;
  // calcGeneralizedForces: world wrenches about each free body's centre of mass and their
  // partials w.r.t. (p, theta) [Jw_r] and (v, w_B) [Jw_v] in the block pattern.
  std::vector<Vec6> wrench;  ///< nFree
  std::vector<Mat6> Jw_r, Jw_v;  ///< nBlocks
  /// World-wrench partials w.r.t. motion inputs and their rates, one 6-vector per slot of
  /// model.inputPattern (a free body's row, an input's column).
  std::vector<Vec6> Jw_u, Jw_udot;
  // Linearization results (paper 003 eq. 8/9), generalized coordinates:
  VecX u;                          ///< inputs at the linearization point (nInputs)
  VecX uDot;                       ///< their rates; only motion inputs use them (nInputs)
  VecX h;                          ///< h(r, v, u) (nDof)
  std::vector<Mat6> Jr, Jv;        ///< dh/dr, dh/dv in the block pattern (nBlocks)
  /// dh/du and dh/du_dot in the slots of model.inputPattern (inputColumn() gives a dense column);
  /// J_udot is non-zero for motion inputs only.
  std::vector<Vec6> Ju, Judot;
  std::vector<Mat3> Kinv;          ///< rotational blocks of K (T^-1) per free body
  std::vector<Mat3> N;             ///< rotational blocks of d(K v)/dr per free body
  // Flexible bodies (dynamics/flexible_rows.h): per body, per marker (nMarkers, used on flexible
  // ones), and the force elements with a side on a flexible body, which the lane kernels leave out.
  /// The Magic Formula tyres' contacts, per wheel (sized when the model has tyres).
  std::vector<TyreContact> tyres;
  std::vector<FlexibleBodyState> flexible;
  std::vector<FlexibleMarkerState> flexibleMarkers;
  std::vector<int> flexibleBushings, flexibleP2Ps;
  /// The steering racks with a side on a flexible body (through the flexible pass) and the others.
  std::vector<int> flexibleRacks, rigidRacks;
  std::vector<int> flexibleLoads;  ///< force and torque inputs at a marker on a flexible body
  /// The motion Jacobians of the markers of those elements (12 x both levels of the marker's
  /// body's coordinates), computed once per linearization; flexJacobianOf[marker] indexes them
  /// (-1: none).
  std::vector<MatX> flexJacobians;
  std::vector<int> flexJacobianMarkers, flexJacobianOf;
  /// Scratch of the flexible element pass (sized for the largest body): per marker of an element
  /// the partials of its wrench by the marker's body's coordinates, the reaction's, one side's
  /// rows, the modal forces of one side, the rotation shapes turned.
  std::array<Mat6X, 2> flexMotion;
  Mat6X flexReaction;
  MatX flexRows;
  VecX flexValues;
  Mat3X flexShapeScratch;
};

}  // namespace ek
