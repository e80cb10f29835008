// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/json_reader.h"

namespace ek {
namespace {

/// A bounded excerpt of a JSON value for messages: never more than about `budget` characters,
/// however large or deep the value is.
void excerptInto(const Json& v, std::string& out, std::size_t budget) {
  if (out.size() >= budget) return;
  if (v.is_object() || v.is_array()) {
    out += v.is_object() ? '{' : '[';
    bool first = true;
    for (auto it = v.begin(); it != v.end() && out.size() < budget; ++it) {
      if (!first) out += ',';
      first = false;
      if (v.is_object()) out += Json(it.key()).dump() + ':';
      excerptInto(*it, out, budget);
    }
    out += v.is_object() ? '}' : ']';
  } else {
    out += v.dump();
  }
}
}  // namespace

std::string excerpt(const Json& v) {
  constexpr std::size_t kBudget = 40;
  std::string s;
  excerptInto(v, s, kBudget);
  if (s.size() > kBudget) s = s.substr(0, kBudget - 3) + "...";
  return s;
}


std::pair<int, int> lineColumn(const std::string& text, std::size_t byte) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < text.size() && i + 1 < byte; ++i) {
    if (text[i] == '\n') { ++line; col = 1; } else { ++col; }
  }
  return {line, col};
}

Json parseJsonText(const std::string& text, const std::string& path, int maxDepth, const std::string& depthHint,
                   JsonScan& scan) {
  // Before the tree is built: nesting depth (the parser and every printer recurse) and
  // repeated keys (the tree keeps only the last one).
  scan = scanJson(text, maxDepth);
  if (scan.tooDeep) {
    Location w{path, "", "", ""};
    w.line = scan.line;
    w.column = scan.column;
    throw ModelError(w, "JSON nested deeper than " + std::to_string(maxDepth) + " levels (" + depthHint + ")");
  }
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, col] = lineColumn(text, e.byte);
    std::string what = e.what();
    const auto p = what.find("syntax error");
    throw ModelError({path, "", "", ""}, "malformed JSON at line " + std::to_string(line) + ", column " +
                                             std::to_string(col) + ": " +
                                             (p == std::string::npos ? what : what.substr(p)));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double (it would be Inf). The library gives the token, not the
    // position: find the token in the text.
    const std::string what = e.what();
    const auto a = what.find('\''), b = what.rfind('\'');
    const std::string token = (a != std::string::npos && b > a) ? what.substr(a + 1, b - a - 1) : "";
    const std::size_t at = token.empty() ? std::string::npos : text.find(token);
    const auto [line, col] = lineColumn(text, at == std::string::npos ? 0 : at + 1);
    throw ModelError({path, "", "", ""}, "malformed JSON at line " + std::to_string(line) + ", column " +
                                             std::to_string(col) + ": number '" + token +
                                             "' is out of range (not finite)");
  }
}

}  // namespace ek
