// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file text.h
/// Numbers as text, the same in every locale. The workbench, the Python module and an FMU's host
/// run in the user's locale (de_DE writes 0,5), but files and command lines never depend on it:
/// numbers are read with std::from_chars and written with std::to_chars, and printf-style text
/// goes through cprintf() and its siblings, which format under the C locale whatever the process
/// locale is. tests/support/locale_free_io.sh (CTest core_locale_free_io) fails on the C library's locale-dependent
/// conversions anywhere else.

#include <charconv>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace ek {

/// The shortest text that reads back as exactly v ("0.001", "12.3456789", "1e+300", "nan").
inline std::string shortestText(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

/// A CSV field per RFC 4180: quoted (quotes doubled) when it holds a comma, quote or line break.
inline std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string q = "\"";
  for (char ch : text) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

/// s with A-Z as a-z, nothing else changed (keys and names of files, in any locale).
inline std::string asciiLower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

/// v with `digits` significant digits ("%g" style in the C locale): "0.000123", "4.1e+03".
inline std::string significant(double v, int digits = 3) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits < 1 ? 1 : digits);
  return std::string(buf, r.ptr);
}

/// A whole text as a finite decimal number: an optional sign, digits with an optional point, an
/// optional exponent ("-1.5", "+2", ".5e-3"). "0.1abc", "0x10", "inf", "nan", "1,5", "", a value
/// beyond the double range and surrounding spaces are refused (out unchanged).
bool parseDecimal(std::string_view text, double& out);

/// The text without the blanks (spaces, tabs, carriage returns) around it.
inline std::string_view trimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

/// A number as FE programs and Fortran write it: "1.5D+03", "1.D3", "1.E3", "-.5" and a missing
/// mantissa digit ("1.") as well as plain decimals; the rest as parseDecimal().
bool parseFortranDecimal(std::string_view text, double& out);

/// A whole text as a decimal integer within [lo, hi] (an optional sign, digits only).
bool parseInteger(std::string_view text, long long& out, long long lo, long long hi);

/// printf, fprintf, snprintf and a std::string result, formatting numbers in the C locale
/// whatever the process locale is (the thread's locale is switched for the call). cprintf and
/// cfprintf write to a terminal or a log: their text goes through terminalText() (a name from a
/// project can never move the cursor, clear the screen or ring the bell).
int cprintf(const char* format, ...) __attribute__((format(printf, 1, 2)));
int cfprintf(std::FILE* file, const char* format, ...) __attribute__((format(printf, 2, 3)));
int csnprintf(char* buffer, std::size_t size, const char* format, ...) __attribute__((format(printf, 3, 4)));
std::string cformat(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// Text as a terminal may receive it: control characters other than newline, tab and carriage
/// return (C0, DEL, the C1 range U+0080..U+009F) and bytes that are not UTF-8 escaped as \xNN.
std::string terminalText(std::string_view text);

/// A value as a message shows it: at most `maxChars` characters (a longer one cut, with "... (N
/// bytes)" after it), control characters and bytes that are not UTF-8 escaped (\n, \t, \xNN).
std::string printableExcerpt(std::string_view value, std::size_t maxChars = 80);

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
