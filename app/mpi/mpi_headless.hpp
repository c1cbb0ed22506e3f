#pragma once
/// @file `mpirun -np R simscope --headless ...` or srun: one headless run split across R ranks.
/// Uses app/run/ranges/distributed_run.hpp. Rank 0 prints progress and ETA, gathers and merges the parts,
/// and writes the outputs once, all or nothing (write_headless_outputs). run.json's "mpi" section
/// holds ranks, hosts, each rank's device, threads, range and time, the load imbalance (max / mean
/// rank time), and the gather's time and bytes.
/// Each rank uses one GPU on the CUDA back end: node-local rank mod the node's devices. CPU threads
/// are OMP_NUM_THREADS when set, else the usable cores shared among the node's ranks.
/// A bad input on any rank: rank 0 prints one error, every rank exits 1 (2 for a refused command
/// line), and nothing is written.
#include "run_options.hpp"

namespace simscope::app::mpi {

/// Runs this rank's share of the headless command `o` and returns its exit status.
int run_headless_ranks(const RunOptions& o);

/// CPU threads for one of `local_ranks` ranks on this node, at least 1.
/// OMP_NUM_THREADS when set and > 0; else the CPUs of this process' affinity mask, divided by
/// `local_ranks` when the launcher did not bind the process and the mask holds every CPU.
int threads_per_rank(int local_ranks);

}  // namespace simscope::app::mpi
