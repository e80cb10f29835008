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
  std::vector<double> sweep;  ///< SI (m, rad, N, N m), ascending
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
/// semicolon separated), the first column the swept quantity (travel of the wheel centre, a load
/// or the rack), then channels; a row per point, numbers in any locale's file written with a
/// decimal point. A column maps to the K&C column of the same name ("wheel left toe") or to the
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
  double rms = 0.0, max = 0.0;  ///< RMS and largest absolute deviation
  double mean = 0.0;            ///< mean signed deviation (the offset: a rig's zero error shows here)
  double largest = 0.0;         ///< the largest deviation with its sign (|largest| = max)
  double maxAt = 0.0;           ///< the sweep value (SI) of the largest deviation
  int points = 0;               ///< measured points compared
  int outside = 0;              ///< measured points outside the computed range (not compared)
};

/// @throws ModelError naming the file and its sweep column when no measured point lies inside the
/// computed sweep (both ranges in the display unit); std::invalid_argument when a mapped channel
/// is not in `result`.
std::vector<KcCorrelation> correlate(const KcResult& result, const MeasuredKc& measured);

/// The display factor and unit of an SI unit: rad -> deg, m -> mm, else 1.
std::pair<double, std::string> displayUnit(const std::string& siUnit);

}  // namespace ek
