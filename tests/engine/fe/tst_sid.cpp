// SPDX-License-Identifier: GPL-3.0-or-later
// SID files (engine/fe/sid.h). A file written by hand from the format's description
// (tests/data/sid/two_node_body.SID_FEM: modes neither mass-normalized nor ascending, structure
// codes 0 to 4, D exponents in both cases, blocks left out, a node without psi, Oe in another
// tool's sign and order) gives the floating-frame data worked out here by hand; a body written
// and read back is the same to 1e-12; broken files are refused with their line.
#include <QtTest>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <random>

#include "engine/core/error.h"
#include "engine/core/text_file.h"
#include "engine/fe/floating_frame.h"
#include "engine/fe/sid.h"
#include "support/beams.h"
#include "support/test_models.h"

using namespace ek;
using namespace ek::fe;

namespace {

const std::string kFixture = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/sid/two_node_body.SID_FEM";
const std::string kAttached = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/sid/attached_frame_body.SID_FEM";

std::string errorOf(const std::string& text) {
  try {
    parseSid(text, "bad.SID_FEM");
  } catch (const ModelError& e) {
    return e.what();
  }
  return {};
}

double maxDiff(const MatX& a, const MatX& b) { return a.rows() == b.rows() && a.cols() == b.cols() ? (a - b).cwiseAbs().maxCoeff() : INFINITY; }

/// The invariants the equations use: J1_k = G_k + G_k^T, the H_kl + H_kl^T and E_k.
double invariantsDiff(const ModalBody& a, const ModalBody& b) {
  double d = 0.0;
  const int n = a.modes();
  for (int k = 0; k < n; ++k) {
    d = std::max(d, maxDiff(a.G[k] + a.G[k].transpose(), b.G[k] + b.G[k].transpose()));
    d = std::max(d, maxDiff(a.E[k], b.E[k]));
    for (int l = 0; l < n; ++l) d = std::max(d, maxDiff(a.h(k, l) + a.h(k, l).transpose(), b.h(k, l) + b.h(k, l).transpose()));
  }
  return d;
}


/// Turns mode k over (shape, G_k, E_k and the H_kl with it) where its shape points against the
/// reference's, so that two bodies with the same modes compare entry by entry.
void alignSigns(ModalBody& b, const ModalBody& ref) {
  const int n = b.modes();
  VecX sign(n);
  for (int k = 0; k < n; ++k) sign[k] = b.shapes.col(k).dot(ref.shapes.col(k)) < 0.0 ? -1.0 : 1.0;
  for (int k = 0; k < n; ++k) {
    b.shapes.col(k) *= sign[k];
    b.G[k] *= sign[k];
    b.E[k] = sign[k] * b.E[k] * sign.asDiagonal();
    for (int l = 0; l < n; ++l) b.H[static_cast<std::size_t>(k) * n + l] *= sign[k] * sign[l];
  }
}

/// Largest invariant of a body, the scale of invariantsDiff().
double invariantsScale(const ModalBody& b) {
  double s = 0.0;
  for (int k = 0; k < b.modes(); ++k) {
    s = std::max({s, (b.G[k] + b.G[k].transpose()).cwiseAbs().maxCoeff(), b.E[k].cwiseAbs().maxCoeff()});
    for (int l = 0; l < b.modes(); ++l) s = std::max(s, (b.h(k, l) + b.h(k, l).transpose()).cwiseAbs().maxCoeff());
  }
  return s;
}

SidTaylor block(int order, int nq, MatX m0, std::vector<MatX> m1 = {}) {
  SidTaylor t;
  t.order = order;
  t.nrow = static_cast<int>(m0.rows());
  t.ncol = static_cast<int>(m0.cols());
  t.nq = nq;
  t.structure = 3;
  t.m0 = std::move(m0);
  t.m1 = std::move(m1);
  return t;
}

/// What an FE program exports for a body in an attached frame: the model (K, M over `nodes`
/// about the file's origin) and mode shapes `phi` that hold the frame (not free-floating). Every
/// block is formed from the full model here (Ct = phi^T M R_t, Cr = (R_rot^T M phi)^T about the
/// origin, Me, Ke, J and its first-order terms, Cr's and Oe's first-order terms), the layout
/// written by writeSid().
SidFile attachedFrameFile(const SparseMatrix& K, const SparseMatrix& M, const std::vector<Vec3>& nodes, const DofMap& dofs,
                          const MatX& phi) {
  const int n = static_cast<int>(phi.cols());
  ModalBody a;  // the attached modes, about the file's origin
  a.nodes = nodes;
  a.dofs = dofs;
  a.shapes = phi;
  a.stiffness = VecX::Ones(n);
  inertiaInvariants(a, M);
  const MatX R = rigidBodyModes(nodes, dofs);
  const Mat6 m6 = R.transpose() * (M * R);
  const MatX Me = phi.transpose() * (M * phi), Ke = phi.transpose() * (K * phi);
  a.mass = m6(0, 0);
  a.centre = Vec3(-m6(2, 4), -m6(0, 5), -m6(1, 3)) / a.mass;
  for (Vec3& x : a.nodes) x -= a.centre;
  const Vec3 c = a.centre;
  a.inertia = m6.bottomRightCorner<3, 3>() - a.mass * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
  a.frequencies = (Ke.diagonal().array() / Me.diagonal().array()).sqrt() / (2.0 * M_PI);
  SidFile s = sidFromModalBody(a, VecX::Zero(n));
  s.blocks["Ct"] = block(0, 0, MatX(phi.transpose() * (M * R.leftCols<3>())));
  std::vector<MatX> cr1;
  for (int k = 0; k < n; ++k) cr1.push_back(a.E[k].transpose());
  s.blocks["Cr"] = block(1, n, MatX((R.rightCols<3>().transpose() * (M * phi)).transpose()), cr1);
  s.blocks["Me"] = block(0, 0, Me);
  s.blocks["Ke"] = block(0, 0, Ke);
  s.blocks.erase("De");
  return s;
}

/// The free-floating body of the same motions: Rayleigh-Ritz over the rigid motions and `phi` on
/// the full model, its elastic modes mass-normalized, their invariants from M.
ModalBody freeBodyOfTheSameMotions(const SparseMatrix& K, const SparseMatrix& M, const std::vector<Vec3>& nodes,
                                   const DofMap& dofs, const MatX& phi) {
  const int n = static_cast<int>(phi.cols());
  MatX B(dofs.size, 6 + n);
  B << rigidBodyModes(nodes, dofs), phi;
  const MatX Kr = B.transpose() * (K * B), Mr = B.transpose() * (M * B);
  const Eigen::GeneralizedSelfAdjointEigenSolver<MatX> ges(0.5 * (Kr + Kr.transpose()), 0.5 * (Mr + Mr.transpose()));
  ModalBody b;
  b.dofs = dofs;
  const MatX R = rigidBodyModes(nodes, dofs);
  const Mat6 m6 = R.transpose() * (M * R);
  b.mass = m6(0, 0);
  b.centre = Vec3(-m6(2, 4), -m6(0, 5), -m6(1, 3)) / b.mass;
  for (const Vec3& x : nodes) b.nodes.push_back(x - b.centre);
  const MatX Rc = rigidBodyModes(b.nodes, dofs);
  b.inertia = Rc.rightCols<3>().transpose() * (M * Rc.rightCols<3>());
  b.shapes = B * ges.eigenvectors().rightCols(n);
  b.stiffness = ges.eigenvalues().tail(n);
  b.frequencies = b.stiffness.array().sqrt() / (2.0 * M_PI);
  inertiaInvariants(b, M);
  return b;
}

struct AttachedCheck {
  double frequency = 0.0, shape = 0.0, invariants = 0.0, j1 = 0.0, mass = 0.0, inertia = 0.0;
  std::vector<std::string> notes;
};

/// The attached modes' file read, against the free body of the same motions.
AttachedCheck compareAttached(const SparseMatrix& K, const SparseMatrix& M, const std::vector<Vec3>& nodes, const DofMap& dofs,
                              const MatX& phi) {
  const ModalBody ref = freeBodyOfTheSameMotions(K, M, nodes, dofs, phi);
  const SidFile file = attachedFrameFile(K, M, nodes, dofs, phi);
  SidBody r = modalBodyFromSid(parseSid(writeSid(file), "attached.SID_FEM"), FeUnits());
  // The file holds every node with six rows; the reference has the model's own rows.
  MatX shapes = MatX::Zero(dofs.size, phi.cols());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const int f = dofs.first[i];
    shapes.middleRows(f, 3) = r.body.shapes.middleRows(6 * static_cast<int>(i), 3);
    if (dofs.hasRotations(static_cast<int>(i))) shapes.middleRows(f + 3, 3) = r.body.shapes.middleRows(6 * static_cast<int>(i) + 3, 3);
  }
  for (int w = 0; w < dofs.size; ++w)
    if (std::find(dofs.warp.begin(), dofs.warp.end(), w) != dofs.warp.end()) shapes.row(w).setZero();
  r.body.shapes = shapes;
  alignSigns(r.body, ref);
  MatX refShapes = ref.shapes;
  for (int w : dofs.warp)
    if (w >= 0) refShapes.row(w).setZero();  // a SID node has no warping row
  AttachedCheck out;
  out.frequency = ((r.body.frequencies - ref.frequencies).array() / ref.frequencies.array()).abs().maxCoeff();
  out.shape = maxDiff(r.body.shapes, refShapes) / refShapes.cwiseAbs().maxCoeff();
  out.invariants = invariantsDiff(r.body, ref) / invariantsScale(ref);
  for (int k = 0; k < r.body.modes(); ++k)
    out.j1 = std::max(out.j1, maxDiff(r.body.G[k] + r.body.G[k].transpose(), ref.G[k] + ref.G[k].transpose()) / invariantsScale(ref));
  out.notes = r.notes;
  out.mass = std::abs(r.body.mass / ref.mass - 1.0) + (r.body.centre - ref.centre).norm();
  out.inertia = maxDiff(r.body.inertia, ref.inertia) / ref.inertia.norm();
  return out;
}

}  // namespace

