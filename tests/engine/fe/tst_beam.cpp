// SPDX-License-Identifier: GPL-3.0-or-later
// Beam elements (engine/fe/beam.h) against beam theory: Timoshenko bending, Saint-Venant and
// Vlasov torsion, and the rigid-body mass of the consistent mass matrix.
#include <QtTest>

#include <Eigen/SparseCholesky>
#include <cmath>

#include "engine/fe/beam.h"
#include "support/beams.h"

using namespace ek;
using namespace ek::fe;

namespace {

using test::steel;

// A solid rectangle b x h (local y along b), shear factor 5/6, torsion constant of a thick
// rectangle (Roark), no warping.
BeamSection rectangle(double b, double h) {
  BeamSection s;
  s.area = b * h;
  s.iy = b * h * h * h / 12;
  s.iz = h * b * b * b / 12;
  const double a = std::max(b, h) / 2, c = std::min(b, h) / 2;
  s.torsion = a * c * c * c * (16.0 / 3 - 3.36 * c / a * (1 - std::pow(c / a, 4) / 12));
  return s;
}

// n elements from p0 to p1, all with one section.
BeamMesh line(const Vec3& p0, const Vec3& p1, int n, const BeamSection& s, const Vec3& up) {
  BeamMesh mesh;
  for (int i = 0; i <= n; ++i) mesh.nodes.push_back(p0 + (p1 - p0) * (double(i) / n));
  for (int i = 0; i < n; ++i) mesh.elements.push_back({i, i + 1, up, s, steel()});
  return mesh;
}

// Static displacement of the mesh with node 0 clamped (all its degrees of freedom, warping
// included) under the load f.
VecX clampedSolve(const BeamMatrices& bm, const VecX& f) {
  const int n = bm.dofs.size;
  std::vector<int> keep;
  std::vector<char> clamped(n, 0);
  for (int d = 0; d < 6; ++d) clamped[bm.dofs.first[0] + d] = 1;
  if (bm.dofs.warp[0] >= 0) clamped[bm.dofs.warp[0]] = 1;
  std::vector<int> map(n, -1);
  for (int d = 0; d < n; ++d)
    if (!clamped[d]) {
      map[d] = static_cast<int>(keep.size());
      keep.push_back(d);
    }
  std::vector<Eigen::Triplet<double>> t;
  for (int c = 0; c < bm.stiffness.outerSize(); ++c)
    for (SparseMatrix::InnerIterator it(bm.stiffness, c); it; ++it)
      if (map[it.row()] >= 0 && map[it.col()] >= 0) t.emplace_back(map[it.row()], map[it.col()], it.value());
  SparseMatrix K(keep.size(), keep.size());
  K.setFromTriplets(t.begin(), t.end());
  VecX fr(keep.size());
  for (size_t i = 0; i < keep.size(); ++i) fr[i] = f[keep[i]];
  Eigen::SimplicialLDLT<SparseMatrix> ldlt(K);
  const VecX xr = ldlt.solve(fr);
  VecX x = VecX::Zero(n);
  for (size_t i = 0; i < keep.size(); ++i) x[keep[i]] = xr[i];
  return x;
}

double relative(double a, double b) { return std::abs(a - b) / std::abs(b); }

}  // namespace

class TestBeam : public QObject {
  Q_OBJECT
 private slots:
  // The closed-form stiffness is the strain energy of the interpolation the mass uses.
  void closedFormStiffnessEqualsQuadrature() {
    for (double L : {0.01, 0.3, 2.0}) {
      for (double warping : {0.0, 3e-9}) {
        BeamSection s = rectangle(0.04, 0.01);
        s.warping = warping;
        s.shearY = 0.5;
        const ElementMatrix a = localStiffness(s, steel(), L);
        const ElementMatrix q = localStiffnessByQuadrature(s, steel(), L);
        const double err = (a - q).cwiseAbs().maxCoeff() / a.cwiseAbs().maxCoeff();
        QVERIFY2(err < 1e-13, qPrintable(QString("L %1 Iw %2: %3").arg(L).arg(warping).arg(err)));
        QVERIFY((a - a.transpose()).norm() == 0);
      }
    }
  }

