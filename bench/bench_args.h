// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file bench_args.h
/// Numbers on the benchmarks' command lines, read in any locale; a bad one ends the program with
/// the option named (exit 2), never a silent 0.

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/core/text.h"

namespace ek::bench {

inline double numberArg(const std::string& option, const std::string& text) {
  double v = 0.0;
  if (!ek::parseDecimal(text, v)) {
    ek::cfprintf(stderr, "%s needs a finite decimal number, not '%s'\n", option.c_str(), text.c_str());
    std::exit(2);
  }
  return v;
}

inline int countArg(const std::string& option, const std::string& text, int lowest = 1) {
  long long v = 0;
  if (!ek::parseInteger(text, v, lowest, INT_MAX)) {
    ek::cfprintf(stderr, "%s needs a whole number from %d, not '%s'\n", option.c_str(), lowest, text.c_str());
    std::exit(2);
  }
  return static_cast<int>(v);
}

}  // namespace ek::bench
