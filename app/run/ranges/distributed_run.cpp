// One run split across the ranks of a job (distributed_run.hpp).
#include "ranges/distributed_run.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include "ranges/result_codec.hpp"
#include "ranges/split_merge.hpp"

namespace simscope::app {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Sum of `v` over the ranks; waits for completion, sleeping between tests.
std::vector<double> sum(Communicator& comm, const std::vector<double>& v) {
  comm.start_sum(v);
  std::vector<double> out;
  while (!comm.test_sum(out)) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return out;
}

/// Throws the first failing rank's message on rank 0, JobFailed elsewhere. Every rank calls it.
[[noreturn]] void throw_first_error(Communicator& comm, const std::string& mine) {
  const std::vector<std::string> all = comm.gather(mine);
  if (comm.rank() != 0) throw JobFailed("another rank reported the error");
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())
      throw Error(r == 0 ? all[r]
                         : "rank " + std::to_string(r) + " of " + std::to_string(all.size()) +
                               ": " + all[r]);
  throw Error("a rank failed without a message");
}

std::string encode_report(const RankReport& r) {
  std::ostringstream s;
  s.precision(17);
  s << r.rank << '\n'
    << r.host << '\n'
    << r.device << '\n'
    << r.threads << '\n'
    << r.begin << '\n'
    << r.end << '\n'
    << r.seconds << '\n'
    << r.result_bytes << '\n';
  return s.str();
}

RankReport decode_report(const std::string& text) {
  std::istringstream s(text);
  RankReport r;
  std::string line;
  auto next = [&] {
    std::getline(s, line);
    return line;
  };
  r.rank = std::stoi(next());
  r.host = next();
  r.device = next();
  r.threads = std::stoi(next());
  r.begin = std::stoull(next());
  r.end = std::stoull(next());
  r.seconds = std::stod(next());
  r.result_bytes = std::stod(next());
  return r;
}

}  // namespace

double DistributedRun::imbalance() const {
  double mx = 0, total = 0;
  int n = 0;
  for (const RankReport& r : ranks) {
    if (r.end == r.begin) continue;
    mx = std::max(mx, r.seconds), total += r.seconds, ++n;
  }
  return n > 0 && total > 0 ? mx / (total / n) : 1.0;
}

void agree(Communicator& comm, const std::string& error) {
  const std::vector<double> failed = sum(comm, {error.empty() ? 0.0 : 1.0});
  if (failed[0] > 0) throw_first_error(comm, error);
}

DistributedRun run_distributed(Workload& w, const ParamSet& params, Backend backend,
                               Communicator& comm, const DistributedOptions& options) {
  const auto t0 = Clock::now();
  const int R = comm.size(), rank = comm.rank();
  DistributedRun out;
  std::vector<IndexRange> ranges;
  std::string error;
  try {
    out.axis = w.split_axis(params, options.axis);
    ranges = split_work(out.axis, std::size_t(R));
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree(comm, error);
  const IndexRange mine = ranges[std::size_t(rank)];
  const double share =
      out.axis.length > 0 ? double(mine.end - mine.begin) / double(out.axis.length) : 0.0;

  // This rank's range runs on its own thread; this thread exchanges progress meanwhile.
  Progress progress;
  std::atomic<bool> done{false};
  RunResult part;
  double seconds = 0;
  std::thread compute([&] {
    const auto c0 = Clock::now();
    try {
      if (options.on_compute_thread) options.on_compute_thread();
      if (mine.end > mine.begin || out.axis.reduced) {
        RunRequest request;
        request.range = mine;
        request.axis = options.axis;
        request.checkpoint = options.checkpoint;
        part = w.run(params, backend, request, &progress);
      }
    } catch (const Cancelled&) {
      // Another rank failed; that rank's error is reported.
    } catch (const std::exception& e) {
      error = e.what();
    }
    seconds = since(c0);
    done = true;
  });
  bool failed = false, stopped = false;
  for (;;) {
    const bool d = done.load();
    const double f = d ? 1.0 : std::clamp(progress.fraction.load(), 0.0, 1.0);
    const int stop = options.stop ? std::max(0, options.stop()) : 0;
    const std::vector<double> s =
        sum(comm, {f * share, d ? 1.0 : 0.0, d && !error.empty() ? 1.0 : 0.0, stop ? 1.0 : 0.0});
    if (s[2] > 0) {
      failed = true;
      progress.cancel = true;
      break;
    }
    if (s[3] > 0) {  // a stop asked for: every rank ends here, together
      stopped = true;
      progress.cancel = true;
      break;
    }
    if (s[1] >= R) break;
    if (rank == 0 && options.progress) options.progress(s[0], since(t0));
    std::this_thread::sleep_for(std::chrono::duration<double>(options.poll_seconds));
  }
  compute.join();
  if (failed) throw_first_error(comm, error);
  if (stopped) {
    // Each rank's code at its own index; every rank takes the lowest asking rank's.
    std::vector<double> codes(std::size_t(R), 0.0);
    codes[std::size_t(rank)] = options.stop ? double(std::max(0, options.stop())) : 0.0;
    codes = sum(comm, codes);
    const auto first = std::find_if(codes.begin(), codes.end(), [](double c) { return c > 0; });
    throw JobStopped(first == codes.end() ? 1 : int(*first));
  }

  RankReport me = options.me;
  me.rank = rank;
  me.begin = mine.begin, me.end = mine.end;
  me.seconds = seconds;
  const bool has_part = mine.end > mine.begin || out.axis.reduced;
  if (out.axis.reduced) {
    // Added sums are reduced to rank 0, and only rank 0's part carries them.
    // Every rank has the same names and lengths; the first sum checks this.
    const auto r0 = Clock::now();
    std::vector<std::string> names;
    double length = 0;
    if (part.part)
      for (const auto& [name, v] : part.part->sums)
        if (name.rfind("sum:", 0) == 0) names.push_back(name), length += double(v.size());
    const std::vector<double> shape = sum(comm, {double(names.size()), length});
    if (shape[0] != double(R) * double(names.size()) || shape[1] != double(R) * length)
      throw Error("the ranks' parts have different sums to add (a rank without a part?)");
    for (const std::string& name : names) {
      std::vector<double> total = comm.reduce_sum(part.part->sums[name]);
      if (rank == 0)
        part.part->sums[name] = std::move(total);
      else
        part.part->sums.erase(name);
    }
    out.reduce_seconds = since(r0);
    out.reduced_bytes = 8 * length;
  }
  const auto g0 = Clock::now();
  const std::string bytes = has_part ? encode_result(part) : std::string();
  me.result_bytes = double(bytes.size());
  part = RunResult{};
  const std::vector<std::string> reports = comm.gather(encode_report(me));
  const std::vector<std::string> parts = comm.gather(bytes);
  if (rank != 0) return out;
  out.gather_seconds = since(g0);
  const auto m0 = Clock::now();
  for (const std::string& r : reports) out.ranks.push_back(decode_report(r));
  std::vector<RunResult> results;
  for (const std::string& b : parts)
    if (!b.empty()) results.push_back(decode_result(b, params));
  out.result = w.merge_ranges(std::move(results));
  out.merge_seconds = since(m0);
  out.wall_seconds = since(t0);
  return out;
}

}  // namespace simscope::app
