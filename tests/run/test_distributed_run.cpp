// One run split across ranks (distributed_run.hpp) over an in-process Communicator: R threads,
// each with its own workload, stand for R MPI ranks. The merged result equals the single run
// bit for bit; a fault on one rank only (which mpirun tests cannot stage: every rank reads the
// same files) stops every rank, rank 0 reporting that rank's message, the others JobFailed;
// agree() likewise. Independent of MPI: runs in every build.
#include <gtest/gtest.h>

#include <barrier>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

#include "../compute/test_bits.hpp"
#include "core/error.hpp"
#include "ranges/distributed_run.hpp"
#include "field/field.hpp"
#include "field/field_params.hpp"
#include "field/field_split.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/model.hpp"
#include "oscillators/oscillators_params.hpp"
#include "oscillators/study.hpp"
#include "oscillators/topology.hpp"
#include "ranges/split_merge.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "workload.hpp"
#include "study_checkpoint_v3.hpp"

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
  std::vector<double> reduce_sum(const std::vector<double>& v) override {
    g_.sums[std::size_t(rank_)] = v;
    g_.sync.arrive_and_wait();
    std::vector<double> out;
    if (rank_ == 0) {  // in rank order
      out.assign(v.size(), 0.0);
      for (const auto& s : g_.sums)
        for (std::size_t i = 0; i < out.size(); ++i) out[i] += s[i];
    }
    g_.sync.arrive_and_wait();
    return out;
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
  WorkAxis split_axis(const ParamSet& p, const std::string& a) override {
    return w_->split_axis(p, a);
  }
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

/// `stop(rank)`: the rank's DistributedOptions::stop code (none when empty); a rank that throws
/// JobStopped records "JobStopped <code>".
Outcome run_ranks(const std::string& workload, const ParamSet& p, int R, std::size_t fail_at,
                  const std::string& checkpoint = "", const std::string& axis = "",
                  const std::function<int(int)>& stop = {}) {
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
      opt.axis = axis;
      if (stop) opt.stop = [&stop, r] { return stop(r); };
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
      } catch (const JobStopped& e) {
        o.errors[std::size_t(r)] = "JobStopped " + std::to_string(e.code);
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
      EXPECT_EQ(whole.outputs[k].data.dtype(), got.outputs[k].data.dtype()) << R;
      EXPECT_TRUE(same_bits(whole.outputs[k].data.converted<double>(),
                            got.outputs[k].data.converted<double>()))
          << R;
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

TEST(DistributedRun, AStopOnSomeRanksStopsEveryRankWithTheLowestAskingRanksCode) {
  const ParamSet p = lsq_params();
  // Ranks 1 and 2 are asked to stop (SIGTERM's 15 and SIGINT's 2): every rank stops with rank
  // 1's code, none merges (an MPI front end exits 128 + it on every rank).
  const Outcome o = run_ranks("lsq", p, 3, std::size_t(-1), "", "", [](int r) {
    return r == 1 ? 15 : r == 2 ? 2 : 0;
  });
  for (int r = 0; r < 3; ++r) EXPECT_EQ(o.errors[std::size_t(r)], "JobStopped 15") << "rank " << r;
  EXPECT_TRUE(o.root.result.outputs.empty());
  // No stop asked (codes 0): the run completes.
  const Outcome fine = run_ranks("lsq", p, 2, std::size_t(-1), "", "", [](int) { return 0; });
  EXPECT_EQ(fine.errors, std::vector<std::string>(2, ""));
  EXPECT_FALSE(fine.root.result.outputs.empty());
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
    EXPECT_TRUE(same_bits(x->data.values<double>(), y->data.values<double>())) << what << ": " << name;
  }
  EXPECT_EQ(a.warnings, b.warnings) << what;
  for (const char* k : {"msd_mean", "msd_sem", "valid_members", "nonfinite_members"})
    EXPECT_EQ(a.stats.count(k) ? a.stats.at(k) : -1, b.stats.count(k) ? b.stats.at(k) : -1)
        << what << ": " << k;
}

// A study interrupted in one process (checkpoint version 3, stopped with a block under way)
// resumes across R ranks (converted to version 4), after one more block was finished out of
// order; then by one process again: every time the outputs of the uninterrupted study. With
// more ranks than blocks (9, 13 ranks on 5 blocks), the blocks are cut between ranks: the one
// under way is redone in parts, the finished ones are read in part by each rank holding some.
TEST(DistributedRun, ACheckpointedStudyResumesWithAnyRankCount) {
  namespace osc = simscope::oscillators;
  const ParamSet p = study_params();
  // The uninterrupted single-process study (its checkpointed path: run_study_blocks).
  RunRequest whole_request;
  whole_request.checkpoint = std::make_shared<StudyCheckpointRequest>();
  whole_request.checkpoint->dir = fresh_dir("ck_whole");
  const RunResult whole =
      make_workload("oscillators")->run(p, Backend::Cpu, whole_request, nullptr);

  for (int R : {1, 2, 3, 7, 9, 13}) {
    const std::string dir = fresh_dir("ck_ranks");
    {  // One process, stopped once block 1 is under way (its checkpoint then written).
      const osc::Topologies t = osc::make_topologies(p);
      const osc::State init = osc::make_initial_state(p);
      auto ens = osc::make_ensemble(Backend::Cpu);
      test::StudyCheckpointV3Writer writer(dir, "oscillators", p, Backend::Cpu);
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
    EXPECT_EQ(v1->version, 3);
    EXPECT_TRUE(v1->partial);
    const CheckpointHeader h = prepare_block_checkpoint(dir, "oscillators", p, Backend::Cpu, v1);
    EXPECT_EQ(h.version, kCheckpointVersionWritten);
    EXPECT_EQ(h.blocks_done, v1->blocks_done);
    EXPECT_TRUE(block_checkpoint_has_progress(dir, h));
    // Block 3 finished on its own (as a rank of another job would).
    StudyCheckpointRequest one;
    one.dir = dir;
    run_block_checkpointed(one, p, Backend::Cpu, IndexRange{192, 256});
    EXPECT_TRUE(std::filesystem::exists(dir + "/block_00003.json"));
    EXPECT_EQ(checkpoint_members_done(dir, *read_checkpoint_header(dir)),
              v1->blocks_done * 64 + 64);
    // R ranks resume it.
    const Outcome o = run_ranks("oscillators", p, R, std::size_t(-1), dir);
    for (int r = 0; r < R; ++r) EXPECT_EQ(o.errors[std::size_t(r)], "") << "rank " << r;
    expect_same_outputs(whole, o.root.result, std::to_string(R) + " ranks");
  }
  // A version-4 checkpoint resumed by one process (the headless runner's path).
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
  expect_same_outputs(whole, again, "one process resuming a version-4 checkpoint");
  // compute_s counts this run's integration only; the checkpointed blocks' time (blocks 1 and
  // 2, integrated above) is its own stat, and the two add up to the whole integration time.
  EXPECT_EQ(whole.stats.count("compute_s_earlier_sessions"), 0u);
  ASSERT_EQ(again.stats.count("compute_s_earlier_sessions"), 1u);
  const double earlier = again.stats.at("compute_s_earlier_sessions");
  EXPECT_GT(earlier, 0);
  EXPECT_GT(again.compute_seconds, 0);
  EXPECT_NEAR(again.compute_seconds + earlier, again.stats.at("compute_s_all_sessions"),
              1e-9 * again.stats.at("compute_s_all_sessions"));
}

ParamSet field_params(const std::string& method, const std::string& precision) {
  ParamSet p = make_workload("field")->schema().defaults();
  p.set("plane", std::string("box"));
  p.set("grid.size", std::int64_t(13));  // 6 x 13 x 13 = 1014 targets
  p.set("sources.count", std::int64_t(5000));
  p.set("method", method);
  p.set("precision", precision);
  return p;
}

/// The unsplit evaluation's fp64 sums, (targets, 4) Ex, Ey, Ez, phi (the CPU evaluator's own).
std::vector<double> unsplit_sums(const ParamSet& p) {
  const field::Sources s = field::make_sources(p);
  const field::Targets t = field::make_targets(field::grid_from(p));
  field::Options o = field::options_from(p);
  o.keep_sums64 = true;
  field::Result r;
  field::make_evaluator(field::Method::Direct, Backend::Cpu)->evaluate(s, t, o, r);
  return r.sums64;
}

/// The largest |a - b| per target over (|E| of b at that target) for the components and over
/// max |phi| of b for the potential.
double largest_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double phi_max = 0, worst = 0;
  for (std::size_t i = 0; i + 3 < b.size(); i += 4) phi_max = std::max(phi_max, std::abs(b[i + 3]));
  for (std::size_t i = 0; i + 3 < b.size(); i += 4) {
    const double e = std::sqrt(b[i] * b[i] + b[i + 1] * b[i + 1] + b[i + 2] * b[i + 2]);
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(a[i + c] - b[i + c]) / e);
    worst = std::max(worst, std::abs(a[i + 3] - b[i + 3]) / phi_max);
  }
  return worst;
}

