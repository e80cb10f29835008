#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Numbers in files and on command lines never depend on the process locale (issue 34): fails on a
# use of the C library's locale-dependent conversions anywhere in the sources (engine/core/text.h
# has the locale-free ones: parseDecimal, parseInteger, shortestText, significant, cprintf, ...).
# Only engine/core/text.cpp, which implements cprintf and its siblings, may call the printf family.
set -u
root=$1
cd "$root" || exit 1
status=0
report() {
  local what=$1 pattern=$2
  local hits
  hits=$(grep -rnE --include='*.cpp' --include='*.h' "$pattern" engine app ui bench tests/support 2>/dev/null |
         grep -v '^engine/core/text\.cpp:' | grep -vE '^[^:]+:[0-9]+:\s*//')
  if [ -n "$hits" ]; then
    echo "FAIL: $what:"
    echo "$hits"
    status=1
  fi
}
report "locale-dependent parsing (use ek::parseDecimal / ek::parseInteger)" \
  '(^|[^A-Za-z_:.])(std::)?(strtod|strtof|strtold|atof|atoi|atol|atoll|strtol|strtoll|strtoul|strtoull|sscanf|fscanf|scanf|stod|stof|stold)\s*\('
report "printf-family formatting in the process locale (use ek::cprintf, ek::cfprintf, ek::csnprintf or ek::cformat)" \
  '(^|[^A-Za-z_:.])(std::)?(printf|fprintf|snprintf|sprintf|vprintf|vfprintf|vsnprintf)\s*\('
report "std::to_string of a floating-point value (\"%f\" in the process locale; use ek::shortestText or ek::significant)" \
  'std::to_string\([^()]*(\.count\(\)|[0-9]\.[0-9]|static_cast<double>)'
[ $status -eq 0 ] && echo "no locale-dependent number conversion in engine/, app/, ui/, bench/"
exit $status
