// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/model/teim_orbit.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>
#include <sstream>
#include <stdexcept>

#include "engine/core/text.h"

namespace ek {

namespace {

std::string trim(std::string_view s) {
  const auto a = s.find_first_not_of(" \t\r\f\v"), b = s.find_last_not_of(" \t\r\f\v");
  return a == std::string_view::npos ? std::string() : std::string(s.substr(a, b - a + 1));
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// The line without its comment: `$` or `!` outside quotes starts one.
std::string withoutComment(const std::string& line, bool& openQuote) {
  char quote = 0;
  for (std::size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '$' || c == '!') {
      return line.substr(0, k);
    }
  }
  openQuote = quote != 0;
  return line;
}

bool isKey(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return true;
}

/// The bad rows of one table, reported once: the first problem, then how many more rows.
struct BadRows {
  int first = 0, last = 0, count = 0;
  std::string message;
};

class Parser {
 public:
  Parser(const std::string& path, Diagnostics& diag, const TeimHeaderless& headerless)
      : path_(path), diag_(diag), headerless_(headerless) {}

  TeimFile run(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    int lineNo = 0;
    while (std::getline(in, raw)) {
      ++lineNo;
      const std::string whole = trim(raw);
      if (!whole.empty() && (whole[0] == '$' || whole[0] == '!')) {
        // A comment line; those right before a table are kept with it (not separators "$---").
        const std::string text = trim(whole.substr(1));
        if (!text.empty() && text.rfind("--", 0) != 0) pending_.push_back(text);
        continue;
      }
      bool openQuote = false;
      const std::string line = trim(withoutComment(raw, openQuote));
      if (line.empty()) continue;
      if (openQuote) error(lineNo, "a quote is not closed: " + printableExcerpt(line));
      else parseLine(line, lineNo);
      pending_.clear();
    }
    closeTable();
    return std::move(file_);
  }

 private:
  Location at(int line) const {
    Location w{path_};
    w.line = line;
    return w;
  }
  void error(int line, const std::string& what) { diag_.error(at(line), what); }

  /// The block or sub-block lines go to.
  TeimBlock* container() {
    if (file_.blocks.empty()) return nullptr;
    TeimBlock& b = file_.blocks.back();
    return inSub_ && !b.subBlocks.empty() ? &b.subBlocks.back() : &b;
  }
  std::string where() {
    TeimBlock* c = container();
    if (!c) return "the file";
    return inSub_ ? "(" + c->name + ") of [" + file_.blocks.back().name + "]" : "[" + c->name + "]";
  }

  void closeTable() {
    if (bad_.count == 0) return;
    std::string m = bad_.message;
    if (bad_.count > 1)
      m += "; " + std::to_string(bad_.count - 1) + " more row" + (bad_.count > 2 ? "s" : "") +
           " of this table cannot be read either (up to line " + std::to_string(bad_.last) + ")";
    error(bad_.first, m);
    bad_ = {};
  }

  void badRow(int line, const std::string& what) {
    if (TeimBlock* c = container(); c && c->table) c->table->bad = true;
    if (bad_.count++ == 0) bad_.first = line, bad_.message = what;
    bad_.last = line;
  }

