// SPDX-License-Identifier: GPL-3.0-or-later
// Compiled with the model layer's include view: a header of the layer itself is found.
#include "engine/model/model.h"

int main() { return ek::SuspensionModel::build ? 0 : 1; }