class TestSid : public QObject {
  Q_OBJECT
 private slots:
  void handWrittenFile() {
    const SidFile sid = readSid(kFixture);
    QCOMPARE(sid.nelastq, 2);
    QCOMPARE(sid.nodes.size(), std::size_t(2));
    QCOMPARE(sid.nodes[1].id, 20);
    QCOMPARE(sid.ielastq[1], std::string("Eigen Mode    8 :  20.0000 Hz"));
    const SidBody r = modalBodyFromSid(sid, FeUnits());
    const ModalBody& b = r.body;
    QCOMPARE(b.mass, 12.0);
    QVERIFY((b.centre - Vec3(0.5, 0.1, 0.0)).norm() < 1e-15);
    Mat3 Jc;  // about the centre of mass: J0 - m (|c|^2 I - c c^T)
    Jc << 0.3, 0.05, 0.0, 0.05, 2.0, 0.0, 0.0, 0.0, 2.1;
    QVERIFY(maxDiff(b.inertia, Jc) < 1e-14);
    // sqrt(Ke_ii / Me_ii) ascending: the file's mode 2 (20 Hz) first.
    QVERIFY(std::abs(b.frequencies[0] - 20.0) < 1e-12 && std::abs(b.frequencies[1] - 35.0) < 1e-12);
    // q' = V^T-scaled: mode 1 = the file's mode 2 / sqrt(0.5), mode 2 = the file's mode 1 / sqrt(2).
    const double s1 = 1.0 / std::sqrt(0.5), s2 = 1.0 / std::sqrt(2.0);
    QVERIFY(maxDiff(b.translation(0), (MatX(3, 2) << 0.0 * s1, 0.1 * s2, 0.2 * s1, 0.0, -0.1 * s1, 0.05 * s2).finished()) < 1e-15);
    QVERIFY(maxDiff(b.rotation(0), (MatX(3, 2) << 0.3 * s1, 0.0, 0.0, 0.4 * s2, 0.0, 0.0).finished()) < 1e-15);
    QVERIFY(maxDiff(b.translation(1), (MatX(3, 2) << 0.0, -0.1 * s2, -0.2 * s1, 0.0, 0.1 * s1, 0.05 * s2).finished()) < 1e-15);
    QVERIFY(b.rotation(1).isZero(0.0));  // no psi
    QVERIFY((b.nodes[1] + b.centre - Vec3(1.0, 0.2, 0.0)).norm() < 1e-15);
    // J1 of the file's modes (J's m1), Gr's antisymmetric part kept in G; in the new modes.
    Mat3 J11, J12, A1;
    J11 << 0.01, 0.002, 0.0, 0.002, -0.03, 0.004, 0.0, 0.004, 0.02;
    J12 << -0.005, 0.0, 0.001, 0.0, 0.012, 0.0, 0.001, 0.0, -0.007;
    A1 << 0.0, 0.003, 0.0, -0.003, 0.0, 0.0, 0.0, 0.0, 0.0;
    QVERIFY(maxDiff(b.G[0], s1 * J12 / 2.0) < 1e-15);
    QVERIFY(maxDiff(b.G[1], s2 * (J11 / 2.0 + A1)) < 1e-15);
    // E: the file's E_1 = [0 v], E_2 = [-v 0], v = (0.01, 0.02, -0.03); E'_k = (sum_j V_jk E_j) V.
    const Vec3 v(0.01, 0.02, -0.03);
    MatX E1f = MatX::Zero(3, 2), E2f = MatX::Zero(3, 2), V = MatX::Zero(2, 2);
    E1f.col(1) = v;
    E2f.col(0) = -v;
    V(1, 0) = s1;
    V(0, 1) = s2;
    QVERIFY(maxDiff(b.E[0], s1 * E2f * V) < 1e-15);
    QVERIFY(maxDiff(b.E[1], s2 * E1f * V) < 1e-15);
    // H from Oe's first-order terms (written -(X/2 diagonal, X off-diagonal) with xz before yz).
    Mat3 X11 = Vec3(0.004, 0.004, 0.0).asDiagonal(), X22 = Vec3(0.001, 0.0, 0.001).asDiagonal(), X12;
    X12 << 0.0, 0.0005, 0.0, 0.0005, 0.0, 0.0, 0.0, 0.0, 0.0002;
    QVERIFY(maxDiff(b.h(0, 0), s1 * s1 * X22 / 2.0) < 1e-15);
    QVERIFY(maxDiff(b.h(1, 1), s2 * s2 * X11 / 2.0) < 1e-15);
    QVERIFY(maxDiff(b.h(0, 1), s1 * s2 * X12 / 2.0) < 1e-15);
    QCOMPARE(r.dampingRatios.size(), Eigen::Index(2));
    QVERIFY(std::abs(r.dampingRatios[0] - 0.02) < 1e-12 && std::abs(r.dampingRatios[1] - 0.02) < 1e-12);
    std::string notes;
    for (const auto& n : r.notes) notes += n + "\n";
    qInfo("%s", notes.c_str());
    QVERIFY(notes.find("Oe read in the convention -(Jxx/2, Jyy/2, Jzz/2, Jxy, Jxz, Jyz)") != std::string::npos);
    QVERIFY(notes.find("without psi") != std::string::npos);
  }

