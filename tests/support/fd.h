// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Central finite differences and the comparison used by every derivative test.

#include <functional>
#include <string>

#include "engine/core/types.h"

namespace ek::test {

/// Central-difference Jacobian of f at x with step h (per coordinate).
MatX centralDifference(const std::function<VecX(const VecX&)>& f, const VecX& x, double h);

/// Largest relative error over blocks of rows x cols: max |A - F| in a block divided by
/// max(max |F| in that block, floor * max |F| overall). Small blocks are thus compared on their
/// own scale, but entries that are round-off of zero do not dominate.
double blockRelativeError(const MatX& analytic, const MatX& fd, int rows, int cols, double floor = 1e-7);

}  // namespace ek::test
