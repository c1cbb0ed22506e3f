// One run split across ranks (distributed_run.hpp) over an in-process Communicator: R threads,
// each with its own workload, stand for R MPI ranks. The merged result equals the single run
// bit for bit; a fault on one rank only (which mpirun tests cannot stage: every rank reads the
// same files) stops every rank, rank 0 reporting that rank's message, the others JobFailed;
// agree() likewise. Independent of MPI: runs in every build.
#include <gtest/gtest.h>

#include <barrier>
#include <filesystem>
#include <mutex>
#include <thread>

#include "../compute/test_bits.hpp"
#include "core/error.hpp"
#include "distributed_run.hpp"
#include "split_merge.hpp"
#include "study_checkpoint.hpp"
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

Outcome run_ranks(const std::string& workload, const ParamSet& p, int R, std::size_t fail_at,
                  const std::string& checkpoint = "") {
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
      if (!checkpoint.empty()) {
        opt.checkpoint = std::make_shared<StudyCheckpointRequest>();
        opt.checkpoint->dir = checkpoint;
        opt.checkpoint->resume = true;
      }
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
      EXPECT_TRUE(same_bits(whole.outputs[k].data.host(), got.outputs[k].data.host())) << R;
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

ParamSet study_params() {
  ParamSet p = make_workload("oscillators")->schema().defaults();
  p.set("ensemble.size", std::int64_t(300));  // 5 blocks of 64 (the last 44)
  p.set("network.nodes", std::int64_t(6));
  p.set("network.topology", std::string("watts_strogatz"));
  p.set("network.k", std::int64_t(2));
  p.set("integrator.steps", std::int64_t(400));
  p.set("integrator.transient", std::int64_t(100));
  p.set("integrator.dt", 0.3);  // some members go non-finite
  return p;
}

std::string fresh_dir(const std::string& name) {
  const std::string d = std::string(SIMSCOPE_TEST_TMP) + "/" + name;
  std::filesystem::remove_all(d);
  return d;
}

void expect_same_outputs(const RunResult& a, const RunResult& b, const std::string& what) {
  for (const char* name : {"msd", "msd_t", "order_t", "phases", "state"}) {
    const OutputArray* x = a.find(name);
    const OutputArray* y = b.find(name);
    ASSERT_TRUE(x && y) << what << ": " << name;
    EXPECT_EQ(x->shape, y->shape) << what << ": " << name;
    EXPECT_TRUE(same_bits(x->data64, y->data64)) << what << ": " << name;
  }
  EXPECT_EQ(a.warnings, b.warnings) << what;
  for (const char* k : {"msd_mean", "msd_sem", "valid_members", "nonfinite_members"})
    EXPECT_EQ(a.stats.count(k) ? a.stats.at(k) : -1, b.stats.count(k) ? b.stats.at(k) : -1)
        << what << ": " << k;
}

// A study interrupted in one process (checkpoint version 1, stopped with a block under way)
// resumes across R ranks (converted to version 2), after one more block was finished out of
// order; then by one process again: every time the outputs of the uninterrupted study.
TEST(DistributedRun, ACheckpointedStudyResumesWithAnyRankCount) {
  namespace osc = simscope::oscillators;
  const ParamSet p = study_params();
  // The uninterrupted single-process study (its checkpointed path: run_study_blocks).
  RunRequest whole_request;
  whole_request.checkpoint = std::make_shared<StudyCheckpointRequest>();
  whole_request.checkpoint->dir = fresh_dir("ck_whole");
  const RunResult whole =
      make_workload("oscillators")->run(p, Backend::Cpu, whole_request, nullptr);

  for (int R : {1, 2, 3, 7}) {
    const std::string dir = fresh_dir("ck_ranks");
    {  // One process, stopped once block 1 is under way (its checkpoint then written).
      const osc::Topologies t = osc::make_topologies(p);
      const osc::State init = osc::make_initial_state(p);
      auto ens = osc::make_ensemble(Backend::Cpu);
      StudyCheckpointWriter writer(dir, "oscillators", p, Backend::Cpu, std::nullopt);
      osc::StudyProgress sp;
      osc::StudyCheckpointing cp;
      cp.interval_s = 0;
      cp.save = [&](const osc::StudyProgress& now) {
        writer.write(now);
        if (now.blocks_done >= 1 && now.partial) throw Error("stopped (test)");
      };
      EXPECT_THROW(osc::run_study_blocks(*ens, t, init, osc::study_options_from(p), sp, cp), Error);
    }
    const auto v1 = read_checkpoint_header(dir);
    ASSERT_TRUE(v1);
    EXPECT_EQ(v1->version, 1);
    EXPECT_TRUE(v1->partial);
    const CheckpointHeader h = prepare_block_checkpoint(dir, "oscillators", p, Backend::Cpu, v1);
    EXPECT_EQ(h.version, 2);
    EXPECT_EQ(h.blocks_done, v1->blocks_done);
    EXPECT_TRUE(block_checkpoint_has_progress(dir, h));
    // Block 3 finished on its own (as a rank of another job would).
    StudyCheckpointRequest one;
    one.dir = dir;
    run_block_checkpointed(one, p, Backend::Cpu, IndexRange{192, 256});
    EXPECT_TRUE(std::filesystem::exists(dir + "/block_00003.json"));
    // R ranks resume it.
    const Outcome o = run_ranks("oscillators", p, R, std::size_t(-1), dir);
    for (int r = 0; r < R; ++r) EXPECT_EQ(o.errors[std::size_t(r)], "") << "rank " << r;
    expect_same_outputs(whole, o.root.result, std::to_string(R) + " ranks");
  }
  // A version-2 checkpoint resumed by one process (the headless runner's path).
  const std::string dir = fresh_dir("ck_single");
  prepare_block_checkpoint(dir, "oscillators", p, Backend::Cpu, std::nullopt);
  StudyCheckpointRequest one;
  one.dir = dir;
  run_block_checkpointed(one, p, Backend::Cpu, IndexRange{64, 192});
  RunRequest resume;
  resume.checkpoint = std::make_shared<StudyCheckpointRequest>();
  resume.checkpoint->dir = dir;
  resume.checkpoint->resume = true;
  const RunResult again = make_workload("oscillators")->run(p, Backend::Cpu, resume, nullptr);
  expect_same_outputs(whole, again, "one process resuming a version-2 checkpoint");
}

}  // namespace
}  // namespace simscope::app
