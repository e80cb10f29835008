// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file model.h
/// SuspensionModel: the immutable, compiled form of a Project (reference point at the centre of
/// mass, indices instead of ids, curves built, and the 6x6 block pattern of the Jacobians that the
/// topology gives). Shared read-only by the engine stages; all mutable data lives in Workspace.

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/types.h"
#include "engine/fe/floating_frame.h"
#include "engine/model/curve.h"
#include "engine/model/project.h"
#include "engine/model/tyre_property.h"
#include "engine/model/validate.h"

namespace ek {

/// Slots of an element's four Jacobian blocks (a = body of marker I, b = body of marker J);
/// -1 where a side is fixed.
struct BlockSlots {
  int aa = -1, ab = -1, ba = -1, bb = -1;
};

struct ModelBody {
  int id = 0;
  std::string name;
  bool fixed = false;
  int state = -1;  ///< slot in r and v (6 entries each from 6*state), -1 for fixed bodies
  double mass = 0.0;
  Mat3 inertia = Mat3::Zero();  ///< about the centre of mass, body axes
  Vec3 com = Vec3::Zero();      ///< centre of mass in the user's body frame
  // Reference pose: centre of mass (free) or frame origin (fixed), and orientation.
  Vec3 p0 = Vec3::Zero();
  Vec3 angles0 = Vec3::Zero();
  Mat3 R0 = Mat3::Identity();
  Vec3 v0 = Vec3::Zero();  ///< centre-of-mass velocity, global
  Vec3 w0 = Vec3::Zero();  ///< angular velocity, body frame
  /// A driven fixed body: the motion inputs that move it (translations, at most one rotation).
  std::vector<int> drives;
  int rotation = -1;  ///< the rotation input among drives, -1 if none
  bool driven() const { return !drives.empty(); }
  /// A flexible body (its reference frame, above) and the state slots of its modal coordinates:
  /// the index into SuspensionModel::flexibleBodies, -1 for a rigid body.
  int flexible = -1;
  /// A slot of modal coordinates (not a body of the project): six modal coordinates of flexible
  /// body `flexible` in r, their rates in v, unit modal mass (mass 1, inertia I), no gravity,
  /// r' = v. Appended after the project's bodies. A tyre's slot (`tyre` >= 0) is one as well.
  bool modal = false;
  int tyre = -1;  ///< a tyre's state slot: the index into SuspensionModel::wheels, -1 otherwise
};

struct ModelMarker {
  int id = 0;
  std::string name;
  BodyIndex body;
  Vec3 s = Vec3::Zero();          ///< position relative to the body's reference point, body axes
  Mat3 R_BM = Mat3::Identity();   ///< orientation relative to the body frame
  bool aligned = true;            ///< R_BM is the identity (the marker's axes are its body's)
  /// On a flexible body: the index into SuspensionModel::flexibleBodies (-1: rigid), the node
  /// it rides on and its mode shapes there (s above equals shape.position).
  int flexible = -1;
  int node = -1;
  fe::PointShape shape;
};

/// A flexible body (FlexibleBodyRow) as the engine integrates it: the reduced beams on a floating
/// frame (the body's own slot, at the centre of mass) and its modal coordinates in the slots
/// [firstModalSlot, firstModalSlot + modalSlots), mode k at entry k % 6 of slot
/// firstModalSlot + k / 6 (the last slot's remaining entries stay zero).
struct ModelFlexibleBody {
  int id = 0;
  std::string name;
  int body = -1;           ///< the frame's body index
  int frameSlot = -1;
  int firstModalSlot = -1, modalSlots = 0;
  fe::ModalBody modal;
  VecX damping;            ///< d_k = 2 zeta omega_k per mode
  std::vector<int> markers;  ///< the markers riding on it
  int modes() const { return modal.modes(); }
  /// The state slots of the body: the frame's, then the modal ones.
  std::vector<int> stateSlots() const {
    std::vector<int> s{frameSlot};
    for (int k = 0; k < modalSlots; ++k) s.push_back(firstModalSlot + k);
    return s;
  }
};

/// A Maxwell branch (MaxwellBranchRow): spring k in series with damper c, relaxation rate k / c.
struct MaxwellBranch {
  double k = 0.0, c = 0.0;
  double lambda() const { return k / c; }
};

struct ModelBushing {
  int id = 0;
  std::string name;
  MarkerIndex i, j;
  std::array<Characteristic, 6> stiffness{}, damping{};  ///< x, y, z, rx, ry, rz
  std::array<double, 6> preload{};
  std::array<int, 6> branchDirection{-1, -1, -1, -1, -1, -1};  ///< index into branchDirections, -1: none
  BlockSlots blocks;
  /// The constant coefficients in the order the element kernel reads them as vectors: stiffness
  /// of x, y, z, then of the Cardan angles psi (rz), theta (ry), phi (rx); damping and preload
  /// in the same order; two zeros (20 numbers). A direction with a curve has 0 here.
  std::array<double, 20> coefficients{};
  bool nonlinear = false;  ///< some direction has a curve or Maxwell branches
};

/// A bushing direction with Maxwell branches: their deflections are the element states
/// z[first .. first + branches.size()).
struct ModelBranchDirection {
  int bushing = 0;    ///< index into bushings
  int direction = 0;  ///< 0..5: x, y, z, rx, ry, rz
  int first = 0;      ///< first element state
  std::vector<MaxwellBranch> branches;
  /// Branches scaled by the static law's slope: k_i s(x), s = S'(x) / S'(0) (slope0 = S'(0) > 0).
  bool scaled = false;
  double slope0 = 1.0;
};

struct ModelStop {
  bool active = false;
  double clearance = 0.0;
  Characteristic law;
};

struct ModelP2P {
  int id = 0;
  std::string name;
  MarkerIndex i, j;
  double freeLength = 0.0;
  double preload = 0.0;
  Characteristic spring, damper;
  ModelStop bump, rebound;
  BlockSlots blocks;
};

/// A steering rack (SteeringRackRow) as the engine evaluates it (dynamics/force_elements.h).
struct ModelSteeringRack {
  int id = 0;
  std::string name;
  MarkerIndex i, j;  ///< rack, housing (its z axis is the rack's)
  int input = -1;    ///< the steering-wheel angle's input
  /// A variable ratio: the rack's travel against the steering-wheel angle S(u) (owned by the
  /// model); null: the constant `ratio`.
  const Curve* travelCurve = nullptr;
  double travelAtZero = 0.0;  ///< S(0): the angle zero stands for the rack as modelled [m]
  double ratio = 0.0;      ///< [m/rad]; with a travel curve its slope at zero angle
  double columnStiffness = 0.0, columnDamping = 0.0;  ///< torsional [N m/rad], [N m s/rad]
  double stiffness = 0.0;  ///< the column's, at the rack: column stiffness / ratio^2 [N/m] (at zero angle)
  double damping = 0.0;    ///< [N s/m] (at zero angle)
  double travel0 = 0.0;    ///< (p_I - p_J) . z_J as modelled [m]
  BlockSlots blocks;
  int inputSlotA = -1, inputSlotB = -1;  ///< J_u's slots (row of I's body, of J's body; -1 if not free)

