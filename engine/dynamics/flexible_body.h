// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file flexible_body.h
/// The floating-frame equations of a flexible body (docs/flexible-bodies.md, "Floating frame"):
/// with the reference frame at the centre of mass (mean axes to first order, fe::ModalBody), the
/// body's velocities (v global, w in body axes, q' modal) obey
///
///     m v' = F,
///     [ J(q)    C(q) ] [ w' ]   [ tau_B ]   [ -w x (J w + C q') - J' w - C' q'              ]
///     [ C(q)^T  I    ] [ q''] = [ Q     ] + [ -C'^T w + g(w, q, q') - Lambda q - D q'       ]
///
/// g_k = w^T (dJ/dq_k) w / 2 + w^T E_k q' (Lagrange's dT/dq_k), J' = sum q'_k dJ/dq_k,
/// C' = sum q'_k E_k, Lambda = diag(omega_k^2), D = diag(d_k) the modal damping. No term is
/// dropped. The right-hand column f(w, q, q') and its partials are analytic; the partials of
/// M(q) a for given accelerations a are what a linear-implicit step needs beside them.
///
/// FlexibleWorkspace is sized once for a body; nothing here allocates afterwards.

#include <Eigen/Cholesky>

#include "engine/core/types.h"
#include "engine/fe/floating_frame.h"

namespace ek {

struct FlexibleWorkspace {
  explicit FlexibleWorkspace(int modes);
  int n = 0;
  // evaluateInertia()
  Mat3 J = Mat3::Zero();             ///< J(q)
  fe::Mat3X C, Cdot;                 ///< C(q), C' = sum q'_k E_k
  std::vector<Mat3> dJ;              ///< dJ/dq_k
  std::vector<Mat3> S;               ///< sum_l q_l H_kl
  std::vector<Vec3> dJw, Eqd;        ///< dJ/dq_k w and E_k q' per mode (inertialForces())
  std::vector<Vec3> hw;              ///< H_kl w, k major (inertialForces())
  Mat3 Jdot = Mat3::Zero();          ///< J' = sum q'_k dJ_k
  Vec3 L = Vec3::Zero();             ///< body angular momentum J w + C q'
  // inertialForces()
  VecX f;                            ///< (3 + n)
  MatX dfdw, dfdq, dfdqd;            ///< (3 + n) x 3, x n, x n
  MatX mass;                         ///< M(q), (3 + n) x (3 + n)
  MatX dMa;                          ///< d(M(q) a)/dq, (3 + n) x n
  // engineValues(), engineRows(): M(q) = [J C; C^T I] through its Schur complement
  // S = J - C C^T, the inertia of the frame with the modes free.
  Mat3 schurInverse = Mat3::Identity();    ///< S^-1
  Mat3 m0SchurInverse = Mat3::Identity();  ///< J0 S^-1
  VecX a;                            ///< accelerations (w', q'') = M(q)^-1 rhs
  VecX h;                            ///< M0 a: the rows the engine integrates with M0 = diag(J0, I)
  MatX dh;                           ///< M0 M(q)^-1 (d rhs - d(M a)) per column of the caller's
  Mat3X t, y;                        ///< 3 x columns: (I -C) d rhs and S^-1 of it
  Mat3X tq, yq;                      ///< 3 x n: the same for d(M a)/dq
  VecX g, hg;                        ///< (3 + n): a column of d rhs/du and M0 M(q)^-1 of it
};

/// J(q), C(q), their rates and dJ/dq_k at (q, q').
void evaluateInertia(const fe::ModalBody& body, const VecX& q, const VecX& qd, FlexibleWorkspace& ws);

/// f(w, q, q') of the equations above (inertial and elastic forces in the rows of w and q) into
/// ws.f, with `partials` also df/dw, df/dq, df/dq' (ws.dfdw, dfdq, dfdqd), and M(q) into ws.mass.
/// `damping`: d_k per mode (2 zeta_k omega_k for a damping ratio). @pre evaluateInertia() at (q, q').
void inertialForces(const fe::ModalBody& body, const VecX& damping, const Vec3& w, const VecX& q, const VecX& qd,
                    FlexibleWorkspace& ws, bool partials);

/// d(M(q) a)/dq for the accelerations a = (w', q'') into ws.dMa. @pre evaluateInertia() at q.
void massTimesPartial(const fe::ModalBody& body, const VecX& a, FlexibleWorkspace& ws);

/// a = M(q)^-1 rhs and h~ = M0 a into ws.a and ws.h (the values of engineRows(), bit for bit).
/// @pre inertialForces() at the same point.
void engineValues(const fe::ModalBody& body, const VecX& rhs, FlexibleWorkspace& ws);

/// The body's rows of rotation and deformation as an engine with a constant block mass takes
/// them: with M0 = diag(J0, I), M0 (w', q'') = h~ holds the body's equations exactly for
/// h~ = M0 M(q)^-1 rhs, rhs = (tau_B; Q) + f. Its partials follow from those of rhs:
/// dh~ = M0 M(q)^-1 (d rhs - d(M(q) a)/dq dq) with a = M(q)^-1 rhs. `drhs` has a column per
/// variable of the caller's (any number); the modal coordinates q are its columns
/// [qColumn, qColumn + n) (-1: none among them). Writes ws.a, ws.h, ws.dh. M(q)^-1 through the
/// Schur complement of its identity block: 6 n + 9 multiply-adds per column instead of (3 + n)^2.
/// @pre inertialForces() at the same point.
void engineRows(const fe::ModalBody& body, const VecX& rhs, const MatX& drhs, int qColumn, FlexibleWorkspace& ws);

/// ws.hg = M0 M(q)^-1 ws.g, the rows' change with a load that adds g to rhs (the inputs' columns).
/// @pre engineValues() or engineRows() at this state.
void engineSolve(FlexibleWorkspace& ws);

/// The kinetic energy of rotation and deformation w^T J w / 2 + w^T C q' + |q'|^2 / 2 and the
/// strain energy q^T Lambda q / 2. @pre evaluateInertia() at q.
double rotationalAndElasticEnergy(const fe::ModalBody& body, const Vec3& w, const VecX& q, const VecX& qd,
                                  const FlexibleWorkspace& ws);

/// A point of the body (fe::pointShape()) at the frame pose (p, R) and modal coordinates:
/// its position and velocity (global) and the generalized forces of a force F and torque tau
/// (global) acting on it: the force, the torque about the centre of mass (global) and the modal
/// forces T^T R^T F + R_s^T R^T tau. Small elastic rotations (first order in q).
struct PointWrench {
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
  VecX modal;
};
Vec3 pointPosition(const fe::PointShape& s, const Vec3& p, const Mat3& R, const VecX& q);
Vec3 pointVelocity(const fe::PointShape& s, const Mat3& R, const VecX& q, const Vec3& v, const Vec3& wB, const VecX& qd);
Vec3 pointAngularVelocity(const fe::PointShape& s, const Mat3& R, const Vec3& wB, const VecX& qd);
void pointWrench(const fe::PointShape& s, const Mat3& R, const VecX& q, const Vec3& F, const Vec3& tau,
                 PointWrench& out);

}  // namespace ek