  void parseLine(const std::string& line, int lineNo) {
    const char c0 = line[0];
    if (c0 == '[' || c0 == '(') {
      closeTable();
      const char close = c0 == '[' ? ']' : ')';
      if (line.back() != close || line.size() < 3) {
        error(lineNo, std::string(c0 == '[' ? "a block" : "a sub-block") + " name must be closed by '" + close +
                          "' at the end of the line: " + printableExcerpt(line));
        return;
      }
      const std::string name = upper(trim(line.substr(1, line.size() - 2)));
      if (!isKey(name)) {
        error(lineNo, "'" + printableExcerpt(name) + "' is not a block name (letters, digits and '_')");
        return;
      }
      if (c0 == '[') {
        if (const auto it = blockLines_.find(name); it != blockLines_.end()) {
          error(lineNo, "block [" + name + "] appears twice (first at line " + std::to_string(it->second) +
                            "); a property file gives each block once");
          skipping_ = true;
          return;
        }
        skipping_ = false;
        blockLines_[name] = lineNo;
        file_.blocks.push_back({name, lineNo, {}, {}, {}, {}});
        inSub_ = false;
        subLines_.clear();
        attributeLines_.clear();
      } else {
        if (skipping_) return;
        if (file_.blocks.empty()) {
          error(lineNo, "sub-block (" + name + ") before any block");
          return;
        }
        TeimBlock& b = file_.blocks.back();
        // Hash lookups, not a scan of the earlier ones: reading stays linear in the file's size.
        if (const auto [it, fresh] = subLines_.emplace(name, lineNo); !fresh) {
          error(lineNo, "sub-block (" + name + ") appears twice in [" + b.name + "] (first at line " +
                            std::to_string(it->second) + ")");
          return;
        }
        b.subBlocks.push_back({name, lineNo, {}, {}, {}, {}});
        inSub_ = true;
        attributeLines_.clear();
      }
      return;
    }
    if (skipping_) return;
    TeimBlock* c = container();
    if (!c) {
      error(lineNo, "expected a block such as [MDI_HEADER] before \"" + printableExcerpt(line) + "\"");
      return;
    }
    if (c0 == '{') {
      closeTable();
      const auto close = line.find('}');
      if (close == std::string::npos || close + 1 != line.size()) {
        error(lineNo, "a table's labels must be closed by '}' at the end of the line: " + printableExcerpt(line));
        return;
      }
      if (c->table) {
        error(lineNo, where() + " holds a second table (first at line " + std::to_string(c->table->line) + ")");
        skippingRows_ = true;
        return;
      }
      skippingRows_ = false;
      c->tableComments = pending_;
      TeimTable t;
      t.line = lineNo;
      std::istringstream ss(line.substr(1, close - 1));
      for (std::string label; ss >> label;) t.labels.push_back(asciiLower(label));
      if (t.labels.empty()) error(lineNo, "a table needs at least one label in '{...}'");
      c->table = std::move(t);
      return;
    }
    const auto eq = line.find('=');
    const auto quote = line.find_first_of("'\"");
    if (eq != std::string::npos && (quote == std::string::npos || eq < quote)) {
      attribute(*c, line, eq, lineNo);
      return;
    }
    if (!c->table && !inSub_ && (std::isdigit(static_cast<unsigned char>(c0)) || c0 == '-' || c0 == '+' || c0 == '.'))
      if (const auto it = headerless_.find(c->name); it != headerless_.end()) {  // rows with no '{labels}'
        TeimTable t;
        t.line = lineNo;
        t.labels = it->second;
        c->tableComments = pending_;
        c->table = std::move(t);
        skippingRows_ = false;
      }
    if (!c->table) {
      error(lineNo, "expected an attribute 'NAME = value', a table '{labels}' or a block '[NAME]' in " + where() +
                        ", found \"" + printableExcerpt(line) + "\"");
      return;
    }
    if (skippingRows_) return;
    row(*c->table, line, lineNo);
  }

  void attribute(TeimBlock& c, const std::string& line, std::size_t eq, int lineNo) {
    const std::string key = upper(trim(line.substr(0, eq)));
    if (!isKey(key)) {
      error(lineNo, "'" + printableExcerpt(trim(line.substr(0, eq))) + "' is not an attribute name (letters, digits and '_')");
      return;
    }
    std::string value = trim(line.substr(eq + 1));
    bool quoted = false;
    if (!value.empty() && (value[0] == '\'' || value[0] == '"')) {
      const auto end = value.find(value[0], 1);
      if (end + 1 != value.size()) {
        error(lineNo, key + " in " + where() + ": text after the quoted value: " + printableExcerpt(value));
        return;
      }
      value = value.substr(1, end - 1);
      quoted = true;
    } else if (value.empty()) {
      error(lineNo, key + " in " + where() + " has no value");
      return;
    }
    if (const auto [it, fresh] = attributeLines_.emplace(key, c.attributes.size()); !fresh) {
      const TeimAttribute& first = c.attributes[it->second];
      error(lineNo, key + " is given twice in " + where() + " (first at line " + std::to_string(first.line) +
                        " as " + printableExcerpt(first.value) + ", here as " + printableExcerpt(value) +
                        "); a property file gives each value once");
      return;
    }
    c.attributes.push_back({key, value, quoted, lineNo});
  }

