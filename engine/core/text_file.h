// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file text_file.h
/// Reading the small text files users hand in (signal tables, measurements, property files):
/// only regular files of a bounded size (a device or a pipe would never end), and their fields
/// as whole finite decimal numbers.

#include <cstdint>
#include <string>

namespace ek {

/// The whole file. @throws ModelError naming the file ("cannot open the file", "not a regular
/// file", "the file is larger than N MB"), `what` naming its kind in the message.
std::string readTextFile(const std::string& path, std::uintmax_t maxBytes, const std::string& what = "file");

/// A whole field as a finite decimal number (spaces, tabs and double quotes around it are
/// ignored): "0.1abc", "0x10", "inf" and "" are refused.
bool parseDecimalField(std::string field, double& out);

}  // namespace ek
