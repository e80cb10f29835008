// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/fe/beam.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ek::fe {
namespace {

// Local degrees of freedom of node a (0, 1) in the 14-vector.
constexpr int U = 0, V = 1, W = 2, TX = 3, TY = 4, TZ = 5, PSI = 6;
constexpr int at(int node, int dof) { return 7 * node + dof; }

// Four-point Gauss-Legendre on [0, 1].
constexpr double kGaussX[4] = {0.0694318442029737, 0.3300094782075719, 0.6699905217924281, 0.9305681557970263};
constexpr double kGaussW[4] = {0.1739274225687269, 0.3260725774312731, 0.3260725774312731, 0.1739274225687269};

double shearParameter(double ei, double kappa, const BeamSection& s, const BeamMaterial& m, double L) {
  return 12.0 * ei / (kappa * m.shearModulus * s.area * L * L);
}

// The fields of one element at xi = x / L as rows over the 14 local degrees of freedom:
// displacements u v w, rotations theta_x theta_y theta_z and the strains (stretch, the two
// curvatures, the two shear strains, the twist rate and, with warping, its derivative).
struct Fields {
  Eigen::Matrix<double, 6, 14> value = Eigen::Matrix<double, 6, 14>::Zero();  // u v w tx ty tz
  Eigen::Matrix<double, 14, 1> stretch = Eigen::Matrix<double, 14, 1>::Zero();
  Eigen::Matrix<double, 14, 1> curvatureY = Eigen::Matrix<double, 14, 1>::Zero();  // d theta_y / dx
  Eigen::Matrix<double, 14, 1> curvatureZ = Eigen::Matrix<double, 14, 1>::Zero();  // d theta_z / dx
  Eigen::Matrix<double, 14, 1> shearY = Eigen::Matrix<double, 14, 1>::Zero();      // v' - theta_z
  Eigen::Matrix<double, 14, 1> shearZ = Eigen::Matrix<double, 14, 1>::Zero();      // w' + theta_y
  Eigen::Matrix<double, 14, 1> twistRate = Eigen::Matrix<double, 14, 1>::Zero();   // theta_x'
  Eigen::Matrix<double, 14, 1> warpRate = Eigen::Matrix<double, 14, 1>::Zero();    // theta_x''
};

// Timoshenko's interdependent interpolation (Friedman and Kosmatka 1993) of one bending plane
// in the deflection d and the section rotation b = d' - gamma, over (d0, b0, d1, b1).
struct Bending {
  Eigen::Vector4d N, dN, G, dG;  // d, d', b, b' (per x)
};
Bending bending(double xi, double phi, double L) {
  const double a = 1.0 / (1.0 + phi);
  const double x2 = xi * xi, x3 = x2 * xi;
  Bending b;
  b.N << a * (2 * x3 - 3 * x2 - phi * xi + 1 + phi), a * L * (x3 - (2 + phi / 2) * x2 + (1 + phi / 2) * xi),
      a * (-2 * x3 + 3 * x2 + phi * xi), a * L * (x3 - (1 - phi / 2) * x2 - (phi / 2) * xi);
  b.dN << a * (6 * x2 - 6 * xi - phi) / L, a * (3 * x2 - (4 + phi) * xi + 1 + phi / 2),
      a * (-6 * x2 + 6 * xi + phi) / L, a * (3 * x2 - (2 - phi) * xi - phi / 2);
  b.G << a * 6 / L * (x2 - xi), a * (3 * x2 - (4 + phi) * xi + 1 + phi), -a * 6 / L * (x2 - xi),
      a * (3 * x2 - (2 - phi) * xi);
  b.dG << a * 6 / (L * L) * (2 * xi - 1), a * (6 * xi - (4 + phi)) / L, -a * 6 / (L * L) * (2 * xi - 1),
      a * (6 * xi - (2 - phi)) / L;
  return b;
}

Fields fieldsAt(double xi, const BeamSection& s, const BeamMaterial& m, double L) {
  Fields f;
  // Stretch, linear.
  f.value(0, at(0, U)) = 1 - xi;
  f.value(0, at(1, U)) = xi;
  f.stretch[at(0, U)] = -1 / L;
  f.stretch[at(1, U)] = 1 / L;
  // x-y plane: deflection v, rotation theta_z = b.
  const Bending by = bending(xi, shearParameter(m.youngsModulus * s.iz, s.shearY, s, m, L), L);
  const int dofY[4] = {at(0, V), at(0, TZ), at(1, V), at(1, TZ)};
  // x-z plane: deflection w, rotation theta_y = -b, so the interpolation runs over
  // (w0, -theta_y0, w1, -theta_y1).
  const Bending bz = bending(xi, shearParameter(m.youngsModulus * s.iy, s.shearZ, s, m, L), L);
  const int dofZ[4] = {at(0, W), at(0, TY), at(1, W), at(1, TY)};
  const double signZ[4] = {1, -1, 1, -1};
  for (int k = 0; k < 4; ++k) {
    f.value(1, dofY[k]) = by.N[k];
    f.value(5, dofY[k]) = by.G[k];
    f.curvatureZ[dofY[k]] = by.dG[k];
    f.shearY[dofY[k]] = by.dN[k] - by.G[k];
    f.value(2, dofZ[k]) = signZ[k] * bz.N[k];
    f.value(4, dofZ[k]) = -signZ[k] * bz.G[k];
    f.curvatureY[dofZ[k]] = -signZ[k] * bz.dG[k];
    f.shearZ[dofZ[k]] = signZ[k] * (bz.dN[k] - bz.G[k]);
  }
  // Twist: cubic Hermite in (theta, psi) with warping, linear without.
  if (s.warping > 0) {
    const double x2 = xi * xi, x3 = x2 * xi;
    const Eigen::Vector4d H(1 - 3 * x2 + 2 * x3, L * (xi - 2 * x2 + x3), 3 * x2 - 2 * x3, L * (x3 - x2));
    const Eigen::Vector4d dH((-6 * xi + 6 * x2) / L, 1 - 4 * xi + 3 * x2, (6 * xi - 6 * x2) / L, 3 * x2 - 2 * xi);
    const Eigen::Vector4d ddH((-6 + 12 * xi) / (L * L), (-4 + 6 * xi) / L, (6 - 12 * xi) / (L * L),
                              (6 * xi - 2) / L);
    const int dofT[4] = {at(0, TX), at(0, PSI), at(1, TX), at(1, PSI)};
    for (int k = 0; k < 4; ++k) {
      f.value(3, dofT[k]) = H[k];
      f.twistRate[dofT[k]] = dH[k];
      f.warpRate[dofT[k]] = ddH[k];
    }
  } else {
    f.value(3, at(0, TX)) = 1 - xi;
    f.value(3, at(1, TX)) = xi;
    f.twistRate[at(0, TX)] = -1 / L;
    f.twistRate[at(1, TX)] = 1 / L;
  }
  return f;
}

void addBending(ElementMatrix& k, const int dof[4], const double sign[4], double ei, double phi, double L) {
  const double c = ei / ((1 + phi) * L * L * L);
  const double kb[4][4] = {{12, 6 * L, -12, 6 * L},
                           {6 * L, (4 + phi) * L * L, -6 * L, (2 - phi) * L * L},
                           {-12, -6 * L, 12, -6 * L},
                           {6 * L, (2 - phi) * L * L, -6 * L, (4 + phi) * L * L}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) k(dof[i], dof[j]) += c * sign[i] * sign[j] * kb[i][j];
}

}  // namespace

