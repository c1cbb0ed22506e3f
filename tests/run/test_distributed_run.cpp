// One run split across ranks (distributed_run.hpp) over an in-process Communicator: R threads,
// each with its own workload, stand for R MPI ranks. The merged result equals the single run
// bit for bit; a fault on one rank only (which mpirun tests cannot stage: every rank reads the
// same files) stops every rank, rank 0 reporting that rank's message, the others JobFailed;
// agree() likewise. Independent of MPI: runs in every build.
#include <gtest/gtest.h>

#include <barrier>
#include <mutex>
#include <thread>

#include "../compute/test_bits.hpp"
#include "core/error.hpp"
#include "distributed_run.hpp"
#include "split_merge.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

using test::same_bits;

/// The shared state of R in-process ranks: each collective is two barrier phases (deposit,
/// then read) so that consecutive collectives never mix.
struct Group {
  explicit Group(int n) : size(n), sync(n), slots(std::size_t(n)), sums(std::size_t(n)) {}
  int size;
  std::barrier<> sync;
  std::vector<std::string> slots;
  std::vector<std::vector<double>> sums;
};

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(Group& g, int rank) : g_(g), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return g_.size; }
  std::vector<std::string> gather(const std::string& mine) override {
    g_.slots[std::size_t(rank_)] = mine;
    g_.sync.arrive_and_wait();
    std::vector<std::string> out;
    if (rank_ == 0) out = g_.slots;
    g_.sync.arrive_and_wait();
    return out;
  }
  void start_sum(const std::vector<double>& v) override { pending_ = v; }
  bool test_sum(std::vector<double>& out) override {
    g_.sums[std::size_t(rank_)] = pending_;
    g_.sync.arrive_and_wait();
    out.assign(pending_.size(), 0.0);
    for (const auto& s : g_.sums)
      for (std::size_t i = 0; i < out.size(); ++i) out[i] += s[i];
    g_.sync.arrive_and_wait();
    return true;
  }

 private:
  Group& g_;
  int rank_;
  std::vector<double> pending_;
};

/// A workload that fails in the run of the range starting at `fail_at` (a bad input seen by one
/// rank only), else the wrapped one.
class FailingWorkload final : public Workload {
 public:
  FailingWorkload(std::unique_ptr<Workload> w, std::size_t fail_at)
      : w_(std::move(w)), fail_at_(fail_at) {}
  const Schema& schema() const override { return w_->schema(); }
  RunResult run(const ParamSet& p, Backend b, const RunRequest& r, Progress* pr) override {
    if (r.range && r.range->begin == fail_at_)
      throw Error("sources.npy: row 7 is not finite (injected)");
    return w_->run(p, b, r, pr);
  }
  ViewImage view_image(const RunResult& r, const std::string& v) const override {
    return w_->view_image(r, v);
  }
  std::string describe_sample(const RunResult& r, int i, int j) const override {
    return w_->describe_sample(r, i, j);
  }
  WorkAxis work_axis(const ParamSet& p) override { return w_->work_axis(p); }
  RunResult merge_ranges(std::vector<RunResult> parts) const override {
    return w_->merge_ranges(std::move(parts));
  }

 private:
  std::unique_ptr<Workload> w_;
  std::size_t fail_at_;
};

/// What each rank's run_distributed gave: rank 0's result, or the error each rank threw.
struct Outcome {
  std::vector<std::string> errors;  ///< per rank: "" (no throw), "JobFailed", or the message
  DistributedRun root;
};