  // Written and read back: the same body (to round-off of the centre-of-mass shift of J) and the
  // same text; in mm and t the same body again.
  void roundTrip() {
    const SidBody a = modalBodyFromSid(readSid(kFixture), FeUnits());
    VecX damping = 2.0 * 0.02 * (2.0 * M_PI * a.body.frequencies);
    const std::string text = writeSid(sidFromModalBody(a.body, damping, a.nodeIds));
    const SidBody b = modalBodyFromSid(parseSid(text, "written.SID_FEM"), FeUnits());
    QCOMPARE(b.nodeIds, a.nodeIds);
    QCOMPARE(b.body.mass, a.body.mass);
    QVERIFY((b.body.centre - a.body.centre).norm() < 1e-15);
    QVERIFY(maxDiff(b.body.inertia, a.body.inertia) < 1e-12 * a.body.inertia.norm());
    QVERIFY(maxDiff(b.body.frequencies, a.body.frequencies) == 0.0);
    QVERIFY(maxDiff(b.body.shapes, a.body.shapes) == 0.0);
    QVERIFY(invariantsDiff(a.body, b.body) < 1e-15);
    QVERIFY(maxDiff(b.dampingRatios, a.dampingRatios) < 1e-15);
    QCOMPARE(writeSid(sidFromModalBody(b.body, damping, b.nodeIds)), text);

    // The same body in mm and t: lengths x 1e3, masses x 1e-3 (kg m^2 = 1e3 t mm^2).
    SidFile mm = parseSid(text, "written.SID_FEM");
    mm.mass *= 1e-3;
    for (SidNode& n : mm.nodes) {
      for (auto* name : {"origin", "phi"}) {
        SidTaylor& t = n.blocks.at(name);
        t.m0 *= 1e3;
        for (MatX& m : t.m1) m *= 1e3;
      }
    }
    for (auto& [name, t] : mm.blocks) {
      const double f = name == "mdCM" || name == "Ct" ? 1.0 : 1e3;  // t mm = kg m; t mm^2 = 1e3 x ... / 1e3
      t.m0 *= f;
      for (MatX& m : t.m1) m *= f;
    }
    const SidBody c = modalBodyFromSid(parseSid(writeSid(mm), "mm.SID_FEM"), FeUnits{1e-3, 1e3});
    QVERIFY(std::abs(c.body.mass - a.body.mass) < 1e-12 * a.body.mass);
    QVERIFY(maxDiff(c.body.inertia, a.body.inertia) < 1e-12 * a.body.inertia.norm());
    QVERIFY(maxDiff(c.body.frequencies, a.body.frequencies) < 1e-12 * a.body.frequencies.maxCoeff());
    QVERIFY(maxDiff(c.body.shapes, a.body.shapes) < 1e-12 * a.body.shapes.cwiseAbs().maxCoeff());
    QVERIFY(invariantsDiff(a.body, c.body) < 1e-15);
  }

