// SPDX-License-Identifier: GPL-3.0-or-later
// Compiled with the model layer's include view: the analysis layer sits above the model layer,
// so this include must not be found and the compilation must fail.
#include "engine/analysis/simulation.h"

int main() { return 0; }
