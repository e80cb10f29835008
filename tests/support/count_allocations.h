// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file count_allocations.h
/// Counts every heap allocation of the process while gCounting is set: global operator new (all
/// forms) and, outside AddressSanitizer, malloc, calloc and realloc themselves (replaced for the
/// whole process, so allocations inside a dlopen'ed library count too). Include it in exactly one
/// file of a test executable: it defines those functions.

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
[[maybe_unused]] std::atomic<long long> gAllocations{0};
[[maybe_unused]] std::atomic<bool> gCounting{false};
}  // namespace

// malloc, calloc and realloc replaced for the whole process (glibc's own entry points behind them),
// so that allocations outside operator new, on any thread, are seen too. Not under
// AddressSanitizer, which owns malloc there (operator new is still counted).
#if defined(__SANITIZE_ADDRESS__)
#define EK_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EK_COUNT_MALLOC 0
#endif
#endif
#ifndef EK_COUNT_MALLOC
#define EK_COUNT_MALLOC 1
#endif
#if EK_COUNT_MALLOC
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* malloc(std::size_t n) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  return __libc_malloc(n);
}
void* calloc(std::size_t k, std::size_t n) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  return __libc_calloc(k, n);
}
void* realloc(void* p, std::size_t n) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  return __libc_realloc(p, n);
}
}
#endif

void* operator new(std::size_t n) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them), so that every pointer the
// replaced operator delete frees came from malloc (AddressSanitizer checks the pairing).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t a) {
  if (gCounting.load(std::memory_order_relaxed)) ++gAllocations;
  if (void* p = std::aligned_alloc(static_cast<std::size_t>(a), (n + static_cast<std::size_t>(a) - 1) &
                                                                     ~(static_cast<std::size_t>(a) - 1)))
    return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

