// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file kc_measured.h
/// Measured K&C data (docs/analyses.md, "Measured K&C data"): a rig's CSV of a sweep (travel or
/// load, then channels) read with its columns mapped to the sweep's channels and its units
/// converted to SI, and the correlation of a computed sweep with it (RMS and largest deviation
/// per channel).

#include <string>
#include <utility>
#include <vector>

#include "engine/analysis/kc.h"

namespace ek {

struct MeasuredKc {
  std::string path;
  std::string sweepHeader;  ///< the first column's header as the file gives it
  /// SI (m, rad, N, N m), in the file's order: ascending for one branch (a falling file is read
  /// backwards), rising and falling in turn for a loop (loading and unloading).
  std::vector<double> sweep;
  /// The monotonic runs of `sweep`, [begin, end) each; a turning point is the last point of one
  /// branch and the first of the next.
  struct Branch {
    std::size_t begin = 0, end = 0;
    bool rising = true;
  };
  std::vector<Branch> branches;
  /// "branch 2 of 3 (falling)", or "" for a file of one branch.
  std::string branchName(std::size_t k) const;
  struct Column {
    std::string header;   ///< as the file gives it
    std::string channel;  ///< the K&C column it is compared with (KcResult::columns)
    std::vector<double> values;  ///< SI, one per sweep point
  };
  std::vector<Column> columns;
  std::vector<std::string> leftOut;  ///< headers of columns that map to no channel
};

/// A column header's unit to SI: "m", "mm", "cm", "km", "in", "inch", "ft" (lengths), "rad",
/// "deg", "degree", "degrees" (angles), "N", "kN", "lbf" (forces), "N m", "Nm", "kN m" (moments),
/// "-" or "" (as is). Returns false for any other text.
bool unitToSi(const std::string& unit, double& factor);

/// Reads a rig's CSV: one header row "name [unit]" or "name (unit)" per column (comma or
/// semicolon separated), or a header row of names and a units row under it ("mm", "[deg]", or
/// empty; a unit given in both must agree), the first column the swept quantity (travel of the
/// wheel centre, a load or the rack), then channels; a row per point, numbers in any locale's
/// file written with a decimal point. The swept quantity may turn back (a loop of loading and
/// unloading branches, MeasuredKc::branches); it must not stand still from row to row. A column maps to the K&C column of the same name ("wheel left toe") or to the
/// one `mapping` gives for its name ({"Toe LF", "wheel left toe"}). `channels` are the K&C
/// columns there are (the analysis's), to check names against.
/// @throws ModelError naming file, line and column for every problem in one pass: a unit not
/// known, a field that is not a number, rows of another length, a sweep that does not rise, a
/// mapping to no channel, and a file from which no column maps (an import that imports nothing).
/// `units`: the channels' SI units (KcResult::units); a column whose unit measures something
/// else (toe [mm]) is an error; a column mapped twice, or two columns onto one channel, too.
MeasuredKc readMeasuredKc(const std::string& path, const std::vector<std::pair<std::string, std::string>>& mapping,
                          const std::vector<std::string>& channels, const std::vector<std::string>& units = {});

/// One channel's agreement: deviations computed - measured at the measured points inside the
/// computed sweep's range (the computed sweep linearly interpolated), in the display unit (deg
/// for rad, mm for m, else the SI unit).
struct KcCorrelation {
  std::string channel, unit;
  std::string branch;           ///< MeasuredKc::branchName: one row per channel and branch
  /// The measured loop's width: the largest difference between a rising and a falling branch of
  /// this channel at equal swept values (display unit; 0 for one branch).
  double hysteresis = 0.0;
  double rms = 0.0, max = 0.0;  ///< RMS and largest absolute deviation
  double mean = 0.0;            ///< mean signed deviation (the offset: a rig's zero error shows here)
  double largest = 0.0;         ///< the largest deviation with its sign (|largest| = max)
  double maxAt = 0.0;           ///< the sweep value (SI) of the largest deviation
  int points = 0;               ///< measured points compared
  int outside = 0;              ///< measured points outside the computed range (not compared)
  /// "wheel left toe", or with its branch "wheel left toe, branch 2 of 3 (falling)".
  std::string label() const { return branch.empty() ? channel : channel + ", " + branch; }
};

/// One row per channel (and per branch of a loop, in the file's order).
/// @throws ModelError naming the file and its sweep column when no measured point lies inside the
/// computed sweep (both ranges in the display unit); std::invalid_argument when a mapped channel
/// is not in `result`.
std::vector<KcCorrelation> correlate(const KcResult& result, const MeasuredKc& measured);

/// The display factor and unit of an SI unit: rad -> deg, m -> mm, else 1.
std::pair<double, std::string> displayUnit(const std::string& siUnit);

}  // namespace ek