ElementMatrix localStiffness(const BeamSection& s, const BeamMaterial& m, double L) {
  ElementMatrix k = ElementMatrix::Zero();
  const double ea = m.youngsModulus * s.area / L;
  k(at(0, U), at(0, U)) = k(at(1, U), at(1, U)) = ea;
  k(at(0, U), at(1, U)) = k(at(1, U), at(0, U)) = -ea;
  const int dofY[4] = {at(0, V), at(0, TZ), at(1, V), at(1, TZ)};
  const double plus[4] = {1, 1, 1, 1};
  addBending(k, dofY, plus, m.youngsModulus * s.iz, shearParameter(m.youngsModulus * s.iz, s.shearY, s, m, L), L);
  const int dofZ[4] = {at(0, W), at(0, TY), at(1, W), at(1, TY)};
  const double flip[4] = {1, -1, 1, -1};
  addBending(k, dofZ, flip, m.youngsModulus * s.iy, shearParameter(m.youngsModulus * s.iy, s.shearZ, s, m, L), L);
  const double gj = m.shearModulus * s.torsion;
  if (s.warping > 0) {
    // G J int theta'^2 + E Iw int theta''^2 over the cubic Hermite twist.
    const int dofT[4] = {at(0, TX), at(0, PSI), at(1, TX), at(1, PSI)};
    const double g[4][4] = {{36, 3 * L, -36, 3 * L},
                            {3 * L, 4 * L * L, -3 * L, -L * L},
                            {-36, -3 * L, 36, -3 * L},
                            {3 * L, -L * L, -3 * L, 4 * L * L}};
    const double b[4][4] = {{12, 6 * L, -12, 6 * L},
                            {6 * L, 4 * L * L, -6 * L, 2 * L * L},
                            {-12, -6 * L, 12, -6 * L},
                            {6 * L, 2 * L * L, -6 * L, 4 * L * L}};
    const double eiw = m.youngsModulus * s.warping / (L * L * L);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) k(dofT[i], dofT[j]) = gj / (30 * L) * g[i][j] + eiw * b[i][j];
  } else {
    k(at(0, TX), at(0, TX)) = k(at(1, TX), at(1, TX)) = gj / L;
    k(at(0, TX), at(1, TX)) = k(at(1, TX), at(0, TX)) = -gj / L;
  }
  return k;
}