  // Modes that are not orthogonal: Me and Ke full. The normal modes of the pair come out, and
  // their frequencies are those of the generalized eigenproblem.
  void coupledModes() {
    std::string text = readTextFile(kFixture, 1 << 20);
    auto replaceBlock = [&](const std::string& name, const std::string& body) {
      const std::size_t a = text.find("  " + name + "\n"), b = text.find("end " + name, a);
      text.replace(a, b + 4 + name.size() - a, "  " + name + "\n" + body + "  end " + name);
    };
    // Me = [2 0.3; 0.3 0.5], Ke = [3e4 1e3; 1e3 8e3]: det checks by hand below.
    replaceBlock("Me", "order = 0\nnrow = 2\nncol = 2\nnq = 0\nnqn = 0\nstructure = 2\nm0( 1, 1) = 2.0\nm0( 2, 1) = 0.3\nm0( 2, 2) = 0.5\n");
    replaceBlock("Ke", "order = 0\nnrow = 2\nncol = 2\nnq = 0\nnqn = 0\nstructure = 2\nm0( 1, 1) = 3.0D4\nm0( 2, 1) = 1.0D3\nm0( 2, 2) = 8.0D3\n");
    replaceBlock("De", "order = 0\nnrow = 2\nncol = 2\nnq = 0\nnqn = 0\nstructure = 0\n");
    const SidBody r = modalBodyFromSid(parseSid(text, "coupled.SID_FEM"), FeUnits());
    // det(Ke - lambda Me) = 0: (3e4 - 2 l)(8e3 - 0.5 l) - (1e3 - 0.3 l)^2 = 0.
    const double a = 2.0 * 0.5 - 0.09, bq = -(3e4 * 0.5 + 8e3 * 2.0 - 2.0 * 1e3 * 0.3), c = 3e4 * 8e3 - 1e6;
    const double l1 = (-bq - std::sqrt(bq * bq - 4 * a * c)) / (2 * a), l2 = (-bq + std::sqrt(bq * bq - 4 * a * c)) / (2 * a);
    QVERIFY(std::abs(r.body.stiffness[0] / l1 - 1.0) < 1e-12);
    QVERIFY(std::abs(r.body.stiffness[1] / l2 - 1.0) < 1e-12);
    QVERIFY(r.dampingRatios.isZero(0.0));
    QVERIFY(r.notes.front().find("diagonalized") != std::string::npos);
  }

