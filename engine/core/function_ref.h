// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file function_ref.h
/// A non-owning reference to a callable (a lambda of the caller's frame): one indirect call,
/// no allocation, no copy of the callable. For work handed across an interface once per region
/// (StageRunner), never per element.

#include <type_traits>
#include <utility>

namespace ek {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  /// @pre f outlives this reference (pass a lambda straight to the call that uses it).
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F&& f) noexcept  // NOLINT(google-explicit-constructor): converts like std::function
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace ek
