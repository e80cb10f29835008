// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A check of a JSON document against the project's JSON schemas (resources/*.schema.json): every
/// key must be a property the schema allows at that place; "oneOf" picks the alternative of the
/// value's type (object, number, or a string from an enum).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ek::test {

using Json = nlohmann::json;

void checkAgainstSchema(const Json& schema, const Json& node, const Json& value, const std::string& path,
                        std::vector<std::string>& problems);

}  // namespace ek::test
