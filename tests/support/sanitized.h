// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file sanitized.h
/// EK_SANITIZED is defined in a test built with AddressSanitizer (scripts/sanitize.sh), where a
/// run takes about fifty times as long as in the normal build. The few test functions that repeat
/// long runs to compare them run their code paths once there, shorter, and leave the comparison to
/// the normal build with a QSKIP that says so (docs/robustness.md lists them).
#if defined(__SANITIZE_ADDRESS__)
#define EK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EK_SANITIZED 1
#endif
#endif