/// The RMS relative difference of E (the tree tolerance's measure): sqrt(sum |E_a - E_b|^2 /
/// sum |E_b|^2) over the targets of (targets, 4) sums.
double rms_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i + 3 < b.size(); i += 4)
    for (int c = 0; c < 3; ++c)
      num += (a[i + c] - b[i + c]) * (a[i + c] - b[i + c]), den += b[i + c] * b[i + c];
  return std::sqrt(num / den);
}

/// Each share of the sources run on its own (the "sources" axis), R shares.
std::vector<RunResult> source_parts(const ParamSet& p, std::size_t R) {
  auto w = make_workload("field");
  const WorkAxis axis = w->split_axis(p, "sources");
  EXPECT_TRUE(axis.reduced);
  std::vector<RunResult> parts;
  for (const IndexRange& r : split_work(axis, R)) {
    RunRequest q;
    q.range = r;
    q.axis = "sources";
    parts.push_back(w->run(p, Backend::Cpu, q, nullptr));
  }
  return parts;
}

// Split by sources, fp64: the shares' fp64 fields added equal the unsplit sums within 1e-12
// relative, the float32 outputs within one rounding; the same over in-process ranks (the
// reduction to rank 0), also with more ranks than sources (empty shares add zeros).
TEST(DistributedRun, TheFieldSplitBySourcesAddsTheSharesFields) {
  const ParamSet p = field_params("direct", "fp64");
  const std::vector<double> whole = unsplit_sums(p);
  const RunResult single = make_workload("field")->run(p, Backend::Cpu, RunRequest{}, nullptr);
  for (std::size_t R : {1, 2, 3, 4, 7}) {
    std::vector<RunResult> parts = source_parts(p, R);
    const std::vector<double> added = added_sums(parts, "sum:field");
    const double d = largest_relative_difference(added, whole);
    EXPECT_LE(d, 1e-12) << R << " shares";
    std::printf("split by sources, %zu shares, fp64: largest relative difference %.3g\n", R, d);
    const RunResult merged = make_workload("field")->merge_ranges(std::move(parts));
    for (const auto& name : field::output_names()) {
      const auto& a = merged.find(name)->data.host();
      const auto& b = single.find(name)->data.host();
      ASSERT_EQ(a.size(), b.size());
      double worst = 0;
      for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(
            worst, std::abs(double(a[i]) - double(b[i])) / std::max(std::abs(double(b[i])), 1e-30));
      EXPECT_LE(worst, 1.2e-7) << name << ", " << R << " shares (one float32 rounding)";
    }
    EXPECT_EQ(merged.stats.at("sources"), 5000.0);
    EXPECT_EQ(merged.warnings, single.warnings);
  }
  for (int R : {1, 2, 3, 4}) {
    const RunResult inproc =
        run_split(*make_workload("field"), p, Backend::Cpu, std::size_t(R), nullptr, "sources");
    const Outcome o = run_ranks("field", p, R, std::size_t(-1), "", "sources");
    for (int r = 0; r < R; ++r) EXPECT_EQ(o.errors[std::size_t(r)], "") << "rank " << r;
    EXPECT_EQ(o.root.axis.name, "sources");
    EXPECT_EQ(o.root.reduced_bytes, 8.0 * 4 * 1014);
    for (const auto& name : field::output_names())
      EXPECT_TRUE(same_bits(o.root.result.find(name)->data.host(), inproc.find(name)->data.host()))
          << name << ", " << R << " ranks: the reduction adds in rank order here";
  }
  ParamSet few = p;
  few.set("sources.count", std::int64_t(3));
  const RunResult three = make_workload("field")->run(few, Backend::Cpu, RunRequest{}, nullptr);
  const Outcome o = run_ranks("field", few, 5, std::size_t(-1), "", "sources");
  for (int r = 0; r < 5; ++r) EXPECT_EQ(o.errors[std::size_t(r)], "") << "rank " << r;
  const auto& a = o.root.result.find("magnitude")->data.host();
  const auto& b = three.find("magnitude")->data.host();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], 1.2e-7 * std::abs(b[i])) << "3 sources on 5 ranks, target " << i;
}