  // A rigid motion strains nothing, and the mass of a rigid motion is the body's mass and
  // inertia: m, and about the centre m L^2 / 12 + rho I L (the sections' own inertia).
  void rigidMotionHasNoStrainAndTheBodysInertia() {
    const Vec3 p0(0.1, -0.2, 0.3), p1(0.7, 0.2, -0.1);
    BeamSection s = rectangle(0.03, 0.02);
    s.warping = 1e-10;
    const BeamMesh mesh = line(p0, p1, 7, s, Vec3(0.2, 0.1, 1.0));
    const BeamMatrices bm = assemble(mesh);
    const MatX R = rigidBodyModes(mesh, bm.dofs);
    const MatX KR = bm.stiffness * R;
    QVERIFY2(KR.cwiseAbs().maxCoeff() < 1e-6 * MatX(bm.stiffness).cwiseAbs().maxCoeff(),
             qPrintable(QString::number(KR.cwiseAbs().maxCoeff())));
    const MatX inertia = R.transpose() * bm.mass * R;
    const double L = (p1 - p0).norm(), rho = steel().density, m = rho * s.area * L;
    QVERIFY(relative(inertia(0, 0), m) < 1e-13);
    QVERIFY(relative(inertia(2, 2), m) < 1e-13);
    // Inertia about the centre c, in the element's axes: shift by Steiner.
    const Vec3 c = 0.5 * (p0 + p1);
    const Mat3 Jo = inertia.block<3, 3>(3, 3);
    const Mat3 Jc = Jo - m * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
    const Mat3 axes = localAxes(p0, p1, Vec3(0.2, 0.1, 1.0));
    const Mat3 Jl = axes * Jc * axes.transpose();
    QVERIFY(relative(Jl(0, 0), rho * (s.iy + s.iz) * L) < 1e-12);
    QVERIFY(relative(Jl(1, 1), m * L * L / 12 + rho * s.iy * L) < 1e-12);
    QVERIFY(relative(Jl(2, 2), m * L * L / 12 + rho * s.iz * L) < 1e-12);
    QVERIFY(std::abs(Jl(0, 1)) < 1e-12 * Jl(1, 1));
  }

  // Cantilever with a tip force: Timoshenko's deflection F L^3 / (3 E I) + F L / (k G A) and
  // rotation F L^2 / (2 E I), in both bending planes of an oblique beam; the element is exact.
  void cantileverTipForceIsTimoshenkos() {
    const Vec3 p0(0.2, 0.1, -0.3), p1(0.9, 0.5, 0.1), up(0.3, -0.2, 1.0);
    const BeamSection s = rectangle(0.02, 0.05);  // stocky: shear deflection counts
    const double L = (p1 - p0).norm(), E = steel().youngsModulus, G = steel().shearModulus, F = 1000.0;
    const Mat3 axes = localAxes(p0, p1, up);
    for (int n : {1, 4, 10}) {
      const BeamMesh mesh = line(p0, p1, n, s, up);
      const BeamMatrices bm = assemble(mesh);
      const int tip = bm.dofs.first[n];
      for (int plane : {1, 2}) {
        VecX f = VecX::Zero(bm.dofs.size);
        f.segment<3>(tip) = F * axes.row(plane).transpose();
        const VecX x = clampedSolve(bm, f);
        const Vec3 dl = axes * x.segment<3>(tip);
        const Vec3 rl = axes * x.segment<3>(tip + 3);
        const double I = plane == 1 ? s.iz : s.iy, kappa = plane == 1 ? s.shearY : s.shearZ;
        const double deflection = F * L * L * L / (3 * E * I) + F * L / (kappa * G * s.area);
        const double rotation = F * L * L / (2 * E * I);
        QVERIFY2(relative(dl[plane], deflection) < 1e-9, qPrintable(QString("n %1 plane %2: %3 vs %4")
                                                                         .arg(n).arg(plane).arg(dl[plane]).arg(deflection)));
        // Force along y turns the section about z (+), along z about y (-).
        QVERIFY(relative(plane == 1 ? rl[2] : -rl[1], rotation) < 1e-9);
      }
    }
  }

