// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file teim_orbit.h
/// The TeimOrbit text of Adams property files (DESIGN.md section 9), read and written generically:
/// blocks `[NAME]`, sub-blocks `(NAME)`, attributes `NAME = value` (a number or a quoted string),
/// tables `{label label ...}` followed by rows, comments after `$` or `!` (also at the end of a
/// line, never inside quotes; `$---...NAME` separator lines are comments). Names and keys are
/// case-insensitive (kept upper-case here), labels are kept as written (lower-cased).
///
/// Strict: a block given twice, an attribute given twice in one block, a second table in a block,
/// a row whose number of fields differs from the table's labels, a field that is not a finite
/// number: errors with the line. Repeated row errors of one table are reported once with a count.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"

namespace ek {

struct TeimAttribute {
  std::string key;    ///< upper-case
  std::string value;  ///< without the quotes
  bool quoted = false;
  int line = 0;
};

struct TeimTable {
  std::vector<std::string> labels;       ///< lower-case, as in the file's `{...}`
  std::vector<std::vector<double>> rows; ///< numeric rows (each of labels.size() values)
  std::vector<int> rowLines;
  std::vector<std::string> textRows;     ///< rows of quoted text (the header's comment strings)
  int line = 0;
  bool bad = false;  ///< a row could not be read (reported): the table must not be used
};

struct TeimBlock {
  std::string name;  ///< upper-case, without brackets or parentheses
  int line = 0;
  std::vector<TeimAttribute> attributes;
  std::optional<TeimTable> table;
  std::vector<TeimBlock> subBlocks;  ///< `(NAME)` sub-blocks, in the order given

  const TeimAttribute* attribute(std::string_view key) const;
  /// Comment lines written before the block's table (writeTeimOrbit only).
  std::vector<std::string> tableComments;
};

struct TeimFile {
  std::vector<TeimBlock> blocks;
  const TeimBlock* block(std::string_view name) const;
};

/// Blocks (upper-case names) whose table may come as rows with no `{labels}` line, with the
/// labels to give it (a tyre file's [SHAPE] is often written so).
using TeimHeaderless = std::map<std::string, std::vector<std::string>>;

/// Reads the text of a property file (`path` names it in messages); every problem goes to `diag`
/// with its line. What could be read is returned.
TeimFile parseTeimOrbit(const std::string& text, const std::string& path, Diagnostics& diag,
                        const TeimHeaderless& headerless = {});

/// The file as text: each block after a `$---...name` separator line, attributes aligned, quoted
/// values in single quotes, numbers as the shortest text that reads back exactly (any locale).
std::string writeTeimOrbit(const TeimFile& file);

/// A field of a property file as a number: a decimal, FORTRAN exponents ("1.5D3") included.
bool parseTeimNumber(std::string_view text, double& out);

}  // namespace ek
