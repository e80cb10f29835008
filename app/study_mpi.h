// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// @file study_mpi.h
/// Studies over MPI ranks (Open MPI): rank 0 runs the study, hands designs to the other ranks as
/// they become free (dynamic scheduling: runs differ in length) and gathers their results; it can
/// run designs on its own threads too. Every rank reads the study itself (a shared file system, as
/// on a cluster). Only the main thread calls MPI (MPI_THREAD_FUNNELED).

#include <memory>
#include <string>

#include "engine/analysis/study_runner.h"

namespace ek::mpi {

/// True when this process was started by mpirun/mpiexec or srun (MPI is then initialized);
/// false for a plain start, which runs on local threads without MPI.
bool launched();
void initialize(int* argc, char*** argv);
void finalize();
int rank();
int size();
/// Stops every rank (a rank that cannot go on).
[[noreturn]] void abort(int code);

/// Rank 0's executor: `localThreads` designs on its own threads (0: schedule only) and one on
/// every other rank. Its destructor releases the other ranks.
std::unique_ptr<StudyExecutor> makeExecutor(const StudyContext& context, int localThreads);

/// Ranks other than 0: evaluate what rank 0 sends until it says stop.
void serve(const StudyContext& context);

}  // namespace ek::mpi
