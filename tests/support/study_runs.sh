#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# elastokin-study from the command line: the same results file (rows sorted by run number) from
# 1 thread, 2 threads, a study stopped after 5 runs and resumed, and (when an mpirun is given)
# 2 MPI ranks on this machine.
set -u
study=$1 exe=$2 out=$3 mpirun=${4:-}
mkdir -p "$out"
sorted() { head -n 1 "$1"; tail -n +2 "$1" | sort -t, -k1,1n; }
fail() { echo "FAIL: $*"; exit 1; }

"$exe" "$study" --results "$out/one.csv" --threads 1 --fresh --quiet > "$out/one.log" || fail "1 thread: exit $?"
"$exe" "$study" --results "$out/two.csv" --threads 2 --fresh --quiet > "$out/two.log" || fail "2 threads: exit $?"
cmp <(sorted "$out/one.csv") <(sorted "$out/two.csv") || fail "2 threads differ from 1 thread"

"$exe" "$study" --results "$out/cut.csv" --threads 2 --fresh --max-runs 5 --quiet > "$out/cut.log"
rc=$?
[ "$rc" -eq 3 ] || fail "--max-runs 5: exit $rc, expected 3 (stopped)"
grep -q "stopped after 5 new runs" "$out/cut.log" || fail "no 'stopped after 5 new runs'"
"$exe" "$study" --results "$out/cut.csv" --threads 2 --quiet > "$out/resume.log" || fail "resume: exit $?"
grep -q "(7 new, 5 from the results file, 0 failed)" "$out/resume.log" || { cat "$out/resume.log"; fail "the resumed study did not run exactly the 7 others"; }
cmp <(sorted "$out/one.csv") <(sorted "$out/cut.csv") || fail "the resumed study's results differ"
echo "1 thread, 2 threads, stopped and resumed: the same $(($(wc -l < "$out/one.csv") - 1)) rows"

if [ -n "$mpirun" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  "$mpirun" -np 2 --oversubscribe "$exe" "$study" --results "$out/mpi.csv" --fresh --quiet > "$out/mpi.log" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] && ! grep -q "running on" "$out/mpi.log"; then
    # mpirun could not start the ranks (no study ran): say so, and try once more.
    echo "mpirun failed to start (exit $rc):"; cat "$out/mpi.log"
    "$mpirun" -np 2 --oversubscribe "$exe" "$study" --results "$out/mpi.csv" --fresh --quiet > "$out/mpi.log" 2>&1
    rc=$?
  fi
  [ "$rc" -eq 0 ] || { cat "$out/mpi.log"; fail "mpirun -np 2: exit $rc"; }
  grep -q "running on     2 MPI ranks" "$out/mpi.log" || { cat "$out/mpi.log"; fail "did not run on 2 MPI ranks"; }
  cmp <(sorted "$out/one.csv") <(sorted "$out/mpi.csv") || fail "2 MPI ranks differ from the local run"
  echo "mpirun -np 2 --oversubscribe: the same rows as the local run"
fi
