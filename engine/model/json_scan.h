// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file json_scan.h
/// A single linear pass over JSON text, before it is parsed into a tree, for what the tree
/// cannot tell: how deeply it nests (a recursive parser or printer would overflow the stack on
/// deep input) and which object keys repeat (a JSON object keeps only the last of them, which
/// would silently change the project). Positions are 1-based line and column.
/// It does not validate the syntax; the parser does that afterwards.

#include <cstddef>
#include <string>
#include <vector>

namespace ek {

/// One step of the path to a value: an object key or an array index.
struct JsonPathStep {
  bool isIndex = false;
  std::string key;
  std::size_t index = 0;
};

struct JsonDuplicateKey {
  std::vector<JsonPathStep> path;  ///< to the object that holds the key twice
  std::string key;                 ///< decoded
  int line = 0, column = 0;        ///< the repeated occurrence
  int firstLine = 0, firstColumn = 0;
};

struct JsonScan {
  bool tooDeep = false;      ///< nesting exceeded the limit; the scan stopped there
  int line = 0, column = 0;  ///< where it did
  std::vector<JsonDuplicateKey> duplicates;
};

/// @param depthLimit largest number of nested objects and arrays accepted.
JsonScan scanJson(const std::string& text, int depthLimit);

}  // namespace ek
