// SPDX-License-Identifier: GPL-3.0-or-later
// Craig-Bampton reduction (engine/fe/craig_bampton.h): exact statics at the interface, the
// eigenfrequencies of a uniform beam against Euler-Bernoulli theory (clamped-free from the full
// model, free-free from the reduced body), their convergence with the modes kept, and the
// free-floating modes' orthogonality to rigid motion.
#include <QtTest>

#include <Eigen/SparseCholesky>
#include <cmath>

#include "engine/fe/craig_bampton.h"
#include "support/beams.h"

using namespace ek;
using namespace ek::fe;

namespace {

using test::steel;

// A slender round bar (L / d = 1000), where shear and rotary inertia change the first five
// bending frequencies by less than 1e-5: Euler-Bernoulli's beam.
BeamSection roundBar(double d) {
  BeamSection s;
  s.area = M_PI * d * d / 4;
  s.iy = s.iz = M_PI * std::pow(d, 4) / 64;
  s.torsion = 2 * s.iy;
  s.shearY = s.shearZ = 0.9;
  return s;
}

BeamMesh bar(int n, double L, double d) {
  BeamMesh mesh;
  for (int i = 0; i <= n; ++i) mesh.nodes.push_back(Vec3(L * i / n, 0, 0));
  for (int i = 0; i < n; ++i) mesh.elements.push_back({i, i + 1, Vec3::UnitZ(), roundBar(d), steel()});
  return mesh;
}

// Euler-Bernoulli: f = (beta L)^2 / (2 pi L^2) sqrt(E I / (rho A)).
double bendingFrequency(double betaL, double L, const BeamSection& s) {
  return betaL * betaL / (2 * M_PI * L * L) * std::sqrt(steel().youngsModulus * s.iy / (steel().density * s.area));
}
constexpr double kClampedFree[5] = {1.875104069, 4.694091133, 7.854757438, 10.99554073, 14.13716839};
constexpr double kFreeFree[5] = {4.730040745, 7.853204624, 10.99560784, 14.13716549, 17.27875966};

std::vector<int> nodeDofs(const DofMap& dofs, int node) {
  std::vector<int> out;
  for (int d = 0; d < 6; ++d) out.push_back(dofs.first[node] + d);
  return out;
}

// The matrix with the given degrees of freedom removed.
SparseMatrix without(const SparseMatrix& A, const std::vector<int>& removed) {
  std::vector<int> map(A.rows(), 0);
  for (int d : removed) map[d] = -1;
  int next = 0;
  for (auto& m : map) m = m < 0 ? -1 : next++;
  std::vector<Eigen::Triplet<double>> t;
  for (int c = 0; c < A.outerSize(); ++c)
    for (SparseMatrix::InnerIterator it(A, c); it; ++it)
      if (map[it.row()] >= 0 && map[it.col()] >= 0) t.emplace_back(map[it.row()], map[it.col()], it.value());
  SparseMatrix out(next, next);
  out.setFromTriplets(t.begin(), t.end());
  return out;
}

}  // namespace

class TestCraigBampton : public QObject {
  Q_OBJECT
 private slots:
  // Constraint modes are exact statics: loads at interface nodes give the full model's
  // displacements there, with no normal mode kept.
  void interfaceStaticsAreExact() {
    BeamMesh mesh = bar(12, 0.8, 0.02);
    mesh.nodes[6] += Vec3(0.0, 0.05, 0.02);  // a kinked bar: every coupling present
    const BeamMatrices bm = assemble(mesh);
    std::vector<int> boundary = nodeDofs(bm.dofs, 0);
    for (int d : nodeDofs(bm.dofs, 12)) boundary.push_back(d);
    for (int d : nodeDofs(bm.dofs, 6)) boundary.push_back(d);
    const CraigBampton cb = craigBampton(bm.stiffness, bm.mass, boundary, {0, 0.0});
    QCOMPARE(cb.basis.cols(), 18);
    // Clamp node 0 in both; load node 12 and node 6.
    VecX f = VecX::Zero(bm.dofs.size);
    f.segment<6>(bm.dofs.first[12]) << 100, -300, 200, 5, -7, 3;
    f.segment<6>(bm.dofs.first[6]) << -50, 20, 80, 1, 2, -4;
    const std::vector<int> root = nodeDofs(bm.dofs, 0);
    Eigen::SimplicialLDLT<SparseMatrix> full(without(bm.stiffness, root));
    VecX fr(bm.dofs.size - 6);
    fr = f.tail(bm.dofs.size - 6);
    VecX xFull = VecX::Zero(bm.dofs.size);
    xFull.tail(bm.dofs.size - 6) = full.solve(fr);
    const MatX Kr = cb.stiffness.bottomRightCorner(12, 12);
    const VecX fRed = (cb.basis.transpose() * f).tail(12);
    const VecX xRed = Kr.ldlt().solve(fRed);
    for (int i = 0; i < 12; ++i) {
      const double a = xRed[i], b = xFull[cb.boundary[6 + i]];
      QVERIFY2(std::abs(a - b) < 1e-10 * xFull.cwiseAbs().maxCoeff(), qPrintable(QString("%1: %2 vs %3").arg(i).arg(a).arg(b)));
    }
  }

