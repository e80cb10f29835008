// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file beam.h
/// Straight 3D beam elements and their assembly into the stiffness and mass matrices of a body
/// (docs/flexible-bodies.md, "Beams").
///
/// Bending is Timoshenko's (shear deformation with a shear correction factor, rotary inertia)
/// with the interdependent interpolation, whose stiffness is exact for end loads; stretching is
/// linear; torsion is Saint-Venant's, and for open thin-walled profiles Vlasov's: with a warping
/// constant Iw > 0 the twist is interpolated by cubic Hermite polynomials in the twist and its
/// rate psi = dtheta/dx, a seventh degree of freedom at each node the element touches. The shear
/// centre is taken at the centroid.
///
/// Element degrees of freedom, local axes (x along the element, y and z the section's principal
/// axes): per node u, v, w, theta_x, theta_y, theta_z, psi. A node's global degrees of freedom
/// are the translation and the small rotation vector in the body frame (6), then psi when a
/// warping element touches it. Warping is continuous through a node.

#include <Eigen/SparseCore>
#include <string>
#include <vector>

#include "engine/core/types.h"

namespace ek::fe {

/// Cross-section properties about the centroid and the principal axes (SI: m^2, m^4, m^6).
struct BeamSection {
  double area = 0.0;            ///< A
  double iy = 0.0;              ///< second moment about local y (bending in the x-z plane)
  double iz = 0.0;              ///< second moment about local z (bending in the x-y plane)
  double torsion = 0.0;         ///< Saint-Venant torsion constant J
  double warping = 0.0;         ///< warping constant Iw (0: no warping degree of freedom)
  double shearY = 5.0 / 6.0;    ///< shear correction factor for shear along local y
  double shearZ = 5.0 / 6.0;    ///< shear correction factor for shear along local z
};

/// Linear elastic isotropic material (Pa, kg/m^3).
struct BeamMaterial {
  double youngsModulus = 0.0;
  double shearModulus = 0.0;
  double density = 0.0;
};

/// One element between two nodes; `up` (not along the element) fixes the local y axis:
/// z = x cross up, y = z cross x.
struct BeamElement {
  int node0 = -1;
  int node1 = -1;
  Vec3 up = Vec3::UnitZ();
  BeamSection section;
  BeamMaterial material;
};

/// Nodes (positions in the body frame) and the elements between them.
struct BeamMesh {
  std::vector<Vec3> nodes;
  std::vector<BeamElement> elements;
};

/// Where each node's degrees of freedom sit in the assembled matrices.
struct DofMap {
  std::vector<int> first;  ///< first of the node's six (translation x y z, rotation x y z)
  std::vector<int> warp;   ///< the node's warping degree of freedom, or -1
  /// Per node, 0 when it has only the three translations (a solid element's node); empty when
  /// every node has all six.
  std::vector<unsigned char> rotations;
  int size = 0;
  bool hasRotations(int node) const { return rotations.empty() || rotations[node] != 0; }
};

using SparseMatrix = Eigen::SparseMatrix<double>;

/// Assembled stiffness and mass (full symmetric storage) of a mesh, in the body frame.
struct BeamMatrices {
  DofMap dofs;
  SparseMatrix stiffness;
  SparseMatrix mass;
};

/// Element matrices in local axes, 14 x 14 (per node u v w theta_x theta_y theta_z psi).
using ElementMatrix = Eigen::Matrix<double, 14, 14>;

/// Local stiffness, closed form (Przemieniecki's Timoshenko element; Vlasov torsion by cubic
/// Hermite interpolation when the section has a warping constant).
ElementMatrix localStiffness(const BeamSection& s, const BeamMaterial& m, double length);

/// Local consistent mass from the same interpolation, integrated by four-point Gauss
/// quadrature (exact for its degree): translation rho A N^T N, rotary rho I G^T G, twist
/// rho (Iy + Iz). Warping inertia (rho Iw psi^2) is left out: it is of the order of the
/// rotary inertia of the flanges, (section depth / wavelength)^2 of the twist inertia.
ElementMatrix localMass(const BeamSection& s, const BeamMaterial& m, double length);

/// Local stiffness by quadrature of the same interpolation (strain energy of bending with
/// shear, stretching and torsion); equals localStiffness() and is kept to check it.
ElementMatrix localStiffnessByQuadrature(const BeamSection& s, const BeamMaterial& m, double length);

/// Rows of the local axes x, y, z in the body frame; throws std::invalid_argument when the
/// element has no length or `up` is along it.
Mat3 localAxes(const Vec3& p0, const Vec3& p1, const Vec3& up);

/// Checks a mesh: every error (element, field, why) in one message, std::invalid_argument.
void validateMesh(const BeamMesh& mesh);

/// Assembles the mesh (validated first).
BeamMatrices assemble(const BeamMesh& mesh);

/// The six rigid-body motions of the mesh about the body origin as columns (translation x y z,
/// rotation x y z): each node's translation t + w x p, rotation w, warping 0.
MatX rigidBodyModes(const BeamMesh& mesh, const DofMap& dofs);
/// The same for any model with nodes at `nodes` and degrees of freedom `dofs`.
MatX rigidBodyModes(const std::vector<Vec3>& nodes, const DofMap& dofs);

}  // namespace ek::fe