  void row(TeimTable& t, const std::string& line, int lineNo) {
    if (line[0] == '\'' || line[0] == '"') {
      const auto end = line.find(line[0], 1);
      if (end + 1 != line.size()) badRow(lineNo, "a text row of the table in " + where() + " must be one quoted string");
      else t.textRows.push_back(line.substr(1, end - 1));
      return;
    }
    std::istringstream ss(line);
    std::vector<std::string> tokens;
    for (std::string tok; ss >> tok;) tokens.push_back(tok);
    if (tokens.size() != t.labels.size()) {
      std::string labels;
      for (const auto& l : t.labels) labels += (labels.empty() ? "" : " ") + l;
      badRow(lineNo, "a row of table {" + labels + "} in " + where() + " needs " + std::to_string(t.labels.size()) +
                         " numbers, found " + std::to_string(tokens.size()) + " values");
      return;
    }
    std::vector<double> values(tokens.size());
    for (std::size_t k = 0; k < tokens.size(); ++k)
      if (!parseTeimNumber(tokens[k], values[k])) {
        badRow(lineNo, "\"" + printableExcerpt(tokens[k]) + "\" in " + where() + " is not a finite number");
        return;
      }
    t.rows.push_back(std::move(values));
    t.rowLines.push_back(lineNo);
  }

  std::string path_;
  Diagnostics& diag_;
  const TeimHeaderless& headerless_;
  TeimFile file_;
  std::map<std::string, int> blockLines_;
  std::unordered_map<std::string, int> subLines_;                ///< the current block's sub-blocks
  std::unordered_map<std::string, std::size_t> attributeLines_;  ///< the current container's attributes
  bool inSub_ = false, skipping_ = false, skippingRows_ = false;
  BadRows bad_;
  std::vector<std::string> pending_;  ///< comment lines since the last other line
};

}  // namespace

const TeimAttribute* TeimBlock::attribute(std::string_view key) const {
  for (const TeimAttribute& a : attributes)
    if (a.key == key) return &a;
  return nullptr;
}

const TeimBlock* TeimFile::block(std::string_view name) const {
  for (const TeimBlock& b : blocks)
    if (b.name == name) return &b;
  return nullptr;
}

bool parseTeimNumber(std::string_view text, double& out) {
  std::string t(text);
  for (char& c : t)
    if (c == 'd' || c == 'D') c = 'e';
  return parseDecimal(t, out);
}

TeimFile parseTeimOrbit(const std::string& text, const std::string& path, Diagnostics& diag,
                        const TeimHeaderless& headerless) {
  return Parser(path, diag, headerless).run(text);
}

std::string writeTeimOrbit(const TeimFile& file) {
  // Quoted text and comments on one line, as the syntax has them: line breaks and other control
  // characters become spaces, a quote inside a quoted string a double quote.
  auto oneLine = [](std::string t) {
    for (char& c : t) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
      else if (c == '\'') c = '"';
    }
    return t;
  };
  std::string out;
  auto separator = [&](const std::string& name) {
    std::string n = asciiLower(name);
    const std::size_t width = 78;
    out += "$" + std::string(width > n.size() + 1 ? width - n.size() - 1 : 3, '-') + n + "\n";
  };
  auto body = [&](const TeimBlock& b) {
    std::size_t w = 0;
    for (const TeimAttribute& a : b.attributes) w = std::max(w, a.key.size());
    for (const TeimAttribute& a : b.attributes)
      out += " " + a.key + std::string(w - a.key.size(), ' ') + " = " +
             (a.quoted ? "'" + oneLine(a.value) + "'" : a.value) + "\n";
    if (!b.table) return;
    for (const std::string& c : b.tableComments) out += "$ " + oneLine(c) + "\n";
    const TeimTable& t = *b.table;
    out += "{";
    for (const std::string& l : t.labels) out += " " + l;
    out += " }\n";
    for (const std::string& r : t.textRows) out += "'" + oneLine(r) + "'\n";
    for (const auto& row : t.rows) {
      for (double v : row) {
        if (!std::isfinite(v))
          throw std::invalid_argument("[" + b.name + "]: a table value is " + shortestText(v) +
                                      " in the file's units: it does not fit a number; choose other units");
        const std::string s = shortestText(v);
        out += std::string(s.size() < 23 ? 23 - s.size() : 1, ' ') + s;
      }
      out += "\n";
    }
  };
  for (const TeimBlock& b : file.blocks) {
    separator(b.name);
    out += "[" + b.name + "]\n";
    body(b);
    for (const TeimBlock& s : b.subBlocks) {
      out += "(" + s.name + ")\n";
      body(s);
    }
  }
  return out;
}

}  // namespace ek