  /// What the steering-wheel angle u asks of the rack (docs/steering.md, "Variable ratio"): the
  /// travel S(u) - S(0) (ratio u for a constant ratio), the ratio S'(u) and its slope S''(u).
  struct Command {
    double travel = 0.0, ratio = 0.0, ratioSlope = 0.0;
  };
  Command command(double u) const;
};

struct ModelInput {
  int id = 0;
  std::string name;
  MarkerIndex marker;
  InputKind kind = InputKind::Force;
  InputFrame frame = InputFrame::Global;
  Vec3 direction = Vec3::UnitX();
  int slot = -1;  ///< diagonal Jacobian block of the marker's body, -1 if fixed
  BodyIndex body;  ///< the marker's body
  /// Translation: the global displacement per unit u (the direction, in the marker's frame as
  /// modelled if frame = marker). Rotation: the unit global axis; centre: the marker's position
  /// as modelled, the point the axis passes through before any translation of the body.
  Vec3 axis = Vec3::UnitX();
  Vec3 centre = Vec3::Zero();
  /// Drives or brakes a wheel's spin (ModelWheel::drive, brake): the wheel applies it and its
  /// reaction, not the input's own load at the marker.
  bool spinTorque = false;
  bool motion() const { return isMotion(kind); }
};

/// A wheel (project table `wheels`): where its centre and spin axis are, what carries it.
struct ModelWheel {
  int id = 0;
  std::string name;
  BodyIndex body;        ///< the wheel body (free)
  MarkerIndex marker;    ///< wheel centre; x axis = spin axis
  BodyIndex carrier;     ///< reacts brake torque; may be fixed or the wheel body itself
  double radius = 0.0;   ///< unloaded tyre radius [m]
  double side = 1.0;     ///< +1 left, -1 right
  MarkerIndex steerUpper, steerLower;  ///< steering axis; invalid (-1) when not given
  int steeringInput = -1;  ///< input whose screw axis is the steering axis (K&C only), -1 if none
  double axisSign = 1.0;  ///< the marker's x axis times this points outboard as modelled
  Mat3 R_CM0 = Mat3::Identity();  ///< the centre marker's orientation relative to the carrier as modelled
  int slotWheel = -1;    ///< diagonal block of the wheel body
  int slotCarrier = -1;  ///< block (carrier row, wheel column); -1 if the carrier is fixed or the wheel
  // A Magic Formula tyre (WheelRow::tyre): its state slot holds the spin angle and the integrals
  // of the deflections in r, the spin rate Omega and the deflections u, v in v (docs/tyres.md).
  std::shared_ptr<const TyreProperty> tyre;  ///< null: no tyre
  int tyreSlot = -1;          ///< the tyre's state slot
  bool tyreMirrored = false;  ///< the file's tyre runs on the other side than it was measured on
  double spinInertia = 0.0, lowSpeedDamping = 0.0, roadHeight = 0.0;
  int tyreBlockHub = -1, tyreBlockSlot = -1;  ///< blocks (hub row, slot column), (slot row, hub column)
  /// A torque on the spin (WheelRow::driveInput, brakeInput) and its reaction about the wheel's
  /// axis on the body of the input's marker.
  struct SpinTorque {
    int input = -1;      ///< -1: none
    int reaction = -1;   ///< the reaction body's state slot, -1 if fixed
    int blockHub = -1;   ///< block (reaction row, hub column)
    int blockSlot = -1;  ///< block (reaction row, tyre slot column)
    int inputSlot = -1;     ///< J_u's slot (tyre slot row, input column)
    int reactionInput = -1; ///< J_u's slot (reaction row, input column), -1 if fixed
  };
  SpinTorque drive, brake;
  bool hasSteeringAxis() const { return steerUpper.value >= 0; }
  /// The K&C analyses report caster, kingpin inclination, scrub and trail (markers or screw axis).
  bool hasKcSteeringAxis() const { return hasSteeringAxis() || steeringInput >= 0; }
};

/// Block pattern of the 6x6-blocked Jacobians J_r, J_v (and of A, paper 003 eq. 19): the
/// diagonal block of every free body and the off-diagonal blocks of every pair of free bodies
/// coupled by a force element. CSR by block rows, columns sorted.
struct BlockPattern {
  int nBodies = 0;
  std::vector<int> rowStart;  ///< nBodies + 1
  std::vector<int> col;       ///< column body of each block
  std::vector<int> diag;      ///< slot of the diagonal block of each body
  int nBlocks() const { return static_cast<int>(col.size()); }
  int find(int row, int column) const;  ///< slot or -1
};

/// Sparse columns of J_u and J_udot: the free-body rows each input acts on. A load acts on its
/// marker's body; a motion input acts through every element that joins its driven body to a free
/// body. Slots are numbered row by row (CSR), inputs ascending within a row, so that a row's
/// products with the inputs are contiguous and a model of many axles does not carry a dense
/// nDof x nInputs matrix.
struct InputPattern {
  std::vector<int> rowStart;  ///< nBodies + 1
  std::vector<int> input;     ///< input of each slot
  std::vector<int> row;       ///< free-body row of each slot
  std::vector<int> colStart;  ///< nInputs + 1, into colSlots
  std::vector<int> colSlots;  ///< the slots of each input, rows ascending
  int nSlots() const { return static_cast<int>(input.size()); }
  int find(int row, int input) const;  ///< slot or -1
};

/// The beam mesh of a flexible body: `elementsPerSegment` elements between consecutive points.
fe::BeamMesh beamMesh(const FlexibleBodyRow& row);

class SuspensionModel {
 public:
  /// Validates and compiles. @throws ModelError.
  static std::shared_ptr<const SuspensionModel> build(const Project& project);

