// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file text.h
/// Numbers as text for messages and result files.

#include <charconv>
#include <cstdio>
#include <string>

namespace ek {

/// The shortest text that reads back as exactly v ("0.001", "12.3456789", "1e+300", "nan").
inline std::string shortestText(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

/// v with `digits` significant digits ("%g" style): "0.000123", "4.1e+03".
inline std::string significant(double v, int digits = 3) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace ek