  // The clamped bar's first five bending frequencies (each twice: a round section) from the
  // full model by the sparse shift-invert solver, against Euler-Bernoulli to 1e-4; the dense
  // shift-invert gives the same modes to round-off of the factor.
  void clampedFrequenciesAreEulerBernoullis() {
    const double L = 2.0, d = 0.002;
    const BeamMesh mesh = bar(60, L, d);
    const BeamMatrices bm = assemble(mesh);
    const std::vector<int> root = nodeDofs(bm.dofs, 0);
    const SparseMatrix K = without(bm.stiffness, root), M = without(bm.mass, root);
    const EigenModes modes = lowestModes(K, M, 10);
    for (int k = 0; k < 5; ++k) {
      const double theory = bendingFrequency(kClampedFree[k], L, roundBar(d));
      for (int j : {2 * k, 2 * k + 1}) {
        const double err = std::abs(modes.frequencies[j] / theory - 1);
        QVERIFY2(err < 1e-4, qPrintable(QString("mode %1: %2 Hz vs %3 Hz").arg(j).arg(modes.frequencies[j]).arg(theory)));
      }
    }
    const EigenModes dense = lowestModes(K, M, static_cast<int>(K.rows()));
    const double differ = ((dense.frequencies.head(10) - modes.frequencies).array() / modes.frequencies.array()).abs().maxCoeff();
    QVERIFY2(differ < 1e-9, qPrintable(QString::number(differ)));
    const MatX orth = modes.shapes.transpose() * M * modes.shapes;
    QVERIFY((orth - MatX::Identity(10, 10)).cwiseAbs().maxCoeff() < 1e-9);
  }

  // The free-free bar reduced onto one end node: its elastic frequencies come down to the full
  // model's as fixed-interface modes are added (Rayleigh-Ritz: from above) and reach
  // Euler-Bernoulli's to 1e-4 with 40; printed as the convergence table of
  // docs/flexible-bodies.md.
  void freeFreeFrequenciesConvergeWithModesKept() {
    const double L = 2.0, d = 0.002;
    const BeamMesh mesh = bar(60, L, d);
    const BeamMatrices bm = assemble(mesh);
    const MatX R = rigidBodyModes(mesh, bm.dofs);
    const EigenModes full = lowestModes(bm.stiffness, bm.mass, 16, -1.0);  // six rigid, then elastic
    VecX previous = VecX::Constant(10, 1e300);
    double worst = 0;
    for (int kept : {10, 20, 30, 40}) {
      const CraigBampton cb = craigBampton(bm.stiffness, bm.mass, nodeDofs(bm.dofs, 0), {kept, 0.0});
      const FreeModes free = freeFloatingModes(cb, R);
      QString row = QString("modes kept %1:").arg(kept, 3);
      worst = 0;
      for (int k = 0; k < 5; ++k) {
        const double theory = bendingFrequency(kFreeFree[k], L, roundBar(d));
        for (int j : {2 * k, 2 * k + 1}) {
          const double err = free.frequencies[j] / theory - 1;
          QVERIFY2(free.frequencies[j] >= full.frequencies[6 + j] * (1 - 1e-9),
                   qPrintable(QString("mode %1 below the full model's: %2 vs %3 Hz").arg(j).arg(free.frequencies[j]).arg(full.frequencies[6 + j])));
          QVERIFY(free.frequencies[j] <= previous[j] * (1 + 1e-12));
          worst = std::max(worst, std::abs(err));
        }
        row += QString("  f%1 %2 Hz (%3)").arg(k + 1).arg(free.frequencies[2 * k], 0, 'f', 4)
                   .arg(free.frequencies[2 * k] / theory - 1, 0, 'e', 1);
      }
      qInfo("%s", qPrintable(row));
      previous = free.frequencies.head(10);
    }
    QVERIFY2(worst < 1e-4, qPrintable(QString::number(worst)));
  }

