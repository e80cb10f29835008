// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file floating_frame.h
/// A flexible body as the floating frame of reference carries it (docs/flexible-bodies.md,
/// "Floating frame"): its mass, centre of mass and inertia, the free-floating elastic modes
/// (mass-normalized, mass-orthogonal to the six rigid motions) with their stiffness, the inertia
/// invariants that make the inertia tensor and the rotation-mode coupling functions of the modal
/// coordinates q, and each node's translational and rotational mode shapes.
///
/// The frame is the body's mean axes to first order: the modes move neither the centre of mass
/// (sum of M Phi over the translations = 0) nor carry angular momentum when the body is at rest
/// (R_rot^T M Phi = 0), so the frame origin stays at the centre of mass and the mass matrix at
/// q = 0 is diag(m, J0, I). The terms in q are kept:
///
///     J(q) = J0 + sum_k q_k (G_k + G_k^T) + sum_kl q_k q_l H_kl,    C(q) = sum_k q_k E_k,
///
/// with D_k the rotation of the deformation (the rows of node i's translation: -[phi_k,i]x):
/// G_k = R_rot^T M D_k, H_kl = D_k^T M D_l, E_k = D_k^T M Phi. The kinetic energy is then
/// T = m |v|^2 / 2 + w^T J(q) w / 2 + w^T C(q) q' + |q'|^2 / 2 (w in body axes), exact for the
/// finite-element model's own kinetic energy x'^T M x' / 2 with nodal velocities
/// v + w x (X_i + u_i) + u_i' and nodal angular velocities w + theta_i'.

#include <vector>

#include "engine/fe/beam.h"
#include "engine/fe/craig_bampton.h"

namespace ek::fe {

using Mat3X = Eigen::Matrix<double, 3, Eigen::Dynamic>;

struct ModalBody {
  double mass = 0.0;
  Vec3 centre = Vec3::Zero();     ///< centre of mass in the mesh frame
  Mat3 inertia = Mat3::Zero();    ///< J0 about the centre of mass, mesh axes
  VecX frequencies;               ///< Hz of the elastic modes, ascending
  VecX stiffness;                 ///< (2 pi f)^2 per mode: the modal stiffness of unit modal mass
  MatX shapes;                    ///< the modes in the model's degrees of freedom (dofs.size x n)
  DofMap dofs;
  std::vector<Vec3> nodes;        ///< node positions relative to the centre of mass
  std::vector<Mat3> G;            ///< n: first-order inertia, J1 = sum q_k (G_k + G_k^T)
  std::vector<Mat3> H;            ///< n x n (H[k n + l]): J2 = sum q_k q_l H_kl; H_lk = H_kl^T
  std::vector<Mat3X> E;           ///< n, each 3 x n: C(q) = sum q_k E_k

  int modes() const { return static_cast<int>(stiffness.size()); }
  const Mat3& h(int k, int l) const { return H[static_cast<size_t>(k) * modes() + l]; }
  /// Node i's translations (3 x n) and small rotations (3 x n) per unit modal coordinate.
  Mat3X translation(int node) const;
  Mat3X rotation(int node) const;
};

/// Keeps the first `keep` elastic modes of a body (they are ascending in frequency) and its
/// invariants for them; the others are left out. @pre 0 <= keep <= body.modes()
void truncateModes(ModalBody& body, int keep);

/// Keeps the first `count` nodes of a body (each with its six degrees of freedom: reference nodes
/// of interfaces, e.g. reduceCalculixModel()'s) and drops the others' shapes: what a marker needs.
/// The mass, inertia, modes and invariants stay those of the whole model.
/// @throws std::invalid_argument when one of the first `count` nodes has no rotations
void keepNodes(ModalBody& body, int count);

/// The same floating-frame data (every field compared exactly).
bool sameModalData(const ModalBody& a, const ModalBody& b);

/// A point attached rigidly to a node (offset d from it, mesh axes) moves with the node's
/// translation and rotation: position s + T q, rotation (I + [R q]x) for small q.
struct PointShape {
  Vec3 position = Vec3::Zero();   ///< s: relative to the centre of mass, mesh axes
  Mat3X translation, rotation;    ///< T = T_i - [d]x R_i and R = R_i, 3 x n
};
PointShape pointShape(const ModalBody& body, int node, const Vec3& offset);

/// The floating-frame data of a finite-element body (stiffness K, mass M, node positions and
/// their degrees of freedom) reduced by Craig-Bampton onto `boundary` plus fixed-interface modes
/// (options), its elastic modes the free-floating ones (freeFloatingModes()).
ModalBody floatingFrameBody(const SparseMatrix& K, const SparseMatrix& M, const std::vector<Vec3>& nodes,
                            const DofMap& dofs, const std::vector<int>& boundary, const ReductionOptions& options);

/// The same for a beam mesh with interface nodes (their six degrees of freedom each, and warping
/// where a warping element touches them).
ModalBody floatingFrameBody(const BeamMesh& mesh, const std::vector<int>& interfaceNodes,
                            const ReductionOptions& options);

/// The invariants G, H and E of a body's modes (body.shapes, body.nodes about the body frame's
/// origin, body.dofs) from the model's mass matrix M, as floatingFrameBody() forms them; for any
/// mode set, free-floating or not.
void inertiaInvariants(ModalBody& body, const SparseMatrix& M);

/// J(q) and C(q) evaluated straight from the finite-element model (R_rot(q)^T M R_rot(q) and
/// R_rot(q)^T M Phi), to check the invariants.
void directInertia(const ModalBody& body, const SparseMatrix& M, const VecX& q, Mat3& J, Mat3X& C);

}  // namespace ek::fe