// fp32 and the tree method split by sources: within documented bounds of the unsplit fp64 sums
// (fp32: each share's float32 pair terms; tree: each share's own tree and expansion error).
TEST(DistributedRun, TheFieldSplitBySourcesInFp32AndWithTheTree) {
  const std::vector<double> whole = unsplit_sums(field_params("direct", "fp64"));
  for (std::size_t R : {1, 2, 4}) {
    const ParamSet p32 = field_params("direct", "fp32");
    const double d32 =
        largest_relative_difference(added_sums(source_parts(p32, R), "sum:field"), whole);
    EXPECT_LE(d32, 1e-6) << R << " shares in fp32";
    // The tree: each share keeps tree.tolerance (1e-5, RMS relative) on its own field, so the
    // added field's RMS error is within it too (the shares of uniform sources do not cancel);
    // one target's largest component error is bounded looser (RMS against a maximum).
    const ParamSet pt = field_params("tree", "fp64");
    ASSERT_EQ(pt.get_double("tree.tolerance"), 1e-5);
    const std::vector<double> added = added_sums(source_parts(pt, R), "sum:field");
    const double rms = rms_relative_difference(added, whole);
    const double dt = largest_relative_difference(added, whole);
    EXPECT_LE(rms, 1e-5) << R << " shares, tree at tolerance 1e-5 (RMS)";
    EXPECT_LE(dt, 1e-4) << R << " shares, tree at tolerance 1e-5 (largest)";
    std::printf(
        "split by sources, %zu shares: fp32 %.3g, tree RMS %.3g, largest %.3g (relative "
        "differences)\n", R, d32, rms, dt);
  }
}

