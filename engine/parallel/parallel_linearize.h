// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file parallel_linearize.h
/// The linearization (linearize.h) on the threads of a WorkerPool, with the same results as the
/// serial one, bit for bit: every quantity is computed by exactly one thread with the serial
/// code, and every sum receives its terms in the serial order.
///
/// Each free body belongs to one thread: a given preference (the parallel LSRT2 step passes the
/// topology solver's subtrees, labelled to agree with the ranges), else contiguous ranges of
/// state slots of about equal cost (element halves per row). What matters on two cores is
/// locality: data written by one core and read by the other costs more than the arithmetic
/// saved, and rows of different threads that share cache lines cost most (measured, median
/// linearization, two threads against one, blocks of 500 alternating: splitting every stage
/// evenly regardless of who wrote its inputs gained nothing on the full vehicle; rows by the
/// solver's subtrees, interleaved in the workspace, 25 us against 22 us serial on the double
/// wishbone; contiguous ranges 15.5 us). So each thread works on its own bodies from kinematics
/// to assembly, and only the elements between bodies of different threads cross. Three parallel regions, each ended by the pool's join:
/// 1. body kinematics of the thread's bodies (driven bodies on thread 0), their markers', and the
///    elements all of whose moving sides are the thread's;
/// 2. the other ("cross") elements, balanced by cost (a bushing counts three P2Ps);
/// 3. by rows: each thread clears its bodies' rows, adds the element halves acting on them
///    (elements in the serial order), the body forces, and assembles h, J_r, J_v, K and N.
/// Wheel loads (K&C analyses only) need all rows first: then body forces run on the calling
/// thread and the assembly in a fourth region.

#include <vector>

#include "engine/parallel/worker_pool.h"
#include "engine/dynamics/linearize.h"

namespace ek {

/// A caller's own work per free body, run on the body's thread inside the linearization's
/// regions (no extra handoff): body(l) right after body l's kinematics, row(l) right after row l
/// is assembled (when every body's body() has run).
class RowWork {
 public:
  virtual void body(int l) = 0;
  virtual void row(int l) = 0;

 protected:
  ~RowWork() = default;
};

class ParallelLinearizer {
 public:
  /// @param preferred thread of each free body (state slot), -1 for "any" (then the thread of
  /// its contiguous range); empty: no preference.
  ParallelLinearizer(const SuspensionModel& model, WorkerPool& pool, const std::vector<int>& preferred = {});

  /// The thread of each free body when the state slots are cut into `threads` contiguous ranges
  /// of about equal cost (element halves per row).
  static std::vector<int> contiguousRanges(const SuspensionModel& model, int threads);

  /// linearize(model, state, u, uDot, ws, options) on the pool, with the caller's work per body
  /// (null: none).
  void linearize(const State& state, const VecX& u, const VecX& uDot, Workspace& ws,
                 const LinearizeOptions& options = {}, RowWork* work = nullptr);

  /// The free bodies (state slots, increasing) whose rows thread t computes.
  const std::vector<int>& rowsOf(int t) const { return rows_[t]; }

 private:
  struct ScatterItem {
    ElementRef element;
    RowBlock block;  ///< in this thread's rows
  };
  const SuspensionModel& model_;
  WorkerPool& pool_;
  std::vector<std::vector<int>> rows_, markers_;
  /// Per thread, the elements it computes after its kinematics (local) and in the second region
  /// (cross): bushings (batched, calcBushingList()) and P2P elements, by index.
  struct ElementLists {
    std::vector<int> bushings, p2ps;
  };
  std::vector<ElementLists> local_, cross_;
  bool hasCross_ = false;
  std::vector<std::vector<ScatterItem>> scatter_;
  /// Steering racks, tyres and flexible bodies: evaluated and added to the rows on the calling
  /// thread between the bushings' and P2P elements' blocks and the body forces (the order of the
  /// serial stages); a flexible body's rows after every row's body forces.
  bool serialTail_ = false;
  std::vector<std::vector<int>> tyres_;  ///< per thread, the wheels whose tyre contacts it computes
  bool flexible_ = false;
  std::vector<char> modalSlot_;  ///< per free body: a flexible body's modal slot
  std::vector<char> unitMaps_;  ///< per free body: a tyre's slot (unit maps, calcTyreKinematics())
};

}  // namespace ek
