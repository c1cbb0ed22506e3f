// One headless run split across MPI ranks (mpi_headless.hpp).
#include "mpi_headless.hpp"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <thread>

#include "job/checkpoint.hpp"
#include "core/backend.hpp"
#include "ranges/distributed_run.hpp"
#include "headless_output.hpp"
#include "output/json.hpp"
#include "mpi_job.hpp"
#include "output_checks.hpp"
#include "progress_line.hpp"
#include "session.hpp"
#include "stop_signals.hpp"

namespace simscope::app::mpi {
namespace {

/// run.json's "mpi" section.
Json mpi_section(const DistributedRun& d, const Job& job) {
  Json m;
  m["ranks"] = job.size();
  std::set<std::string> hosts;
  for (const RankReport& r : d.ranks) hosts.insert(r.host);
  m["hosts"] = std::vector<std::string>(hosts.begin(), hosts.end());
  m["axis"] = d.axis.name;
  m["axis_length"] = d.axis.length;
  Json ranks = Json::array();
  double bytes = 0;
  for (const RankReport& r : d.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"host", r.host},
                     {"device", r.device},
                     {"threads", r.threads},
                     {"range", {r.begin, r.end}},
                     {"seconds", r.seconds},
                     {"result_bytes", r.result_bytes}});
    bytes += r.result_bytes;
  }
  m["per_rank"] = ranks;
  m["load_imbalance"] = d.imbalance();
  m["wall_seconds"] = d.wall_seconds;
  m["gather_seconds"] = d.gather_seconds;
  m["merge_seconds"] = d.merge_seconds;
  m["gathered_bytes"] = bytes;
  if (d.axis.reduced) {
    m["reduce_seconds"] = d.reduce_seconds;
    m["reduced_bytes_per_rank"] = d.reduced_bytes;
  }
  return m;
}

/// A command-line choice this job cannot take: exit status 2, like a refused command line.
class Refused : public Error {
 public:
  using Error::Error;
};

/// Host memory one of `local_ranks` ranks on this node may use: the node's memory / local ranks.
double memory_share(int local_ranks) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return double(pages) * double(page) / std::max(1, local_ranks);
}

void print_error(const std::string& what) {
  std::fprintf(stderr, "simscope: error: %s\n", what.c_str());
}

}  // namespace

int threads_per_rank(int local_ranks) {
  if (const char* s = std::getenv("OMP_NUM_THREADS"); s && std::atoi(s) > 0) return std::atoi(s);
  cpu_set_t set;
  CPU_ZERO(&set);
  int mine = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) mine = CPU_COUNT(&set);
  const int node = int(std::thread::hardware_concurrency());
  if (mine <= 0) mine = node > 0 ? node : 1;
  if (node > 0 && mine >= node) mine /= std::max(1, local_ranks);  // not bound: share the node
  return std::max(1, mine);
}