  // Modes of a body held at node 1 (tests/data/sid/attached_frame_body.SID_FEM, three point masses
  // on a line): their rigid part removed by hand, mode 1 is the bending mode (-1/3, 2/3, -1/3)
  // along y and mode 2 the stretch (-1/3, -1/3, 2/3) along x, each of modal mass 2/3 before
  // normalizing, so sqrt(600 / (2/3)) = 30 and sqrt(2400 / (2/3)) = 60 rad/s; invariants from the
  // moments of the shifted shapes about the centre of mass (x = -1, 0, 1).
  void attachedFrameModes() {
    const SidBody r = modalBodyFromSid(readSid(kAttached), FeUnits());
    const ModalBody& b = r.body;
    QCOMPARE(b.mass, 3.0);
    QVERIFY((b.centre - Vec3(1.0, 0.0, 0.0)).norm() < 1e-15);
    QVERIFY(maxDiff(b.inertia, Mat3(Vec3(0.03, 2.0, 2.0).asDiagonal())) < 1e-14);
    QVERIFY(std::abs(b.frequencies[0] * 2.0 * M_PI - 30.0) < 1e-12);
    QVERIFY(std::abs(b.frequencies[1] * 2.0 * M_PI - 60.0) < 1e-12);
    const double s = std::sqrt(1.5);  // 1 / sqrt(2/3)
    MatX T1 = MatX::Zero(3, 2), T2 = MatX::Zero(3, 2), T3 = MatX::Zero(3, 2);
    T1(1, 0) = -s / 3;
    T1(0, 1) = -s / 3;
    T2(1, 0) = 2 * s / 3;
    T2(0, 1) = -s / 3;
    T3(1, 0) = -s / 3;
    T3(0, 1) = 2 * s / 3;
    QVERIFY(maxDiff(b.translation(0), T1) < 1e-15 && maxDiff(b.translation(1), T2) < 1e-15 && maxDiff(b.translation(2), T3) < 1e-15);
    QVERIFY(b.rotation(1).isZero(1e-15));  // the rigid part removed has no rotation
    // The bending mode leaves the inertia unchanged to first order; the stretch adds
    // sum m x phi'_x = 1 (per unit q, times s) to Jyy and Jzz twice over.
    QVERIFY((b.G[0] + b.G[0].transpose()).isZero(1e-15));
    QVERIFY(maxDiff(b.G[1] + b.G[1].transpose(), s * Mat3(Vec3(0.0, 2.0, 2.0).asDiagonal())) < 1e-14);
    // E_k e_l = sum m phi'_k x phi'_l: sum phi'_1y phi'_2x = -1/3 per unit q^2, about z.
    MatX E1 = MatX::Zero(3, 2), E2 = MatX::Zero(3, 2);
    E1(2, 1) = s * s / 3;
    E2(2, 0) = -s * s / 3;
    QVERIFY(maxDiff(b.E[0], E1) < 1e-14 && maxDiff(b.E[1], E2) < 1e-14);
    // H_kl = sum m [phi'_k]x^T [phi'_l]x: the file's (1, 0, 1) and (0, 1, 1) on the diagonals scaled
    // by the modal mass 2/3 (times s^2 = 1), and a new coupling of the two modes.
    QVERIFY(maxDiff(b.h(0, 0) + b.h(0, 0).transpose(), Mat3(Vec3(2.0, 0.0, 2.0).asDiagonal())) < 1e-14);
    QVERIFY(maxDiff(b.h(1, 1) + b.h(1, 1).transpose(), Mat3(Vec3(0.0, 2.0, 2.0).asDiagonal())) < 1e-14);
    Mat3 H12 = Mat3::Zero();
    H12(0, 1) = H12(1, 0) = s * s / 3;
    QVERIFY(maxDiff(b.h(0, 1) + b.h(0, 1).transpose(), H12) < 1e-14);
    // De = 1e-3 Ke stays proportional: zeta = 1e-3 omega / 2.
    QVERIFY(std::abs(r.dampingRatios[0] - 0.015) < 1e-14 && std::abs(r.dampingRatios[1] - 0.03) < 1e-14);
    std::string notes;
    for (const auto& n : r.notes) notes += n + "\n";
    QVERIFY(notes.find("not free-floating") != std::string::npos);

    // A "mode" that turns the body about node 1 (node 2 and 3 along y by 1 and 2) is a rigid
    // motion: nothing is left of it once its rigid part is removed.
    std::string text = readTextFile(kAttached, 1 << 20);
    auto replace = [&](const std::string& from, const std::string& to) {
      const std::size_t at = text.find(from);
      if (at == std::string::npos) qFatal("fixture text not found: %s", from.c_str());
      text.replace(at, from.size(), to);
    };
    replace("        structure    =  3\n        m0(  1,  2)  =  1.000000000000000D+00",
            "        structure    =  3\n        m0(  1,  2)  =  1.000000000000000D+00\n        m0(  2,  1)  =  2.0D0");
    replace("    m0(  1,  2)  =  1.000000000000000D+00\n    m0(  2,  1)", "    m0(  1,  2)  =  3.0D0\n    m0(  2,  1)");  // Ct
    replace("    m0(  1,  3)  =  1.000000000000000D+00", "    m0(  1,  3)  =  5.0D0");                                     // Cr
    replace("    m0(  1,  1)  =  1.000000000000000D+00\n    m0(  2,  2)  =  1.000000000000000D+00",
            "    m0(  1,  1)  =  5.0D0\n    m0(  2,  2)  =  1.000000000000000D+00");  // Me
    try {
      modalBodyFromSid(parseSid(text, "rigid.SID_FEM"), FeUnits());
      QFAIL("a rigid rotation was read as a mode");
    } catch (const ModelError& e) {
      qInfo("%s", e.what());
      QVERIFY(std::string(e.what()).find("a mode is a rigid-body motion") != std::string::npos);
      QVERIFY(std::string(e.what()).find("rigid.SID_FEM") != std::string::npos);
    }
  }

