// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/json_scan.h"

#include <map>
#include <utility>

namespace ek {
namespace {

struct Frame {
  bool object = false;
  bool expectKey = false;  ///< object: the next string is a key
  std::string key;         ///< object: the current key
  std::size_t index = 0;   ///< array: the current element
  std::map<std::string, std::pair<int, int>> keys;  ///< object: key -> line, column
};

void appendUtf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// Reads a string token starting at text[i] == '"' and decodes its escapes, so that two spellings
/// of one key compare equal. Leaves i after the closing quote (or at the end of the text).
class Cursor {
 public:
  explicit Cursor(const std::string& t) : text(t) {}
  const std::string& text;
  std::size_t i = 0;
  int line = 1, column = 1;

  void advance() {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    ++i;
  }
  bool hex4(unsigned& v) {
    if (i + 4 > text.size()) return false;
    v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else return false;
    }
    for (int k = 0; k < 4; ++k) advance();
    return true;
  }
  std::string string() {
    std::string s;
    advance();  // opening quote
    while (i < text.size() && text[i] != '"') {
      if (text[i] != '\\') {
        s += text[i];
        advance();
        continue;
      }
      advance();
      if (i >= text.size()) break;
      const char e = text[i];
      advance();
      switch (e) {
        case 'b': s += '\b'; break;
        case 'f': s += '\f'; break;
        case 'n': s += '\n'; break;
        case 'r': s += '\r'; break;
        case 't': s += '\t'; break;
        case 'u': {
          unsigned cp = 0;
          if (!hex4(cp)) break;  // malformed: the parser reports it
          if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < text.size() && text[i] == '\\' && text[i + 1] == 'u') {
            advance();
            advance();
            unsigned lo = 0;
            if (hex4(lo) && lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          appendUtf8(s, cp);
          break;
        }
        default: s += e;  // \" \\ \/ and anything the parser will reject
      }
    }
    if (i < text.size()) advance();  // closing quote
    return s;
  }
};

}  // namespace

JsonScan scanJson(const std::string& text, int depthLimit) {
  JsonScan scan;
  std::vector<Frame> stack;
  Cursor c(text);
  while (c.i < text.size()) {
    const char ch = text[c.i];
    if (ch == '"') {
      const int line = c.line, column = c.column;
      std::string s = c.string();
      if (!stack.empty() && stack.back().object && stack.back().expectKey) {
        Frame& f = stack.back();
        f.expectKey = false;
        const auto [it, inserted] = f.keys.emplace(s, std::make_pair(line, column));
        if (!inserted) {
          JsonDuplicateKey d;
          for (std::size_t k = 0; k + 1 < stack.size(); ++k)
            d.path.push_back(stack[k].object ? JsonPathStep{false, stack[k].key, 0} : JsonPathStep{true, "", stack[k].index});
          d.key = s;
          d.line = line;
          d.column = column;
          d.firstLine = it->second.first;
          d.firstColumn = it->second.second;
          scan.duplicates.push_back(std::move(d));
        }
        f.key = std::move(s);
      }
      continue;
    }
    if (ch == '{' || ch == '[') {
      if (static_cast<int>(stack.size()) >= depthLimit) {
        scan.tooDeep = true;
        scan.line = c.line;
        scan.column = c.column;
        return scan;
      }
      Frame f;
      f.object = ch == '{';
      f.expectKey = f.object;
      stack.push_back(std::move(f));
    } else if ((ch == '}' || ch == ']') && !stack.empty()) {
      stack.pop_back();
    } else if (ch == ',' && !stack.empty()) {
      if (stack.back().object) stack.back().expectKey = true;
      else ++stack.back().index;
    }
    c.advance();
  }
  return scan;
}

}  // namespace ek