  // The elastic modes are mass-normalized, diagonalize the stiffness and carry no rigid motion
  // (Phi^T M R = 0: the reference frame is the body's mean axes to first order).
  void freeModesAreOrthogonalToRigidMotion() {
    BeamMesh mesh = bar(20, 0.6, 0.02);
    mesh.nodes[10] += Vec3(0.0, 0.08, 0.03);
    mesh.elements[4].section.warping = 1e-12;
    const BeamMatrices bm = assemble(mesh);
    const MatX R = rigidBodyModes(mesh, bm.dofs);
    std::vector<int> boundary = nodeDofs(bm.dofs, 0);
    for (int d : nodeDofs(bm.dofs, 20)) boundary.push_back(d);
    const CraigBampton cb = craigBampton(bm.stiffness, bm.mass, boundary, {8, 0.0});
    const FreeModes free = freeFloatingModes(cb, R);
    QCOMPARE(free.shapes.cols(), 12 + 8 - 6);
    const MatX m = free.shapes.transpose() * bm.mass * free.shapes;
    const MatX k = free.shapes.transpose() * bm.stiffness * free.shapes;
    QVERIFY((m - MatX::Identity(m.rows(), m.cols())).cwiseAbs().maxCoeff() < 1e-10);
    const VecX w2 = (2 * M_PI * free.frequencies).array().square();
    QVERIFY(((k - MatX(w2.asDiagonal())).cwiseAbs().array().colwise() / w2.array()).maxCoeff() < 1e-9);
    const MatX coupling = R.transpose() * bm.mass * free.shapes;
    const double massScale = std::sqrt((R.transpose() * bm.mass * R).diagonal().maxCoeff());
    QVERIFY2(coupling.cwiseAbs().maxCoeff() < 1e-10 * massScale, qPrintable(QString::number(coupling.cwiseAbs().maxCoeff())));
    QVERIFY(free.frequencies[0] > 1.0);
  }

  // A frequency cut keeps exactly the fixed-interface modes below it.
  void frequencyCutKeepsEveryModeBelowIt() {
    const BeamMesh mesh = bar(60, 2.0, 0.002);
    const BeamMatrices bm = assemble(mesh);
    const CraigBampton all = craigBampton(bm.stiffness, bm.mass, nodeDofs(bm.dofs, 0), {30, 0.0});
    const double cut = 0.5 * (all.normalFrequencies[16] + all.normalFrequencies[17]);
    const CraigBampton cb = craigBampton(bm.stiffness, bm.mass, nodeDofs(bm.dofs, 0), {-1, cut});
    QCOMPARE(cb.normalFrequencies.size(), 17);
    QVERIFY(((cb.normalFrequencies - all.normalFrequencies.head(17)).array() / cb.normalFrequencies.array()).abs().maxCoeff() < 1e-9);
  }

  void badReductionsAreErrors() {
    const BeamMesh mesh = bar(6, 1.0, 0.02);
    const BeamMatrices bm = assemble(mesh);
    auto message = [&](std::vector<int> boundary, ReductionOptions o) -> QString {
      try {
        craigBampton(bm.stiffness, bm.mass, boundary, o);
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
      return "no error";
    };
    QVERIFY(message({0, 1, 2}, {2, 0}).contains("does not hold the body"));
    QVERIFY(message({0, 1, 2, 3, 4, 5, 5}, {2, 0}).contains("given twice"));
    QVERIFY(message({0, 1, 2, 3, 4, 5, 99}, {2, 0}).contains("not in the model"));
    QVERIFY(message({0, 1, 2, 3, 4, 5}, {1000, 0}).contains("the interior has 36 degrees of freedom"));
    QVERIFY(message({0, 1, 2, 3, 4, 5}, {-1, 0}).contains("frequency cut"));
  }
};

QTEST_APPLESS_MAIN(TestCraigBampton)
#include "tst_craig_bampton.moc"
