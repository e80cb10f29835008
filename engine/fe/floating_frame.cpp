// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/fe/floating_frame.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ek::fe {
namespace {

/// The rows of node i's translation in a matrix over the model's degrees of freedom.
template <class M>
auto translationRows(M& m, const DofMap& dofs, int i) {
  return m.middleRows(dofs.first[i], 3);
}

/// D_k: the rotation of the deformation of mode k, -[phi_k,i]x in the rows of node i's
/// translation (dofs x 3).
MatX rotationOfMode(const ModalBody& b, int k) {
  MatX D = MatX::Zero(b.dofs.size, 3);
  for (int i = 0; i < static_cast<int>(b.nodes.size()); ++i)
    translationRows(D, b.dofs, i) = -skew(Vec3(b.shapes.block<3, 1>(b.dofs.first[i], k)));
  return D;
}

/// sum_i [phi_k,i]x A_i over the nodes' translation rows of A (dofs x c) = D_k^T A.
MatX rotationOfModeTransposeTimes(const ModalBody& b, int k, const MatX& A) {
  MatX out = MatX::Zero(3, A.cols());
  for (int i = 0; i < static_cast<int>(b.nodes.size()); ++i)
    out.noalias() += skew(Vec3(b.shapes.block<3, 1>(b.dofs.first[i], k))) * A.middleRows(b.dofs.first[i], 3);
  return out;
}

}  // namespace

Mat3X ModalBody::translation(int node) const { return shapes.middleRows(dofs.first[node], 3); }
Mat3X ModalBody::rotation(int node) const {
  if (!dofs.hasRotations(node)) return Mat3X::Zero(3, shapes.cols());  // a solid's node: no rotation of its own
  return shapes.middleRows(dofs.first[node] + 3, 3);
}

PointShape pointShape(const ModalBody& body, int node, const Vec3& offset) {
  if (node < 0 || node >= static_cast<int>(body.nodes.size()))
    throw std::invalid_argument("node " + std::to_string(node) + " is not in the body (it has " +
                                std::to_string(body.nodes.size()) + ")");
  PointShape p;
  p.position = body.nodes[node] + offset;
  p.rotation = body.rotation(node);
  p.translation = body.translation(node) - skew(offset) * p.rotation;
  return p;
}

ModalBody floatingFrameBody(const SparseMatrix& K, const SparseMatrix& M, const std::vector<Vec3>& nodes,
                            const DofMap& dofs, const std::vector<int>& boundary, const ReductionOptions& options) {
  ModalBody b;
  b.dofs = dofs;
  // Mass and centre of mass from the rigid motions about the mesh origin: the first moment
  // Rt^T M Rrot is -m [c]x.
  const MatX rigid0 = rigidBodyModes(nodes, dofs);
  const Mat6 m6 = rigid0.transpose() * (M * rigid0);
  b.mass = m6(0, 0);
  if (!(b.mass > 0)) throw std::invalid_argument("the body has no mass");
  const Mat3 S = m6.block<3, 3>(0, 3);
  b.centre = Vec3(-S(2, 1), -S(0, 2), -S(1, 0)) / b.mass;
  b.nodes.reserve(nodes.size());
  for (const Vec3& x : nodes) b.nodes.push_back(x - b.centre);
  const MatX rigid = rigidBodyModes(b.nodes, dofs);
  const MatX Mrigid = M * rigid;
  b.inertia = (rigid.rightCols<3>().transpose() * Mrigid.rightCols<3>());
  b.inertia = 0.5 * (b.inertia + b.inertia.transpose()).eval();

  const CraigBampton cb = craigBampton(K, M, boundary, options);
  const FreeModes free = freeFloatingModes(cb, rigid);
  b.shapes = free.shapes;
  b.frequencies = free.frequencies;
  b.stiffness = (2.0 * M_PI * free.frequencies).array().square().matrix();

  inertiaInvariants(b, M);
  return b;
}