  // Attached modes of a finite-element model, every block of the file formed from the full model:
  // read, they give the free body of the same motions (Rayleigh-Ritz over the rigid motions and
  // the modes on the full model). A spring network of point masses: exact. A bar of beams, whose
  // nodes carry rotary inertia that the invariants' correction takes as point masses: the
  // frequencies and shapes exact still, the invariants to the share of the rotary inertia.
  void attachedFrameAgainstTheFullModel() {
    // Eight point masses joined by 28 axial springs, the frame held by nodes 0 to 2.
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const int N = 8, n = 5;
    std::vector<Vec3> nodes;
    VecX mass(N);
    for (int i = 0; i < N; ++i) {
      nodes.push_back(Vec3(u(rng), u(rng), u(rng)) + Vec3(0.3, -0.2, 0.1));
      mass[i] = 0.5 + 1.5 * u(rng);
    }
    DofMap dofs;
    for (int i = 0; i < N; ++i) {
      dofs.first.push_back(3 * i);
      dofs.warp.push_back(-1);
      dofs.rotations.push_back(0);
    }
    dofs.size = 3 * N;
    MatX Kd = MatX::Zero(3 * N, 3 * N), Md = MatX::Zero(3 * N, 3 * N);
    for (int i = 0; i < N; ++i) {
      Md.block<3, 3>(3 * i, 3 * i) = mass[i] * Mat3::Identity();
      for (int j = i + 1; j < N; ++j) {
        const Vec3 e = (nodes[j] - nodes[i]).normalized();
        const Mat3 k = (1e4 * (1.0 + u(rng))) * e * e.transpose();
        Kd.block<3, 3>(3 * i, 3 * i) += k;
        Kd.block<3, 3>(3 * j, 3 * j) += k;
        Kd.block<3, 3>(3 * i, 3 * j) -= k;
        Kd.block<3, 3>(3 * j, 3 * i) -= k;
      }
    }
    const SparseMatrix K = Kd.sparseView(), M = Md.sparseView();
    const Eigen::GeneralizedSelfAdjointEigenSolver<MatX> held(Kd.bottomRightCorner(15, 15), Md.bottomRightCorner(15, 15));
    MatX phi = MatX::Zero(3 * N, n);
    phi.bottomRows(15) = held.eigenvectors().leftCols(n);
    const AttachedCheck spring = compareAttached(K, M, nodes, dofs, phi);
    qInfo("spring network: frequencies %.2e, shapes %.2e, invariants %.2e, mass and centre %.2e, inertia %.2e", spring.frequency,
          spring.shape, spring.invariants, spring.mass, spring.inertia);
    QVERIFY(spring.frequency < 1e-12 && spring.shape < 1e-10 && spring.invariants < 1e-10);
    QVERIFY(spring.notes.front().find("not free-floating") != std::string::npos);
    QVERIFY(spring.mass < 1e-14 && spring.inertia < 1e-14);

    // The bent tube bar (beams) held at its first node, its six lowest fixed-interface modes, with
    // the mass lumped at the nodes as SID tools form the invariants: 1/N of the bar's mass each and
    // a rotary inertia of 1e-5 kg m^2 about every axis (the tube's own, rho I_p per node).
    const BeamMesh mesh = test::bentBar(4, test::steel(), test::tube(0.022, 0.003));
    const BeamMatrices fem = assemble(mesh);
    const MatX R = rigidBodyModes(mesh.nodes, fem.dofs);
    const double barMass = (R.col(0).transpose() * (fem.mass * R.col(0)))(0, 0);
    VecX lumped(fem.dofs.size);
    for (std::size_t i = 0; i < mesh.nodes.size(); ++i)
      for (int a = 0; a < 3; ++a) {
        lumped[fem.dofs.first[i] + a] = barMass / static_cast<double>(mesh.nodes.size());
        lumped[fem.dofs.first[i] + 3 + a] = 1e-5;
      }
    const SparseMatrix Ml = MatX(lumped.asDiagonal()).sparseView();
    const CraigBampton cb = craigBampton(fem.stiffness, Ml, {0, 1, 2, 3, 4, 5}, {6, 0.0});
    const AttachedCheck bar = compareAttached(fem.stiffness, Ml, mesh.nodes, fem.dofs, cb.basis.rightCols(6));
    qInfo("bent bar: frequencies %.2e, shapes %.2e, J1 %.2e, mass and centre %.2e, inertia %.2e", bar.frequency, bar.shape, bar.j1,
          bar.mass, bar.inertia);
    QVERIFY(bar.frequency < 1e-10 && bar.shape < 1e-9 && bar.j1 < 1e-10);
    QVERIFY(bar.mass < 1e-14 && bar.inertia < 1e-14);
    std::string notes;
    for (const auto& n : bar.notes) notes += n + "\n";
    QVERIFY(notes.find("(Cr) and J's second-order terms (Oe) are left out") != std::string::npos);
  }

