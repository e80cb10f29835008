// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/text.h"

#include <locale.h>

#include <cmath>
#include <cstdarg>
#include <vector>

namespace ek {

namespace {

/// The C locale, made once; switched to for the calling thread only (uselocale), so other threads
/// and the process's locale are untouched.
locale_t cLocale() {
  static const locale_t c = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  return c;
}

class CLocaleScope {
 public:
  CLocaleScope() : previous_(uselocale(cLocale())) {}
  ~CLocaleScope() { uselocale(previous_); }
  CLocaleScope(const CLocaleScope&) = delete;
  CLocaleScope& operator=(const CLocaleScope&) = delete;

 private:
  locale_t previous_;
};

std::string vformat(const char* format, va_list args) {
  va_list again;
  va_copy(again, args);
  char small[256];
  const int n = std::vsnprintf(small, sizeof small, format, args);
  std::string out;
  if (n < 0) {
    va_end(again);
    return out;
  }
  if (static_cast<std::size_t>(n) < sizeof small) {
    out.assign(small, static_cast<std::size_t>(n));
  } else {
    std::vector<char> big(static_cast<std::size_t>(n) + 1);
    std::vsnprintf(big.data(), big.size(), format, again);
    out.assign(big.data(), static_cast<std::size_t>(n));
  }
  va_end(again);
  return out;
}

bool isDecimalText(std::string_view t) {
  // from_chars would also take "inf", "nan" and hexadecimal forms; only plain decimals pass.
  if (t.empty()) return false;
  bool digit = false;
  for (char c : t) {
    if (c >= '0' && c <= '9') digit = true;
    else if (c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E') return false;
  }
  return digit;
}

}  // namespace

bool parseDecimal(std::string_view text, double& out) {
  if (!isDecimalText(text)) return false;
  if (text.front() == '+') {
    text.remove_prefix(1);
    if (text.empty() || text.front() == '+' || text.front() == '-') return false;
  }
  double v = 0.0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(v)) return false;
  out = v;
  return true;
}

bool parseFortranDecimal(std::string_view text, double& out) {
  std::string t(text);
  for (char& c : t)
    if (c == 'd' || c == 'D') c = 'e';
  const std::size_t e = t.find_first_of("eE");
  std::string mant = t.substr(0, e), expo = e == std::string::npos ? "" : t.substr(e);
  if (!mant.empty() && mant.back() == '.') mant += '0';
  return parseDecimal(mant + expo, out);
}

bool parseInteger(std::string_view text, long long& out, long long lo, long long hi) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (text.empty() || text.front() == '-') return false;
  }
  long long v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || v < lo || v > hi) return false;
  out = v;
  return true;
}

std::string terminalText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  static const char* hex = "0123456789abcdef";
  const auto escape = [&](unsigned char c) {
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 0xf];
  };
  std::size_t k = 0;
  while (k < text.size()) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f) escape(c);
      else out += static_cast<char>(c);
      ++k;
      continue;
    }
    const std::size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool valid = len > 1 && k + len <= text.size();
    for (std::size_t i = 1; valid && i < len; ++i) valid = (static_cast<unsigned char>(text[k + i]) >> 6) == 0x2;
    // U+0080..U+009F (C2 80..C2 9F) are the C1 controls: CSI and friends on many terminals.
    if (valid && c == 0xc2 && static_cast<unsigned char>(text[k + 1]) < 0xa0) valid = false;
    if (valid) {
      out.append(text.substr(k, len));
      k += len;
    } else {
      escape(c);
      ++k;
    }
  }
  return out;
}

namespace {
int writeTerminal(std::FILE* file, const char* format, va_list args) {
  const std::string text = terminalText(vformat(format, args));
  return std::fputs(text.c_str(), file) < 0 ? -1 : static_cast<int>(text.size());
}
}  // namespace

int cprintf(const char* format, ...) {
  CLocaleScope c;
  va_list args;
  va_start(args, format);
  const int n = writeTerminal(stdout, format, args);
  va_end(args);
  return n;
}

int cfprintf(std::FILE* file, const char* format, ...) {
  CLocaleScope c;
  va_list args;
  va_start(args, format);
  const int n = writeTerminal(file, format, args);
  va_end(args);
  return n;
}

int csnprintf(char* buffer, std::size_t size, const char* format, ...) {
  CLocaleScope c;
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buffer, size, format, args);
  va_end(args);
  return n;
}

std::string cformat(const char* format, ...) {
  CLocaleScope c;
  va_list args;
  va_start(args, format);
  std::string s = vformat(format, args);
  va_end(args);
  return s;
}

std::string printableExcerpt(std::string_view value, std::size_t maxChars) {
  std::string out;
  std::size_t shown = 0, k = 0;
  static const char* hex = "0123456789abcdef";
  while (k < value.size() && shown < maxChars) {
    const auto c = static_cast<unsigned char>(value[k]);
    // A whole UTF-8 sequence is one character; a broken one is escaped byte by byte.
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool valid = len > 1 && k + len <= value.size();
    for (std::size_t i = 1; valid && i < len; ++i) valid = (static_cast<unsigned char>(value[k + i]) >> 6) == 0x2;
    if (valid) {
      out.append(value.substr(k, len));
      k += len;
    } else if (c == '\n') {
      out += "\\n", ++k;
    } else if (c == '\t') {
      out += "\\t", ++k;
    } else if (c == '\r') {
      out += "\\r", ++k;
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x", out += hex[c >> 4], out += hex[c & 15], ++k;
    } else {
      out += static_cast<char>(c), ++k;
    }
    ++shown;
  }
  if (k < value.size()) out += "... (" + std::to_string(value.size()) + " bytes)";
  return out;
}

}  // namespace ek