  SuspensionModel(const SuspensionModel&) = delete;
  SuspensionModel& operator=(const SuspensionModel&) = delete;

  const Project& project() const { return project_; }
  int nFreeBodies() const { return nFree_; }
  int nDof() const { return 6 * nFree_; }
  int nInputs() const { return static_cast<int>(inputs.size()); }

  std::vector<ModelBody> bodies;
  std::vector<int> freeBodies;  ///< body index of each state slot
  std::vector<int> drivenBodies;  ///< fixed bodies moved by translation or rotation inputs
  bool hasMotionInputs() const { return !drivenBodies.empty(); }
  std::vector<ModelMarker> markers;
  std::vector<ModelFlexibleBody> flexibleBodies;
  bool hasFlexibleBodies() const { return !flexibleBodies.empty(); }
  bool hasTyres() const { return hasTyres_; }
  std::vector<ModelBushing> bushings;
  std::vector<ModelBranchDirection> branchDirections;  ///< the viscoelastic bushing directions
  int nElementStates() const { return nElementStates_; }  ///< Maxwell branch deflections
  std::vector<ModelP2P> p2ps;
  std::vector<ModelSteeringRack> steeringRacks;
  std::vector<ModelInput> inputs;
  std::vector<ModelWheel> wheels;
  std::vector<Curve> curves;
  BlockPattern pattern;
  InputPattern inputPattern;
  Vec3 gravity = Vec3::Zero();

  BodyIndex bodyById(int id) const;
  MarkerIndex markerById(int id) const;
  int bushingById(int id) const;
  int p2pById(int id) const;
  int steeringRackById(int id) const;
  int inputById(int id) const;
  int wheelById(int id) const;
  const LoadCaseRow* loadCase(const std::string& name) const;

  /// State vectors of the body poses and velocities as modelled (r0, v0).
  void initialState(VecX& r, VecX& v) const;
  /// The element states at rest (relaxed Maxwell branches: zero), sized nElementStates().
  VecX relaxedElementStates() const { return VecX::Zero(nElementStates_); }

 private:
  SuspensionModel() = default;
  /// The flexible bodies' reduction, mass properties and modal slots (after the project's bodies).
  static void compileFlexibleBodies(const Project& p, SuspensionModel& m, std::map<int, int>& nodeOfMarker);
  Project project_;
  int nFree_ = 0;
  bool hasTyres_ = false;
  int nElementStates_ = 0;
};

}  // namespace ek