ElementMatrix localStiffnessByQuadrature(const BeamSection& s, const BeamMaterial& m, double L) {
  ElementMatrix k = ElementMatrix::Zero();
  const double E = m.youngsModulus, G = m.shearModulus;
  for (int g = 0; g < 4; ++g) {
    const Fields f = fieldsAt(kGaussX[g], s, m, L);
    const double w = kGaussW[g] * L;
    k += w * (E * s.area * f.stretch * f.stretch.transpose() + E * s.iy * f.curvatureY * f.curvatureY.transpose() +
              E * s.iz * f.curvatureZ * f.curvatureZ.transpose() +
              s.shearY * G * s.area * f.shearY * f.shearY.transpose() +
              s.shearZ * G * s.area * f.shearZ * f.shearZ.transpose() +
              G * s.torsion * f.twistRate * f.twistRate.transpose() +
              E * s.warping * f.warpRate * f.warpRate.transpose());
  }
  return k;
}

ElementMatrix localMass(const BeamSection& s, const BeamMaterial& m, double L) {
  ElementMatrix mm = ElementMatrix::Zero();
  const Eigen::Matrix<double, 6, 1> inertia =
      (Eigen::Matrix<double, 6, 1>() << s.area, s.area, s.area, s.iy + s.iz, s.iy, s.iz).finished() * m.density;
  for (int g = 0; g < 4; ++g) {
    const Fields f = fieldsAt(kGaussX[g], s, m, L);
    mm += kGaussW[g] * L * f.value.transpose() * inertia.asDiagonal() * f.value;
  }
  return mm;
}

Mat3 localAxes(const Vec3& p0, const Vec3& p1, const Vec3& up) {
  const Vec3 d = p1 - p0;
  const double L = d.norm();
  if (!(L > 0)) throw std::invalid_argument("the element has no length");
  const Vec3 x = d / L;
  const Vec3 zRaw = x.cross(up);
  if (!(zRaw.norm() > 1e-9 * up.norm())) throw std::invalid_argument("its up vector is along the element");
  const Vec3 z = zRaw.normalized();
  Mat3 axes;
  axes.row(0) = x;
  axes.row(1) = z.cross(x);
  axes.row(2) = z;
  return axes;
}

void validateMesh(const BeamMesh& mesh) {
  std::ostringstream errors;
  int count = 0;
  auto fail = [&](const std::string& where, const std::string& what) {
    errors << (count++ ? "\n" : "") << where << ": " << what;
  };
  const int nNodes = static_cast<int>(mesh.nodes.size());
  for (int i = 0; i < nNodes; ++i)
    if (!mesh.nodes[i].allFinite()) fail("node " + std::to_string(i), "position is not finite");
  if (mesh.elements.empty()) fail("mesh", "has no elements");
  std::vector<int> used(nNodes, 0);
  for (int e = 0; e < static_cast<int>(mesh.elements.size()); ++e) {
    const BeamElement& el = mesh.elements[e];
    const std::string where = "element " + std::to_string(e);
    auto positive = [&](double v, const char* field) {
      if (!(v > 0) || !std::isfinite(v)) fail(where + ", " + field, "must be a positive number");
    };
    const bool nodesOk = el.node0 >= 0 && el.node0 < nNodes && el.node1 >= 0 && el.node1 < nNodes;
    if (!nodesOk) fail(where + ", nodes", "refer to no node (there are " + std::to_string(nNodes) + ")");
    else if (el.node0 == el.node1) fail(where + ", nodes", "are the same node");
    else {
      ++used[el.node0];
      ++used[el.node1];
      try {
        localAxes(mesh.nodes[el.node0], mesh.nodes[el.node1], el.up);
      } catch (const std::invalid_argument& e) {
        fail(where + ", up", e.what());
      }
    }
    positive(el.section.area, "area");
    positive(el.section.iy, "Iy");
    positive(el.section.iz, "Iz");
    positive(el.section.torsion, "torsion constant");
    positive(el.section.shearY, "shear correction y");
    positive(el.section.shearZ, "shear correction z");
    if (!(el.section.warping >= 0) || !std::isfinite(el.section.warping))
      fail(where + ", warping constant", "must be zero or positive");
    positive(el.material.youngsModulus, "Young's modulus");
    positive(el.material.shearModulus, "shear modulus");
    positive(el.material.density, "density");
  }
  for (int i = 0; i < nNodes; ++i)
    if (!used[i]) fail("node " + std::to_string(i), "belongs to no element");
  if (count) throw std::invalid_argument(errors.str());
}