Outcome run_ranks(const std::string& workload, const ParamSet& p, int R, std::size_t fail_at) {
  Group g(R);
  Outcome o;
  o.errors.resize(std::size_t(R));
  std::mutex m;
  std::vector<std::thread> ranks;
  for (int r = 0; r < R; ++r)
    ranks.emplace_back([&, r] {
      ThreadCommunicator comm(g, r);
      FailingWorkload w(make_workload(workload), fail_at);
      DistributedOptions opt;
      opt.poll_seconds = 0.01;
      try {
        DistributedRun d = run_distributed(w, p, Backend::Cpu, comm, opt);
        std::lock_guard<std::mutex> lock(m);
        if (r == 0) o.root = std::move(d);
      } catch (const JobFailed&) {
        o.errors[std::size_t(r)] = "JobFailed";
      } catch (const std::exception& e) {
        o.errors[std::size_t(r)] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  return o;
}

ParamSet lsq_params() {
  ParamSet p = make_workload("lsq")->schema().defaults();
  p.set("synth.height", std::int64_t(19));
  p.set("synth.width", std::int64_t(7));
  p.set("synth.observations", std::int64_t(10));
  p.set("synth.unknowns", std::int64_t(4));
  p.set("synth.nan_fraction", 0.4);
  return p;
}

TEST(DistributedRun, RanksMergedEqualTheSingleRun) {
  const ParamSet p = lsq_params();
  const RunResult whole = make_workload("lsq")->run(p, Backend::Cpu, RunRequest{}, nullptr);
  for (int R : {1, 2, 3, 4}) {
    const Outcome o = run_ranks("lsq", p, R, std::size_t(-1));
    for (int r = 0; r < R; ++r) EXPECT_EQ(o.errors[std::size_t(r)], "") << "rank " << r;
    const RunResult& got = o.root.result;
    ASSERT_EQ(got.outputs.size(), whole.outputs.size()) << R;
    for (std::size_t k = 0; k < whole.outputs.size(); ++k) {
      EXPECT_TRUE(same_bits(whole.outputs[k].data, got.outputs[k].data)) << R;
      EXPECT_TRUE(same_bits(whole.outputs[k].data64, got.outputs[k].data64)) << R;
      EXPECT_EQ(whole.outputs[k].shape, got.outputs[k].shape);
    }
    EXPECT_EQ(whole.warnings, got.warnings);
    ASSERT_EQ(o.root.ranks.size(), std::size_t(R));
    std::size_t next = 0;
    for (int r = 0; r < R; ++r) {
      EXPECT_EQ(o.root.ranks[std::size_t(r)].rank, r);
      EXPECT_EQ(o.root.ranks[std::size_t(r)].begin, next);
      next = o.root.ranks[std::size_t(r)].end;
    }
    EXPECT_EQ(next, 19u);
    EXPECT_GE(o.root.imbalance(), 1.0);
  }
}

TEST(DistributedRun, AFaultOnOneRankStopsEveryRankWithItsMessage) {
  const ParamSet p = lsq_params();
  // 19 rows over 3 ranks: [0, 7), [7, 13), [13, 19); rank 1 fails.
  const Outcome o = run_ranks("lsq", p, 3, 7);
  EXPECT_EQ(o.errors[0], "rank 1 of 3: sources.npy: row 7 is not finite (injected)");
  EXPECT_EQ(o.errors[1], "JobFailed");
  EXPECT_EQ(o.errors[2], "JobFailed");
  // Rank 0 itself fails: its message as it is.
  const Outcome z = run_ranks("lsq", p, 2, 0);
  EXPECT_EQ(z.errors[0], "sources.npy: row 7 is not finite (injected)");
  EXPECT_EQ(z.errors[1], "JobFailed");
}

TEST(DistributedRun, AgreeReportsTheFirstFailingRank) {
  Group g(3);
  std::vector<std::string> errors(3);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 3; ++r)
    ranks.emplace_back([&, r] {
      ThreadCommunicator comm(g, r);
      try {
        agree(comm, "");  // all fine: nothing thrown
        agree(comm, r == 2 ? "design.file: cannot open" : "");
      } catch (const JobFailed&) {
        errors[std::size_t(r)] = "JobFailed";
      } catch (const std::exception& e) {
        errors[std::size_t(r)] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  EXPECT_EQ(errors[0], "rank 2 of 3: design.file: cannot open");
  EXPECT_EQ(errors[1], "JobFailed");
  EXPECT_EQ(errors[2], "JobFailed");
}

}  // namespace
}  // namespace simscope::app