  void refusesBrokenFiles() {
    const std::string good = readTextFile(kFixture, 1 << 20);
    auto with = [&](const std::string& from, const std::string& to) {
      std::string t = good;
      const std::size_t at = t.find(from);
      if (at == std::string::npos) qFatal("fixture text not found: %s", from.c_str());
      t.replace(at, from.size(), to);
      return t;
    };
    struct Case {
      std::string text, expected;
    };
    const std::vector<Case> cases = {
        {with("m0(  2,  1)  =  1.200000000000000D+00", "m0(  4,  1)  =  1.2D+00"),
         "line 105: m0(4, 1) is outside block mdCM's 3 x 1 (row, column)"},
        {with("m0(  2,  2)  =  5.000000000000000D-01", "m0(  2,  1)  =  5.0D-01"), "line 158: block Me is diagonal (structure 1)"},
        {with("    mass           =  1.200000000000000D+01", "    mass = 1.2Q+01"), "line 15: mass is not a number: '1.2Q+01'"},
        {with("  Gr\n", "  Gx\n"), "line 160: unknown block 'Gx'"},
        {with("structure    =  0", "structure    =  0\n    m0( 1, 1) = 1.0"), "block Ct has structure 0 (zero matrix) and takes no entries"},
        {with("    order        =  1\n    nrow         =  2\n    ncol         =  6", "    order        =  2\n    nrow         =  2\n    ncol         =  6"),
         "order 2: Elastokin reads Taylor blocks of order 0 and 1"},
        {with("  end De\n", ""), "line 225: 'end modal' inside block De (opened at line 216): expected 'end De'"},
        {with("      2      2   Geo_Stiff= no", "      3      2"), "line 1: the first line names 3 nodes; the file has 2"},
        {with("  Cr\n", "  Cr\n    order = 1\n"), "order is given twice in block Cr"},
        {with("m1(  2,  1,  1)  =  1.000000000000000D-02", "m1(  2,  1,  3)  =  1.0D-02"), "m1(2, 1, 3) is outside block Cr's 2 x 3 x 2"},
        {with("    m0(  2,  1)  = -5.500000000000000D-01", "    m0(  2,  1)  = -5.5D-01\n    m0(  1,  2)  = -5.4D-01"),
         "block J is symmetric (structure 2) but this entry differs from its mirror"},
        {with("    nelastq        =  2", "    nelastq        =  3"), "block Ct is 2 x 3; with nelastq = 3 it must be 3 x 3"},
        {"part\nnew modal\n", "the file ends inside a block"},
        {"hello\n", "line 1: expected 'part', found 'hello'"},
    };
    for (const Case& c : cases) {
      const std::string e = errorOf(c.text);
      if (e.find(c.expected) == std::string::npos) qWarning("expected '%s' in:\n%s", c.expected.c_str(), e.c_str());
      QVERIFY(e.find(c.expected) != std::string::npos);
      QVERIFY(e.find("bad.SID_FEM") != std::string::npos);
    }
    // Every error of a file in one pass.
    std::string two = with("mass           =  1.200000000000000D+01", "mass = x");
    two.replace(two.find("m0(  2,  1)  =  1.200000000000000D+00"), 6, "m0(  7");
    const std::string both = errorOf(two);
    QVERIFY(both.find("line 15: mass is not a number") != std::string::npos);
    QVERIFY(both.find("line 105: m0(7, 1) is outside") != std::string::npos);

    // A mode with more momentum than the body can take (Ct beyond what Me, mdCM and J allow).
    const std::string moving = with("    structure    =  0\n  end Ct", "    structure    =  3\n    m0( 1, 1) = 6.0\n  end Ct");
    try {
      modalBodyFromSid(parseSid(moving, "bad.SID_FEM"), FeUnits());
      QFAIL("a mode with more momentum than the body was read");
    } catch (const ModelError& e) {
      QVERIFY(std::string(e.what()).find("is not positive definite") != std::string::npos);
      QCOMPARE(e.where().line, 128);
    }
    const std::string gr = with("m0(  1,  2)  =  8.000000000000000D-03", "m0(  1,  2)  =  9.0D-03");
    try {
      modalBodyFromSid(parseSid(gr, "bad.SID_FEM"), FeUnits());
      QFAIL("a Gr that does not fit J was read");
    } catch (const ModelError& e) {
      QVERIFY(std::string(e.what()).find("Gr does not fit J's first-order terms") != std::string::npos);
    }
  }
};

QTEST_APPLESS_MAIN(TestSid)
#include "tst_sid.moc"
