// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file craig_bampton.h
/// Component-mode synthesis of a finite-element body (docs/flexible-bodies.md, "Reduction"):
/// Craig-Bampton's basis of static constraint modes at the interface degrees of freedom and
/// fixed-interface normal modes, and from it the free-floating body's elastic modes, which the
/// floating frame of reference carries as modal coordinates.

#include <vector>

#include "engine/fe/beam.h"

namespace ek::fe {

/// How many fixed-interface normal modes to keep: a number, or all up to a frequency.
struct ReductionOptions {
  int modes = -1;              ///< >= 0: keep this many
  double maxFrequency = 0.0;   ///< Hz, used when modes < 0: keep every mode up to it
};

/// The Craig-Bampton basis x = T [x_B; eta] of a model with stiffness K and mass M.
struct CraigBampton {
  std::vector<int> boundary;       ///< interface degrees of freedom, in the basis' column order
  MatX basis;                      ///< T, n x (nb + nm): constraint modes, then normal modes
  VecX normalFrequencies;          ///< Hz, the fixed-interface modes kept, ascending
  MatX stiffness;                  ///< T^T K T
  MatX mass;                       ///< T^T M T
};

/// Reduces (K, M) onto the interface `boundary` (distinct degrees of freedom of the model) plus
/// fixed-interface modes. Constraint modes: -K_II^-1 K_IB (unit displacement of one interface
/// degree of freedom, the others held); normal modes: K_II phi = w^2 M_II phi, the lowest ones,
/// mass-normalized (Spectra's shift-invert Lanczos about 0 for large models, dense otherwise).
/// Throws std::invalid_argument when the interface does not hold the body (K_II singular), a
/// degree of freedom is out of range or repeated, or more modes are asked than the interior has.
CraigBampton craigBampton(const SparseMatrix& K, const SparseMatrix& M, std::vector<int> boundary,
                          const ReductionOptions& options);

/// The elastic modes of the reduced body floating free: the basis' motions mass-orthogonal to
/// the six rigid-body motions `rigid` (n x 6, e.g. rigidBodyModes()), as eigenvectors of the
/// reduced pair, mass-normalized (Phi^T M Phi = I, Phi^T K Phi = diag(w^2)).
struct FreeModes {
  MatX shapes;        ///< n x r, in the model's degrees of freedom
  VecX frequencies;   ///< Hz, ascending
};
FreeModes freeFloatingModes(const CraigBampton& reduced, const MatX& rigid);

/// The lowest `count` eigenpairs of K phi = w^2 M phi by shift-invert about sigma (rad^2/s^2;
/// K - sigma M positive definite: sigma = 0 for a held body, below 0 for a free one), with
/// frequencies in Hz, ascending, and shapes mass-normalized.
struct EigenModes {
  MatX shapes;
  VecX frequencies;
};
EigenModes lowestModes(const SparseMatrix& K, const SparseMatrix& M, int count, double sigma = 0.0);

}  // namespace ek::fe