BeamMatrices assemble(const BeamMesh& mesh) {
  validateMesh(mesh);
  BeamMatrices out;
  const int nNodes = static_cast<int>(mesh.nodes.size());
  std::vector<char> warps(nNodes, 0);
  for (const BeamElement& el : mesh.elements)
    if (el.section.warping > 0) warps[el.node0] = warps[el.node1] = 1;
  out.dofs.first.resize(nNodes);
  out.dofs.warp.assign(nNodes, -1);
  int next = 0;
  for (int i = 0; i < nNodes; ++i) {
    out.dofs.first[i] = next;
    next += 6;
    if (warps[i]) out.dofs.warp[i] = next++;
  }
  out.dofs.size = next;

  std::vector<Eigen::Triplet<double>> kT, mT;
  kT.reserve(mesh.elements.size() * 14 * 14);
  mT.reserve(mesh.elements.size() * 14 * 14);
  for (const BeamElement& el : mesh.elements) {
    const Vec3& p0 = mesh.nodes[el.node0];
    const Vec3& p1 = mesh.nodes[el.node1];
    const double L = (p1 - p0).norm();
    const Mat3 axes = localAxes(p0, p1, el.up);
    // local = T body: the axes' rows turn translations and rotations, psi is a scalar.
    ElementMatrix T = ElementMatrix::Zero();
    for (int a = 0; a < 2; ++a) {
      T.block<3, 3>(7 * a, 7 * a) = axes;
      T.block<3, 3>(7 * a + 3, 7 * a + 3) = axes;
      T(7 * a + 6, 7 * a + 6) = 1;
    }
    const ElementMatrix k = T.transpose() * localStiffness(el.section, el.material, L) * T;
    const ElementMatrix m = T.transpose() * localMass(el.section, el.material, L) * T;
    int global[14];
    const int nodes[2] = {el.node0, el.node1};
    for (int a = 0; a < 2; ++a) {
      for (int d = 0; d < 6; ++d) global[7 * a + d] = out.dofs.first[nodes[a]] + d;
      global[7 * a + 6] = el.section.warping > 0 ? out.dofs.warp[nodes[a]] : -1;
    }
    for (int i = 0; i < 14; ++i) {
      if (global[i] < 0) continue;
      for (int j = 0; j < 14; ++j) {
        if (global[j] < 0) continue;
        if (k(i, j) != 0) kT.emplace_back(global[i], global[j], k(i, j));
        if (m(i, j) != 0) mT.emplace_back(global[i], global[j], m(i, j));
      }
    }
  }
  out.stiffness.resize(next, next);
  out.mass.resize(next, next);
  out.stiffness.setFromTriplets(kT.begin(), kT.end());
  out.mass.setFromTriplets(mT.begin(), mT.end());
  return out;
}

MatX rigidBodyModes(const BeamMesh& mesh, const DofMap& dofs) { return rigidBodyModes(mesh.nodes, dofs); }

MatX rigidBodyModes(const std::vector<Vec3>& nodes, const DofMap& dofs) {
  MatX R = MatX::Zero(dofs.size, 6);
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const int f = dofs.first[i];
    for (int a = 0; a < 3; ++a) {
      R(f + a, a) = 1;
      const Vec3 t = Vec3::Unit(a).cross(nodes[i]);
      R.block<3, 1>(f, 3 + a) = t;
      if (dofs.hasRotations(i)) R(f + 3 + a, 3 + a) = 1;
    }
  }
  return R;
}

}  // namespace ek::fe