  // Saint-Venant torsion: T L / (G J); stretching: F L / (E A).
  void cantileverTorqueAndStretch() {
    const Vec3 p0(0, 0, 0), p1(0.3, 0.4, 1.2), up(1, 0, 0);
    const BeamSection s = rectangle(0.02, 0.03);
    const BeamMesh mesh = line(p0, p1, 5, s, up);
    const BeamMatrices bm = assemble(mesh);
    const Mat3 axes = localAxes(p0, p1, up);
    const double L = (p1 - p0).norm();
    VecX f = VecX::Zero(bm.dofs.size);
    f.segment<3>(bm.dofs.first[5] + 3) = 50.0 * axes.row(0).transpose();
    f.segment<3>(bm.dofs.first[5]) = 2e4 * axes.row(0).transpose();
    const VecX x = clampedSolve(bm, f);
    QVERIFY(relative(axes.row(0).dot(x.segment<3>(bm.dofs.first[5] + 3)), 50.0 * L / (steel().shearModulus * s.torsion)) < 1e-12);
    QVERIFY(relative(axes.row(0).dot(x.segment<3>(bm.dofs.first[5])), 2e4 * L / (steel().youngsModulus * s.area)) < 1e-12);
  }

  // Vlasov torsion of a cantilever whose root cannot warp, tip torque T:
  // theta(L) = T / (G J) (L - tanh(k L) / k), k^2 = G J / (E Iw). The cubic element converges
  // to it at h^4; printed as a table (docs/flexible-bodies.md).
  void restrainedWarpingIsVlasovs() {
    BeamSection s;  // a thin-walled channel-like section, 1 m long
    s.area = 6e-4;
    s.iy = 1.2e-6;
    s.iz = 4e-7;
    s.torsion = 5e-9;
    s.warping = 4e-10;
    const double L = 1.0, T = 10.0, G = steel().shearModulus, E = steel().youngsModulus;
    const double k = std::sqrt(G * s.torsion / (E * s.warping));
    const double exact = T / (G * s.torsion) * (L - std::tanh(k * L) / k);
    const double saintVenant = T * L / (G * s.torsion);
    qInfo("k L = %.3f; Vlasov twist %.6e rad, Saint-Venant %.6e rad (%.2fx)", k * L, exact, saintVenant,
          saintVenant / exact);
    double previous = 1;
    for (int n : {4, 8, 16, 32, 64}) {
      const BeamMesh mesh = line(Vec3::Zero(), Vec3(L, 0, 0), n, s, Vec3::UnitZ());
      const BeamMatrices bm = assemble(mesh);
      QVERIFY(bm.dofs.warp[n] >= 0);
      VecX f = VecX::Zero(bm.dofs.size);
      f[bm.dofs.first[n] + 3] = T;
      const double twist = clampedSolve(bm, f)[bm.dofs.first[n] + 3];
      const double err = relative(twist, exact);
      qInfo("elements %3d: twist %.9e rad, relative error %.2e", n, twist, err);
      QVERIFY(err < previous);
      previous = err;
    }
    QVERIFY2(previous < 1e-6, qPrintable(QString::number(previous)));
  }

  // Every error of a mesh in one message, each naming the element or node and the field.
  void badMeshNamesEveryError() {
    BeamMesh mesh = line(Vec3::Zero(), Vec3(1, 0, 0), 2, rectangle(0.01, 0.01), Vec3::UnitZ());
    mesh.nodes.push_back(Vec3(5, 5, 5));                     // belongs to no element
    mesh.elements[0].section.area = -1;                     // negative
    mesh.elements[1].up = Vec3(2, 0, 0);                     // along the element
    mesh.elements.push_back({1, 7, Vec3::UnitZ(), rectangle(0.01, 0.01), steel()});  // no node 7
    mesh.elements[2].material.density = std::nan("");
    try {
      assemble(mesh);
      QFAIL("a bad mesh was assembled");
    } catch (const std::invalid_argument& e) {
      const QString m = e.what();
      QVERIFY2(m.contains("element 0, area: must be a positive number"), qPrintable(m));
      QVERIFY2(m.contains("element 1, up: its up vector is along the element"), qPrintable(m));
      QVERIFY2(m.contains("element 2, nodes: refer to no node"), qPrintable(m));
      QVERIFY2(m.contains("element 2, density"), qPrintable(m));
      QVERIFY2(m.contains("node 3: belongs to no element"), qPrintable(m));
    }
  }
};

QTEST_APPLESS_MAIN(TestBeam)
#include "tst_beam.moc"
