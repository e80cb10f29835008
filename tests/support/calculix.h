// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// CalculiX in the tests: the message of an error, a cantilever strip of solid elements as a deck, ccx run on a deck, and
// the tables of its .dat output (node rows, eigenfrequencies).
#include <QProcess>
#include <QString>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/core/rotation.h"
#include "engine/core/types.h"
#include "engine/model/project.h"

namespace ek::test {

/// The message of the ModelError f throws (empty when it throws none).
inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e.what();
  }
  return {};
}

inline void write(const QString& path, const std::string& text) {
  std::ofstream f(path.toStdString());
  f << text;
}

inline std::string readText(const QString& path) {
  std::ifstream f(path.toStdString());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The strip: 200 x 20 x 4 mm, 40 x 4 x 2 eight-node bricks, steel in mm, t, s, N.
inline constexpr double kL = 200.0, kW = 20.0, kT = 4.0;
inline constexpr int kNx = 40, kNy = 4, kNz = 2;

inline int nodeId(int i, int j, int l) { return 1 + (i * (kNy + 1) + j) * (kNz + 1) + l; }

inline std::string stripDeck() {
  std::string s = "** cantilever strip, mm t s N\n*NODE, NSET=NALL\n";
  for (int i = 0; i <= kNx; ++i)
    for (int j = 0; j <= kNy; ++j)
      for (int l = 0; l <= kNz; ++l)
        s += cformat("%d, %.6f, %.6f, %.6f\n", nodeId(i, j, l), kL * i / kNx, kW * j / kNy, kT * l / kNz);
  s += "*ELEMENT, TYPE=C3D8, ELSET=EALL\n";
  int e = 1;
  for (int i = 0; i < kNx; ++i)
    for (int j = 0; j < kNy; ++j)
      for (int l = 0; l < kNz; ++l)
        s += cformat("%d, %d, %d, %d, %d, %d, %d, %d, %d\n", e++, nodeId(i, j, l), nodeId(i + 1, j, l),
                     nodeId(i + 1, j + 1, l), nodeId(i, j + 1, l), nodeId(i, j, l + 1), nodeId(i + 1, j, l + 1),
                     nodeId(i + 1, j + 1, l + 1), nodeId(i, j + 1, l + 1));
  for (auto [name, i] : {std::pair<const char*, int>{"ROOT", 0}, {"TIP", kNx}}) {
    s += cformat("*NSET, NSET=%s\n", name);
    for (int j = 0; j <= kNy; ++j)
      for (int l = 0; l <= kNz; ++l) s += cformat("%d,\n", nodeId(i, j, l));
  }
  s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*DENSITY\n7.85e-9\n"
       "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n";
  return s;
}

// The same strip as a shell of S8R elements (CalculiX expands them into C3D20R) on its
// mid-surface z = kT / 2, 40 x 4 elements, 4 mm thick: nodes on a (2 kNx + 1) x (2 kNy + 1) grid
// without the elements' centres.
inline int shellNodeId(int i, int j) { return 1 + i * (2 * kNy + 1) + j; }

inline std::string shellStripDeck() {
  std::string s = "** cantilever strip of shells, mm t s N\n*NODE, NSET=NALL\n";
  for (int i = 0; i <= 2 * kNx; ++i)
    for (int j = 0; j <= 2 * kNy; ++j)
      if (i % 2 == 0 || j % 2 == 0)
        s += cformat("%d, %.6f, %.6f, %.6f\n", shellNodeId(i, j), kL * i / (2 * kNx), kW * j / (2 * kNy), kT / 2);
  s += "*ELEMENT, TYPE=S8R, ELSET=EALL\n";
  int e = 1;
  for (int i = 0; i < 2 * kNx; i += 2)
    for (int j = 0; j < 2 * kNy; j += 2)
      s += cformat("%d, %d, %d, %d, %d, %d, %d, %d, %d\n", e++, shellNodeId(i, j), shellNodeId(i + 2, j),
                   shellNodeId(i + 2, j + 2), shellNodeId(i, j + 2), shellNodeId(i + 1, j), shellNodeId(i + 2, j + 1),
                   shellNodeId(i + 1, j + 2), shellNodeId(i, j + 1));
  for (auto [name, i] : {std::pair<const char*, int>{"ROOT", 0}, {"TIP", 2 * kNx}}) {
    s += cformat("*NSET, NSET=%s\n", name);
    for (int j = 0; j <= 2 * kNy; ++j) s += cformat("%d,\n", shellNodeId(i, j));
  }
  s += cformat("*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*DENSITY\n7.85e-9\n"
               "*SHELL SECTION, ELSET=EALL, MATERIAL=STEEL\n%g\n", kT);
  return s;
}

// A folded shell: a V section (two 20 mm flanges at 30 degrees either side of the vertical,
// meeting on the fold line y = z = 0), 200 mm long, 2 mm thick, S8R, 40 elements along and 2
// across each flange. CalculiX makes the fold nodes knots.
inline constexpr double kFlange = 20.0, kFold = 30.0 * M_PI / 180.0, kShellT = 2.0;
inline int vNodeId(int i, int j) { return 1 + i * 9 + j; }
inline Vec3 vPoint(int i, int j) {  // j = 0..8 across, the fold at j = 4
  const double s = kFlange * std::abs(j - 4) / 4.0, side = j < 4 ? -1.0 : 1.0;
  return Vec3(kL * i / (2 * kNx), side * s * std::sin(kFold), s * std::cos(kFold));
}
inline std::string vSectionDeck() {
  std::string s = "** V section of shells, mm t s N\n*NODE, NSET=NALL\n";
  for (int i = 0; i <= 2 * kNx; ++i)
    for (int j = 0; j <= 8; ++j)
      if (i % 2 == 0 || j % 2 == 0) {
        const Vec3 p = vPoint(i, j);
        s += cformat("%d, %.9f, %.9f, %.9f\n", vNodeId(i, j), p.x(), p.y(), p.z());
      }
  s += "*ELEMENT, TYPE=S8R, ELSET=EALL\n";
  int e = 1;
  for (int i = 0; i < 2 * kNx; i += 2)
    for (int j = 0; j < 8; j += 2)
      s += cformat("%d, %d, %d, %d, %d, %d, %d, %d, %d\n", e++, vNodeId(i, j), vNodeId(i + 2, j), vNodeId(i + 2, j + 2),
                   vNodeId(i, j + 2), vNodeId(i + 1, j), vNodeId(i + 2, j + 1), vNodeId(i + 1, j + 2), vNodeId(i, j + 1));
  for (auto [name, i] : {std::pair<const char*, int>{"ROOT", 0}, {"TIP", 2 * kNx}}) {
    s += cformat("*NSET, NSET=%s\n", name);
    for (int j = 0; j <= 8; ++j) s += cformat("%d,\n", vNodeId(i, j));
  }
  s += cformat("*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*DENSITY\n7.85e-9\n"
               "*SHELL SECTION, ELSET=EALL, MATERIAL=STEEL\n%g\n", kShellT);
  return s;
}

// Runs ccx on JOB.inp in dir; the .dat file's text ("FAILED" when ccx failed).
inline std::string runCcx(const QString& dir, const QString& job) {
  QProcess p;
  p.setWorkingDirectory(dir);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("OMP_NUM_THREADS", "1");
  p.setProcessEnvironment(env);
  p.start("ccx", {"-i", job});
  if (!p.waitForFinished(120000) || p.exitCode() != 0) return "FAILED";
  std::ifstream f((dir + "/" + job + ".dat").toStdString());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The six numbers after a node id at the start of a line of a .dat table ("  9001  1.2E-03 ...").
inline Vec3 datRow(const std::string& dat, int node) {
  std::istringstream in(dat);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    int id = 0;
    double x, y, z;
    if (l >> id && id == node && l >> x >> y >> z) return {x, y, z};
  }
  return Vec3::Constant(std::nan(""));
}

// The total of a *NODE PRINT, TOTALS=ONLY (the line after "total force ...").
inline Vec3 datTotal(const std::string& dat) {
  std::istringstream in(dat);
  std::string line;
  bool next = false;
  while (std::getline(in, line)) {
    if (line.find("total force") != std::string::npos) next = true;
    std::istringstream l(line);
    double x, y, z;
    if (next && l >> x >> y >> z) return {x, y, z};
  }
  return Vec3::Constant(std::nan(""));
}

inline std::vector<double> datFrequencies(const std::string& dat) {
  std::vector<double> f;
  std::istringstream in(dat);
  std::string line;
  bool table = false;
  while (std::getline(in, line)) {
    if (line.find("E I G E N V A L U E   O U T P U T") != std::string::npos) table = true;
    if (line.find("P A R T I C I P A T I O N") != std::string::npos) break;
    std::istringstream l(line);
    int mode = 0;
    double eig, rad, hz;
    if (table && l >> mode >> eig >> rad >> hz) f.push_back(hz);
  }
  return f;
}

// Ground and the strip's body, turned and moved; markers at the strip's root and tip (body frame,
// where the deck's mesh lies scaled to metres); the root held by a stiff bushing.
inline Project heldStrip() {
  Project p;
  p.name = "held strip";
  p.gravity.setZero();
  BodyRow ground;
  ground.id = 0;
  ground.name = "ground";
  ground.fixed = true;
  BodyRow strip;
  strip.id = 1;
  strip.name = "strip";
  strip.mass = 0.2;
  strip.inertia = {1e-3, 1e-3, 1e-3, 0, 0, 0};
  strip.position = Vec3(0.3, -0.1, 0.5);
  strip.orientation = Vec3(0.2, -0.1, 0.3);
  p.bodies = {ground, strip};
  const Vec3 root(0.0, kW / 2 * 1e-3, kT / 2 * 1e-3), tip(kL * 1e-3, root.y(), root.z());
  const Mat3 R = rotation::matrix(strip.orientation);
  p.markers = {MarkerRow{1, "ground mount", 0, strip.position + R * root, strip.orientation},
               MarkerRow{2, "root", 1, root, Vec3::Zero()}, MarkerRow{3, "tip", 1, tip, Vec3::Zero()}};
  BushingRow b;
  b.id = 1;
  b.name = "clamp";
  b.markerI = 2;
  b.markerJ = 1;
  for (int d = 0; d < 6; ++d) b.directions[d].stiffness.coefficient = 1e10;
  p.bushings = {b};
  return p;
}

}  // namespace ek::test
