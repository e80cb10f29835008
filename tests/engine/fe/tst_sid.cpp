// SPDX-License-Identifier: GPL-3.0-or-later
// SID files (engine/fe/sid.h). A file written by hand from the format's description
// (tests/data/sid/two_node_body.SID_FEM: modes neither mass-normalized nor ascending, structure
// codes 0 to 4, D exponents in both cases, blocks left out, a node without psi, Oe in another
// tool's sign and order) gives the floating-frame data worked out here by hand; a body written
// and read back is the same to 1e-12; broken files are refused with their line.
#include <QtTest>

#include <cmath>

#include "engine/core/error.h"
#include "engine/core/text_file.h"
#include "engine/fe/sid.h"
#include "support/test_models.h"

using namespace ek;
using namespace ek::fe;

namespace {

const std::string kFixture = std::string(ELASTOKIN_SOURCE_DIR) + "/tests/data/sid/two_node_body.SID_FEM";

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

    // Modes that are not free-floating, and damping that couples the modes.
    const std::string moving = with("    structure    =  0\n  end Ct", "    structure    =  3\n    m0( 1, 1) = 0.5\n  end Ct");
    try {
      modalBodyFromSid(parseSid(moving, "bad.SID_FEM"), FeUnits());
      QFAIL("a mode that moves the centre of mass was read");
    } catch (const ModelError& e) {
      QVERIFY(std::string(e.what()).find("mode 1 is not free-floating") != std::string::npos);
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
