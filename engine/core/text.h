// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file text.h
/// Numbers as text for messages and result files.

#include <charconv>
#include <cstddef>
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

/// One entry of a table of an enumeration's names (the names files and command lines use).
template <class E>
struct EnumName {
  E value;
  const char* name;
};

/// The name of `value` in `table`, or `fallback`.
template <class E, std::size_t N>
const char* nameOf(const EnumName<E> (&table)[N], E value, const char* fallback = "?") {
  for (const auto& e : table)
    if (e.value == value) return e.name;
  return fallback;
}

/// The value named `name` in `table`. @returns false (out unchanged) for an unknown name.
template <class E, std::size_t N>
bool valueOf(const EnumName<E> (&table)[N], const std::string& name, E& out) {
  for (const auto& e : table)
    if (name == e.name) {
      out = e.value;
      return true;
    }
  return false;
}

}  // namespace ek