int run_headless_ranks(const RunOptions& o) {
  std::unique_ptr<Job> job;
  try {
    job = Job::join();
  } catch (const LaunchRefused& e) {  // before MPI started: rank 0 says it, the others wait
    if (launched_rank() == 0) print_error(e.what());
    return exit_after_rank0(2);
  } catch (const AgreedError& e) {  // the same on every rank: one copy, and exit 2 as the CLI's
    if (launched_rank() == 0) print_error(e.what());
    return 2;
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  // SIGINT and SIGTERM stop every rank in order at the next progress exchange; exit 128 + the
  // signal. mpirun and srun send SIGTERM to every rank when stopped.
  install_stop_handlers();
  const bool root = job->rank() == 0;
  Communicator& world = job->world();
  int code = 0;
  std::string error;
  std::optional<Session> s;
  const std::string dir = o.out_dir.empty() ? "simscope-out" : o.out_dir;
  // Set-up on every rank, with the same command line and normally the same outcome.
  // Rank 0 checks the output folder, which it writes.
  std::shared_ptr<CheckpointRequest> ck;
  bool fresh_checkpoint = false;
  std::string axis;                        // the axis split (empty: the workload's work_axis)
  try {
    s.emplace(make_session(o));
    // The axis: the user's --mpi-split where the workload splits more than one way, else
    // Workload::choose_split.
    const WorkloadDescriptor& d = workload_descriptor(s->workload->name());
    if (o.mpi_split == "auto") {
      axis = s->workload->choose_split(s->params, memory_share(job->local_size()));
    } else if (d.split_axes.size() > 1) {
      axis = o.mpi_split;
    } else {
      std::string who, ways;  // the workloads that split more than one way, and their axes
      for (const WorkloadDescriptor& w : workloads())
        if (w.split_axes.size() > 1) {
          who += (who.empty() ? "" : ", ") + w.name;
          for (std::size_t k = 0; k < w.split_axes.size(); ++k)
            ways += (k == 0 ? "" : k + 1 == w.split_axes.size() ? " or " : ", ") + w.split_axes[k];
        }
      throw Refused("--mpi-split " + o.mpi_split + ": only the " + who + " splits by " + ways +
                    "; " + s->workload->name() + " runs split by " +
                    s->workload->work_axis(s->params).name);
    }
    if (root) {
      check_output_dir(dir);
      if (!o.out_image.empty()) check_output_file(o.out_image, dir);
    }
    // A study keeps a checkpoint that any rank count resumes (checkpoint.hpp).
    // Every rank checks it, so a refusal gives status 2 on every rank.
    ck = open_checkpoint(s->workload->name(), s->params, s->backend.backend, dir, o.resume,
                         o.checkpoint_interval);
  } catch (const CheckpointRefused& e) {
    error = e.what(), code = 2;
  } catch (const Refused& e) {
    error = e.what(), code = 2;
  } catch (const std::exception& e) {
    error = e.what(), code = 1;
  }
  try {
    agree(world, error);
    // Then rank 0 prepares the checkpoint for the ranks: new, or converted.
    error.clear();
    if (root && ck) {
      try {
        fresh_checkpoint = ck->prepare_for_ranks(s->params, s->backend.backend);
      } catch (const std::exception& e) {
        error = e.what(), code = 1;
      }
    }
    agree(world, error);
  } catch (const JobFailed&) {
    return code ? code : 1;
  } catch (const std::exception& e) {
    print_error(e.what());
    return code ? code : 1;
  }
  // A job that fails before any block of a new study was saved leaves no checkpoint.
  auto drop_empty_checkpoint = [&] {
    if (!root || !ck || !fresh_checkpoint) return;
    if (ck->saved_nothing()) remove_checkpoint(ck->dir);
  };
  // Stopped by a signal: rank 0 prints the single-process line; every rank exits 128 + the signal.
  auto interrupted = [&](int sig) {
    drop_empty_checkpoint();
    if (root)
      std::fprintf(stderr, "simscope: %s\n",
                   interrupted_message(signal_name(sig), ck.get()).c_str());
    return 128 + sig;
  };

  const int threads = threads_per_rank(job->local_size());
  const Backend backend = s->backend.backend;
  DistributedOptions opt;
  opt.me.host = job->host();
  opt.me.threads = threads;
  opt.me.device = "cpu";
  int device = -1;
  if (backend == Backend::Cuda) {
    const int n = cuda_device_count();
    device = n > 0 ? job->local_rank() % n : 0;
    opt.me.device = cuda_status().device + " (device " + std::to_string(device) + ")";
  }
  opt.checkpoint = ck;
  opt.axis = axis;
  opt.stop = [] { return stop_signal(); };
  opt.on_compute_thread = [threads, device] {
    omp_set_num_threads(threads);
    if (device >= 0) cuda_select_device(device);
  };
  ProgressLine line(s->workload->name() + " on " + std::to_string(job->size()) + " ranks", o.quiet);
  const WorkloadDescriptor& described = workload_descriptor(s->workload->name());
  if (described.work)  // e.g. a study's work: the rate and the whole's time
    line.set_work(described.work(s->params), described.work_unit);
  if (root) opt.progress = [&line](double f, double t) { line.update(f, t); };
  if (root && !o.quiet && !s->backend.notice.empty())
    std::fprintf(stderr, "simscope: %s (each of %d ranks: %s, CPU threads: %d)\n",
                 s->backend.notice.c_str(), job->size(),
                 backend == Backend::Cuda ? "one GPU" : "CPU", threads);
  DistributedRun d;
  try {
    d = run_distributed(*s->workload, s->params, backend, world, opt);
  } catch (const JobFailed&) {
    return 1;
  } catch (const JobStopped& e) {
    line.clear();
    return interrupted(e.code);
  } catch (const std::exception& e) {
    line.clear();
    drop_empty_checkpoint();
    print_error(e.what());
    return 1;
  }
  line.clear();
  if (!root) return 0;
  if (const int sig = stop_signal()) return interrupted(sig);  // after the run: nothing written
  // The job's wall time. The merged compute_seconds is the ranks' sum, in rank-seconds.
  d.result.total_seconds = d.wall_seconds;
  try {
    write_headless_outputs(o, *s, *s->workload, d.result, dir, {{"mpi", mpi_section(d, *job)}},
                           true);
    if (ck) remove_checkpoint(ck->dir);  // the outputs are complete
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  return 0;
}

}  // namespace simscope::app::mpi
