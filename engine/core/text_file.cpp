// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/text_file.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace ek {

std::string readTextFile(const std::string& path, std::uintmax_t maxBytes, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw ModelError({path}, std::filesystem::exists(path, ec) ? "the " + what + " is not a regular file"
                                                               : "cannot open the " + what);
  if (std::filesystem::file_size(path, ec) > maxBytes)
    throw ModelError({path}, "the " + what + " is larger than " + std::to_string(maxBytes >> 20) + " MB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError({path}, "cannot open the " + what);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool parseDecimalField(std::string field, double& out) {
  const auto a = field.find_first_not_of(" \t\""), b = field.find_last_not_of(" \t\"");
  if (a == std::string::npos) return false;
  field = field.substr(a, b - a + 1);
  return parseDecimal(field, out);
}

}  // namespace ek