void inertiaInvariants(ModalBody& b, const SparseMatrix& M) {
  const int n = b.modes();
  const MatX MPhi = M * b.shapes;
  const MatX Mrot = M * rigidBodyModes(b.nodes, b.dofs).rightCols<3>();
  b.G.resize(n);
  b.E.resize(n);
  b.H.resize(static_cast<size_t>(n) * n);
  std::vector<MatX> MD(n);
  for (int l = 0; l < n; ++l) MD[l] = M * rotationOfMode(b, l);
  for (int k = 0; k < n; ++k) {
    b.G[k] = rotationOfModeTransposeTimes(b, k, Mrot).transpose();  // (D_k^T M R_rot)^T
    b.E[k] = rotationOfModeTransposeTimes(b, k, MPhi);
    for (int l = 0; l < n; ++l) b.H[static_cast<size_t>(k) * n + l] = rotationOfModeTransposeTimes(b, k, MD[l]);
  }
}

ModalBody floatingFrameBody(const BeamMesh& mesh, const std::vector<int>& interfaceNodes,
                            const ReductionOptions& options) {
  const BeamMatrices fem = assemble(mesh);
  std::vector<int> boundary;
  for (int node : interfaceNodes) {
    if (node < 0 || node >= static_cast<int>(mesh.nodes.size()))
      throw std::invalid_argument("interface node " + std::to_string(node) + " is not in the mesh (it has " +
                                  std::to_string(mesh.nodes.size()) + " nodes)");
    for (int a = 0; a < 6; ++a) boundary.push_back(fem.dofs.first[node] + a);
    if (fem.dofs.warp[node] >= 0) boundary.push_back(fem.dofs.warp[node]);
  }
  return floatingFrameBody(fem.stiffness, fem.mass, mesh.nodes, fem.dofs, boundary, options);
}

void truncateModes(ModalBody& body, int keep) {
  const int n = body.modes();
  if (keep == n) return;
  body.frequencies.conservativeResize(keep);
  body.stiffness.conservativeResize(keep);
  body.shapes = body.shapes.leftCols(keep).eval();
  body.G.resize(keep);
  std::vector<Mat3> H(static_cast<size_t>(keep) * keep);
  for (int k = 0; k < keep; ++k) {
    for (int l = 0; l < keep; ++l) H[static_cast<size_t>(k) * keep + l] = body.H[static_cast<size_t>(k) * n + l];
    body.E[k] = body.E[k].leftCols(keep).eval();
  }
  body.E.resize(keep);
  body.H = std::move(H);
}

void keepNodes(ModalBody& body, int count) {
  MatX shapes(6 * count, body.modes());
  DofMap dofs;
  for (int i = 0; i < count; ++i) {
    if (!body.dofs.hasRotations(i) || body.dofs.warp[i] >= 0)
      throw std::invalid_argument("node " + std::to_string(i) + " is not a reference node with six degrees of freedom");
    shapes.middleRows(6 * i, 6) = body.shapes.middleRows(body.dofs.first[i], 6);
    dofs.first.push_back(6 * i);
    dofs.warp.push_back(-1);
  }
  dofs.size = 6 * count;
  body.shapes = std::move(shapes);
  body.dofs = std::move(dofs);
  body.nodes.resize(count);
}

bool sameModalData(const ModalBody& a, const ModalBody& b) {
  auto sameMatrix = [](const auto& x, const auto& y) {
    return x.rows() == y.rows() && x.cols() == y.cols() && x == y;
  };
  return a.mass == b.mass && a.centre == b.centre && a.inertia == b.inertia && sameMatrix(a.frequencies, b.frequencies) &&
         sameMatrix(a.stiffness, b.stiffness) && sameMatrix(a.shapes, b.shapes) && a.dofs.first == b.dofs.first &&
         a.dofs.warp == b.dofs.warp && a.dofs.rotations == b.dofs.rotations && a.dofs.size == b.dofs.size &&
         a.nodes == b.nodes && a.G == b.G && a.H == b.H && a.E.size() == b.E.size() &&
         std::equal(a.E.begin(), a.E.end(), b.E.begin(), sameMatrix);
}

void directInertia(const ModalBody& body, const SparseMatrix& M, const VecX& q, Mat3& J, Mat3X& C) {
  MatX R = rigidBodyModes(body.nodes, body.dofs).rightCols<3>();
  for (int k = 0; k < body.modes(); ++k) R += q[k] * rotationOfMode(body, k);
  const MatX MR = M * R;
  J = R.transpose() * MR;
  C = MR.transpose() * body.shapes;
}

}  // namespace ek::fe
