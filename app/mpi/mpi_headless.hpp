#pragma once
/// @file `mpirun -np R simscope --headless ...` (and srun): one headless run split across the R
/// ranks (app/run/distributed_run.hpp). Rank 0 prints the job's progress and ETA, gathers and
/// merges the parts, renders and writes the outputs once, all or nothing (write_headless_outputs),
/// with run.json's "mpi" section: ranks, hosts, each rank's device, threads, range and time, the
/// load imbalance (max / mean rank time), the gather's time and bytes. Every rank: one GPU on
/// the CUDA back end (node-local rank mod the node's devices), CPU threads = OMP_NUM_THREADS when
/// set, else the cores it may run on shared among the node's ranks. A bad input on any rank:
/// rank 0 prints one error, every rank exits with status 1 (2 for a refused command line), and
/// nothing is written.
#include "run_options.hpp"

namespace simscope::app::mpi {

/// Runs this rank's share of the headless command `o` and returns its exit status.
int run_headless_ranks(const RunOptions& o);

/// CPU threads for one of the `local_ranks` ranks of this node: OMP_NUM_THREADS when set (> 0),
/// else the CPUs of this process' affinity mask, divided by `local_ranks` when the launcher did
/// not bind the process (the mask is then every CPU of the node); at least 1.
int threads_per_rank(int local_ranks);

}  // namespace simscope::app::mpi
