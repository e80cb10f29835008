// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file sid.h
/// SID files (Standard Input Data of flexible bodies, Wallrapp 1994; docs/flexible-bodies.md,
/// "SID files"), the exchange format of reduced flexible bodies between FE programs and multibody
/// tools (`.SID_FEM`). A file holds `part` / `new modal` with `refmod` (mass, nelastq, ielastq),
/// `frame` with one `new node = ID` per node (`origin`, `phi`, `psi`, `AP`, `sigma`), and the
/// body's Taylor blocks `mdCM`, `J`, `Ct`, `Cr`, `Me`, `Gr`, `Ge`, `Oe`, `ksigma`, `Ke`, `De`.
/// A Taylor block is M(q) = M0 + sum_k q_k M1_k: `order`, `nrow`, `ncol`, `nq`, `nqn`,
/// `structure` (0 zero, 1 diagonal, 2 symmetric, 3 full, 4 unit), then entries
/// `m0( i, j) = v` and `m1( i, j, k) = v` (row, column, mode; 1-based), numbers in Fortran
/// notation (1.5D+03). Comments start with `!`. An optional first line of integers (nodes,
/// modes) as some tools write it is checked against the file.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/fe/calculix.h"  // FeUnits
#include "engine/fe/floating_frame.h"

namespace ek::fe {

/// One Taylor block.
struct SidTaylor {
  int line = 0;  ///< of the block's name in the file (0: written here)
  int order = 0, nrow = 0, ncol = 0, nq = 0, nqn = 0, structure = 3;
  MatX m0;               ///< nrow x ncol
  std::vector<MatX> m1;  ///< nq of nrow x ncol when order is 1
};

struct SidNode {
  int id = 0;
  int line = 0;
  std::string rframe = "body ref";
  std::map<std::string, SidTaylor> blocks;  ///< origin, phi, psi, AP, sigma (those in the file)
};

struct SidFile {
  std::string path;
  std::vector<std::string> comments;  ///< written as `!` lines at the top
  double mass = 0.0;
  int nelastq = 0;
  std::vector<std::string> ielastq;  ///< the modes' names
  std::vector<SidNode> nodes;
  std::map<std::string, SidTaylor> blocks;  ///< the body's blocks in the file, by name
};

/// Reads a SID file. @throws ModelError naming the file and line of every problem found in one
/// pass (unknown blocks or keys, an entry outside its block's size or structure, a block whose
/// size does not fit nelastq, a number that is not one, a block not closed).
SidFile readSid(const std::string& path);
SidFile parseSid(std::string_view text, const std::string& path);

/// The file's text: numbers with 17 significant digits, so reading it gives the same numbers.
std::string writeSid(const SidFile& sid);

/// A flexible body read from a SID file, in SI units.
struct SidBody {
  ModalBody body;             ///< every node of the file (six rows each), modes of unit modal mass, ascending
  std::vector<int> nodeIds;   ///< the file's node ids, in body.nodes' order
  VecX dampingRatios;         ///< per mode, from De; empty when the file has none
  std::vector<std::string> notes;  ///< what was derived or left out, for the summary
};

/// The floating-frame data of a SID file. Its modes may have any modal mass and need not be
/// orthogonal (Me and Ke are diagonalized together). Modes that are not free-floating (Ct or Cr
/// at q = 0 not zero: an attached frame, Craig-Bampton modes of a held body) lose their
/// rigid-body part, so that the body frame is the mean axes as Elastokin's is; a note says so.
/// `units` scales the file's length and mass to SI.
/// @throws ModelError naming the file and the block's line when the data do not fit.
SidBody modalBodyFromSid(const SidFile& sid, const FeUnits& units);

/// The SID file of a body (SI): every node of `body` with id nodeIds[i] (1, 2, ... when empty);
/// `damping` per mode (the modal damping coefficient of unit modal mass, 2 zeta omega).
SidFile sidFromModalBody(const ModalBody& body, const VecX& damping, const std::vector<int>& nodeIds = {});

}  // namespace ek::fe