// Method auto split by sources resolves for the whole set, as the unsplit run does: 250000
// sources on 64 x 64 targets exceed auto's 1e9 pairs on the CPU, half of them would not; a share
// of a tree run carries its direct sums at the error view's subgrid (the added field's error).
TEST(DistributedRun, TheFieldSplitBySourcesResolvesAutoForTheWholeSet) {
  ParamSet p = make_workload("field")->schema().defaults();
  p.set("grid.size", std::int64_t(64));
  p.set("sources.count", std::int64_t(250000));
  p.set("method", std::string("auto"));
  ASSERT_EQ(field::resolve_method(field::Method::Auto, Backend::Cpu, 250000, 4096),
            field::Method::Tree);
  ASSERT_EQ(field::resolve_method(field::Method::Auto, Backend::Cpu, 125000, 4096),
            field::Method::Direct);
  RunRequest q;
  q.range = IndexRange{0, 125000};
  q.axis = "sources";
  const RunResult part = make_workload("field")->run(p, Backend::Cpu, q, nullptr);
  EXPECT_EQ(part.stats.at("method_tree"), 1.0);
  ASSERT_TRUE(part.part);
  EXPECT_EQ(part.part->length, 250000u);
  const field::ErrorSubgrid sub = field::error_subgrid(field::grid_from(p), 0, 250000);
  ASSERT_EQ(part.part->sums.count("sum:check_direct"), 1u);
  EXPECT_EQ(part.part->sums.at("sum:check_direct").size(), 4 * sub.targets.size());
}

TEST(DistributedRun, TheFieldSplitRule) {
  EXPECT_EQ(choose_field_split(1000, 10000, 1e12), "targets");
  EXPECT_EQ(choose_field_split(80000, 10000, 1e12), "targets");  // 8 x, not more
  EXPECT_EQ(choose_field_split(80001, 10000, 1e12), "sources");
  EXPECT_EQ(choose_field_split(std::size_t(1e9), std::size_t(1e9), 16e9), "sources");  // 32 GB
  EXPECT_EQ(choose_field_split(std::size_t(1e8), std::size_t(1e9), 16e9), "targets");
  EXPECT_THROW(make_workload("lsq")->split_axis(lsq_params(), "sources"), Error);
  // The workloads' choice under --mpi-split auto: the field's rule on its own counts (64 x 64
  // targets; sources over 8 per target, or over a rank's memory), the work axis for the others.
  ParamSet p = make_workload("field")->schema().defaults();
  p.set("grid.size", std::int64_t(64));
  p.set("sources.count", std::int64_t(8 * 4096));
  EXPECT_EQ(make_workload("field")->choose_split(p, 1e12), "targets");
  EXPECT_EQ(make_workload("field")->choose_split(p, 32.0 * 8 * 4096 - 1), "sources");
  p.set("sources.count", std::int64_t(8 * 4096 + 1));
  EXPECT_EQ(make_workload("field")->choose_split(p, 0), "sources");
  EXPECT_EQ(make_workload("lsq")->choose_split(lsq_params(), 1e3), "");
  EXPECT_EQ(make_workload("oscillators")->choose_split(make_workload("oscillators")->schema().defaults(), 1e3), "");
}

}  // namespace
}  // namespace simscope::app
