// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/schema_check.h"

#include <algorithm>

namespace ek::test {

namespace {

const Json& resolve(const Json& schema, const Json& node) {
  if (node.contains("$ref")) {
    const std::string ref = node["$ref"];  // "#/$defs/name"
    return resolve(schema, schema["$defs"][ref.substr(ref.rfind('/') + 1)]);
  }
  return node;
}

}  // namespace

void checkAgainstSchema(const Json& schema, const Json& node, const Json& value, const std::string& path,
                        std::vector<std::string>& problems) {
  const Json& n = resolve(schema, node);
  const bool requiredAlternatives =
      n.contains("oneOf") && std::all_of(n["oneOf"].begin(), n["oneOf"].end(), [](const Json& a) {
        return a.is_object() && a.size() == 1 && a.contains("required");
      });
  if (requiredAlternatives) {  // exactly one set of required keys present, then the node's own properties
    int matches = 0;
    for (const Json& alt : n["oneOf"])
      matches += value.is_object() && std::all_of(alt["required"].begin(), alt["required"].end(), [&](const Json& k) {
                   return value.contains(k.get<std::string>());
                 });
    if (matches != 1) problems.push_back(path + ": has the keys of " + std::to_string(matches) + " alternatives, not 1");
  } else if (n.contains("oneOf")) {
    for (const Json& alt : n["oneOf"]) {
      const Json& a = resolve(schema, alt);
      const std::string type = a.value("type", "");
      if ((value.is_object() && type == "object") || (value.is_number() && type == "number") ||
          (value.is_string() && type == "string" && (!a.contains("enum") || std::find(a["enum"].begin(), a["enum"].end(), value) != a["enum"].end()))) {
        checkAgainstSchema(schema, a, value, path, problems);
        return;
      }
    }
    problems.push_back(path + ": matches no alternative");
    return;
  }
  if (value.is_object()) {
    if (!n.contains("properties")) {
      problems.push_back(path + ": object where the schema has none");
      return;
    }
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!n["properties"].contains(it.key())) problems.push_back(path + "." + it.key() + ": not in the schema");
      else checkAgainstSchema(schema, n["properties"][it.key()], it.value(), path + "." + it.key(), problems);
    }
  } else if (value.is_array() && n.contains("items") && n["items"].is_object()) {
    for (std::size_t k = 0; k < value.size(); ++k)
      checkAgainstSchema(schema, n["items"], value[k], path + "[" + std::to_string(k) + "]", problems);
  }
}

}  // namespace ek::test
