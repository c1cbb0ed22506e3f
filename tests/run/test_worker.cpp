// The worker thread: a newer request supersedes older work (the running job is cancelled and
// its result never published), errors come back as text, previews precede full results.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "job/worker.hpp"

namespace simscope::app {
namespace {

const Schema& fake_schema() {
  static const Schema s("fake", {{"n", ParamType::Int, std::int64_t(1), 0, 1000, {}, "", "id"},
                                 {"ms", ParamType::Int, std::int64_t(0), 0, 10000, {}, "", "ms"},
                                 {"fail", ParamType::Bool, false, 1, 0, {}, "", "throw"}});
  return s;
}

/// Takes `ms` milliseconds in 1 ms steps, checking for cancellation; returns n as a 1x1 output.
/// Its compute_seconds: kPreviewSeconds for a preview, kFullSeconds for a full run.
class FakeWorkload final : public Workload {
 public:
  static constexpr double kPreviewSeconds = 0.5, kFullSeconds = 0.25;
  explicit FakeWorkload(std::atomic<int>* finished, std::atomic<int>* warmed = nullptr)
      : finished_(finished), warmed_(warmed) {}
  const Schema& schema() const override { return fake_schema(); }
  RunResult run(const ParamSet& p, Backend b, const RunRequest& req, Progress* progress) override {
    if (p.get_bool("fail")) throw Error("fake: bad input");
    const int ms = int(p.get_int("ms"));
    for (int i = 0; i < ms; ++i) {
      progress->check();
      progress->set(double(i) / ms);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    RunResult r;
    r.params = p;
    r.backend = b;
    r.preview = req.preview;
    r.compute_seconds = req.preview ? kPreviewSeconds : kFullSeconds;
    r.outputs.push_back({"n", "n", "", io::DType::Float32, {1, 1}, {float(p.get_int("n"))}});
    ++*finished_;
    if (req.defer_checks && !req.preview) deferred_ = r;  // follow_up(): 10 n
    return r;
  }
  std::optional<RunResult> follow_up(Progress*) override {
    if (!deferred_) return std::nullopt;
    RunResult r = std::move(*deferred_);
    deferred_.reset();
    r.outputs.front().data = std::vector<float>{10 * r.outputs.front().host().front()};
    return r;
  }
  void warm_up(Progress* progress) override {
    progress->check();
    if (warmed_) ++*warmed_;
  }
  ViewImage view_image(const RunResult&, const std::string&) const override { return {}; }
  std::string describe_sample(const RunResult&, int, int) const override { return ""; }

 private:
  std::atomic<int>* finished_;
  std::atomic<int>* warmed_;
  std::optional<RunResult> deferred_;
};

ParamSet params(int n, int ms, bool fail = false) {
  ParamSet p = fake_schema().defaults();
  p.set("n", std::int64_t(n));
  p.set("ms", std::int64_t(ms));
  p.set("fail", fail);
  return p;
}

std::optional<Worker::Event> wait_event(Worker& w, double seconds = 10) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (auto e = w.poll()) return e;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return std::nullopt;
}

TEST(Worker, NewerRequestSupersedesTheRunningOne) {
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  w.submit(params(1, 5000), Backend::Cpu, false);  // long
  // Superseded while it runs: wait (up to 60 s, for a loaded machine) until it reports progress.
  for (int i = 0; i < 30000 && w.progress() == 0.0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_GT(w.progress(), 0.0);
  EXPECT_TRUE(w.busy());
  w.submit(params(2, 5), Backend::Cpu, false);
  const auto e = wait_event(w);
  ASSERT_TRUE(e && e->result) << "no result";
  EXPECT_EQ(e->result->outputs[0].host()[0], 2.0f) << "the newest request's result";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(w.poll().has_value()) << "the superseded job published nothing";
  EXPECT_EQ(finished.load(), 1) << "the superseded job was cancelled, not finished";
  EXPECT_FALSE(w.busy());
}

// The window's worker (set_interactive): each full result is followed by the workload's
// follow_up(), as a second event, in that order (the frame first, its checks after), also when
// both are in before the UI polls; a preview has none. Headless workers never ask for one.
TEST(Worker, AnInteractiveResultComesBeforeItsFollowUp) {
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  w.set_interactive(true);
  w.submit(params(3, 5), Backend::Cpu, true);
  std::vector<Worker::Event> events;
  while (auto e = wait_event(w)) {  // until the follow-up (or 10 s without an event)
    events.push_back(std::move(*e));
    if (events.back().follow_up) break;
  }
  // The preview may be replaced by the full result before the poll: the last two are fixed.
  ASSERT_GE(events.size(), 2u);
  const Worker::Event& full = events[events.size() - 2];
  const Worker::Event& more = events.back();
  ASSERT_TRUE(full.result && more.result);
  EXPECT_FALSE(full.result->preview);
  EXPECT_FALSE(full.follow_up);
  EXPECT_EQ(full.result->outputs.front().host().front(), 3.f);
  EXPECT_TRUE(more.follow_up);
  EXPECT_EQ(more.result->outputs.front().host().front(), 30.f);
  for (std::size_t k = 0; k + 2 < events.size(); ++k) EXPECT_TRUE(events[k].result->preview);

  // Both in before the poll: a long wait for the worker to go idle, then one poll loop.
  w.submit(params(4, 0), Backend::Cpu, false);
  for (int i = 0; i < 30000 && w.busy(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto a = w.poll(), b = w.poll();
  ASSERT_TRUE(a && b && a->result && b->result);
  EXPECT_FALSE(a->follow_up);
  EXPECT_EQ(a->result->outputs.front().host().front(), 4.f);
  EXPECT_TRUE(b->follow_up);
  EXPECT_EQ(b->result->outputs.front().host().front(), 40.f);
  EXPECT_FALSE(w.poll());
}

/// Waits (up to 60 s, for a loaded machine) until w's running job reports progress.
void wait_progress(Worker& w) {
  for (int i = 0; i < 30000 && w.progress() == 0.0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

/// The results (not follow-ups) polled until the worker is idle and nothing is left, as n.
std::vector<float> results_until_idle(Worker& w, std::vector<Worker::Event>* all = nullptr) {
  std::vector<float> out;
  for (int i = 0; i < 30000; ++i) {
    auto e = w.poll();
    if (!e) {
      if (!w.busy() && !(e = w.poll())) break;
      if (!e) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
    }
    if (e->result && !e->follow_up) out.push_back(e->result->outputs.front().host().front());
    if (all) all->push_back(std::move(*e));
  }
  return out;
}

// The window's drag (Supersede::FinishFull, app/gui/runs.cpp for runs of at most 1 s): requests
// that come while a full run computes let it finish and show; only the newest of them runs
// next, and the finished run's follow-up is skipped, since a newer result is on its way.
TEST(Worker, FinishFullShowsTheRunUnderWayThenTheNewest) {
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  w.set_interactive(true);
  w.submit(params(1, 300), Backend::Cpu, false, RunCommand::Whole, nullptr, Supersede::FinishFull);
  wait_progress(w);
  EXPECT_GT(w.progress(), 0.0);
  for (int n = 2; n <= 5; ++n)
    w.submit(params(n, 5), Backend::Cpu, false, RunCommand::Whole, nullptr,
             Supersede::FinishFull);
  std::vector<Worker::Event> all;
  const std::vector<float> shown = results_until_idle(w, &all);
  ASSERT_EQ(shown.size(), 2u) << "the run under way, then the newest request";
  EXPECT_EQ(shown[0], 1.f);
  EXPECT_EQ(shown[1], 5.f);
  EXPECT_EQ(finished.load(), 2) << "requests 2 to 4 never ran";
  // One follow-up: the newest's (50); the first run's (10) was skipped.
  int follow_ups = 0;
  for (const auto& e : all)
    if (e.follow_up) {
      ++follow_ups;
      EXPECT_EQ(e.result->outputs.front().host().front(), 50.f);
    }
  EXPECT_EQ(follow_ups, 1);
}

// The window's follow-ups wait for a pause in the input (set_follow_up_delay): a request that
// comes after a full result but within the pause skips that result's follow-up, as one that
// came during its run does; the newest result's follow-up comes once the pause has passed.
TEST(Worker, FollowUpWaitsForAPauseInTheInput) {
  std::atomic<int> finished{0}, warmed{0};
  Worker w(std::make_unique<FakeWorkload>(&finished, &warmed));
  w.set_interactive(true);
  const double pause = 1.5;  // long enough for this test to submit within it on a loaded machine
  w.set_follow_up_delay(pause);
  w.submit(params(1, 1), Backend::Cpu, false, RunCommand::Whole, nullptr, Supersede::FinishFull);
  const auto first = wait_event(w);
  ASSERT_TRUE(first && first->result && !first->follow_up);
  EXPECT_EQ(first->result->outputs.front().host().front(), 1.f);
  w.submit(params(2, 1), Backend::Cpu, false, RunCommand::Whole, nullptr, Supersede::FinishFull);
  // The second result, then the pause (not busy) and its follow-up.
  std::vector<Worker::Event> all;
  while (auto e = wait_event(w, 60)) {
    all.push_back(std::move(*e));
    if (all.back().follow_up) break;
  }
  EXPECT_FALSE(w.poll()) << "nothing more";
  ASSERT_EQ(all.size(), 2u) << "the second result and its follow-up only";
  EXPECT_EQ(all[0].result->outputs.front().host().front(), 2.f);
  EXPECT_FALSE(all[0].follow_up);
  ASSERT_TRUE(all[1].follow_up);
  EXPECT_EQ(all[1].result->outputs.front().host().front(), 20.f);
  EXPECT_GE(std::chrono::duration<double>(all[1].started - all[0].finished).count(), pause)
      << "the follow-up started only after the pause";
  for (int i = 0; i < 30000 && w.busy(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(warmed.load(), 1) << "the warm-up follows the newest result's follow-up only";
}

// A job not submitted with FinishFull (a study, a long run) is cancelled by any newer request,
// and so is a preview or a follow-up under way.
TEST(Worker, FinishFullCancelsOtherJobs) {
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  w.set_interactive(true);
  w.submit(params(1, 5000), Backend::Cpu, false);  // Supersede::Cancel
  wait_progress(w);
  w.submit(params(2, 5), Backend::Cpu, false, RunCommand::Whole, nullptr, Supersede::FinishFull);
  EXPECT_EQ(results_until_idle(w), std::vector<float>{2.f});
  EXPECT_EQ(finished.load(), 1) << "the long job was cancelled";

  // A preview under way (the FakeWorkload's preview takes as long as its full run).
  finished = 0;
  w.submit(params(3, 5000), Backend::Cpu, true, RunCommand::Whole, nullptr,
           Supersede::FinishFull);
  wait_progress(w);
  w.submit(params(4, 5), Backend::Cpu, false, RunCommand::Whole, nullptr, Supersede::FinishFull);
  EXPECT_EQ(results_until_idle(w), std::vector<float>{4.f});
  EXPECT_EQ(finished.load(), 1) << "the preview was cancelled, its full run never started";
}

// The window's idle time: after a full result and its follow-up, the workload's warm_up() runs
// on the worker (e.g. the field tree's leaf multipoles); a headless worker never calls it.
TEST(Worker, WarmUpFollowsTheFollowUpInTheWindowOnly) {
  std::atomic<int> finished{0}, warmed{0};
  {
    Worker w(std::make_unique<FakeWorkload>(&finished, &warmed));
    w.set_interactive(true);
    w.submit(params(1, 1), Backend::Cpu, false);
    results_until_idle(w);
    EXPECT_EQ(warmed.load(), 1);
  }
  warmed = 0;
  Worker headless(std::make_unique<FakeWorkload>(&finished, &warmed));
  headless.submit(params(1, 1), Backend::Cpu, false);
  results_until_idle(headless);
  EXPECT_EQ(warmed.load(), 0);
}

TEST(Worker, AHeadlessWorkerAsksForNoFollowUp) {
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  w.submit(params(5, 0), Backend::Cpu, false);
  for (int i = 0; i < 30000 && w.busy(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto a = w.poll();
  ASSERT_TRUE(a && a->result);
  EXPECT_FALSE(a->follow_up);
  EXPECT_EQ(a->result->outputs.front().host().front(), 5.f);
  EXPECT_FALSE(w.poll());
}

TEST(Worker, ErrorsComeBackAsText) {
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  w.submit(params(1, 0, true), Backend::Cpu, false);
  const auto e = wait_event(w);
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->result);
  EXPECT_EQ(e->error, "fake: bad input");
}

TEST(Worker, PreviewThenFullResult) {
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  w.submit(params(3, 20), Backend::Cpu, true);
  auto first = wait_event(w);
  ASSERT_TRUE(first && first->result);
  std::optional<Worker::Event> second = first->result->preview ? wait_event(w) : std::nullopt;
  // The preview may be overtaken by the full result between two polls; the last one is full.
  const RunResult& last = second ? *second->result : *first->result;
  EXPECT_FALSE(last.preview);
  EXPECT_EQ(finished.load(), 2);
}

// A full result carries the compute time of the preview that ran before it (the window adds
// it to the time shown), even where the preview's own event was replaced before a poll.
TEST(Worker, AFullResultCarriesItsPreviewsTime) {
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  w.submit(params(3, 5), Backend::Cpu, true);
  std::optional<Worker::Event> e = wait_event(w);
  if (e && e->result && e->result->preview) {
    EXPECT_EQ(e->preview_seconds, 0.0) << "a preview has none before it";
    e = wait_event(w);
  }
  ASSERT_TRUE(e && e->result && !e->result->preview);
  EXPECT_EQ(e->result->compute_seconds, FakeWorkload::kFullSeconds);
  EXPECT_EQ(e->preview_seconds, FakeWorkload::kPreviewSeconds);
  w.submit(params(4, 5), Backend::Cpu, false);  // no preview
  e = wait_event(w);
  ASSERT_TRUE(e && e->result && !e->result->preview);
  EXPECT_EQ(e->preview_seconds, 0.0);
}

TEST(Worker, CancelKeepsNothingRunning) {
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  w.submit(params(1, 5000), Backend::Cpu, false);
  // Wait (up to 2 s, for a loaded machine) until the job reports progress.
  for (int i = 0; i < 1000 && w.progress() == 0.0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_GT(w.progress(), 0.0);
  w.cancel();
  // The cancelled run ends at its next check: wait for that (not a fixed sleep), 60 s at most.
  for (int i = 0; i < 60000 && w.busy(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(w.busy());
  EXPECT_FALSE(w.poll().has_value());
  EXPECT_EQ(finished.load(), 0);
}

TEST(Worker, CancelBeforeTheThreadTakesTheRequestIsNotBusy) {
  // submit() then cancel() at once, many times: often the thread has not taken the request
  // yet; busy() must still go back to false (it stayed true for good before the fix).
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  for (int k = 0; k < 200; ++k) {
    w.submit(params(k, 20), Backend::Cpu, false);
    w.cancel();
    bool idle = false;
    for (int i = 0; i < 2500 && !idle; ++i) {  // up to 5 s on a loaded machine
      idle = !w.busy();
      if (!idle) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(idle) << "busy after submit + cancel, round " << k;
  }
  EXPECT_FALSE(w.poll().has_value());
}

/// Records the fake device allocations: which are alive, and how often each was freed.
struct Ledger {
  std::mutex mutex;
  std::vector<int> frees;  // per allocation
  int allocations() {
    std::lock_guard<std::mutex> lock(mutex);
    return int(frees.size());
  }
  int freed(int id) {
    std::lock_guard<std::mutex> lock(mutex);
    return frees.at(std::size_t(id));
  }
};

/// A workload with a device output like the field's CUDA evaluator (field_cuda.cu): its output
/// buffer ("device" memory: host floats whose free is recorded) is shared with the result that
/// views it, and the next run allocates a new one when a result still holds it or the target
/// count grows. A preview has 4 values, the full run 16 and then waits to be cancelled.
class FakeDeviceWorkload final : public Workload {
 public:
  explicit FakeDeviceWorkload(std::shared_ptr<Ledger> ledger) : ledger_(std::move(ledger)) {}
  const Schema& schema() const override { return fake_schema(); }
  RunResult run(const ParamSet& p, Backend b, const RunRequest& req, Progress* progress) override {
    const std::size_t T = req.preview ? 4 : 16;
    if (!out_ || out_.use_count() > 1 || capacity_ < T) {  // the evaluator's reallocation
      out_.reset();
      std::lock_guard<std::mutex> lock(ledger_->mutex);
      const int id = int(ledger_->frees.size());
      ledger_->frees.push_back(0);
      std::shared_ptr<Ledger> ledger = ledger_;
      out_ = std::shared_ptr<float>(new float[T], [ledger, id](float* q) {
        std::fill(q, q + 4, -1.0f);  // poison, then free: a later read would see -1 (or crash)
        delete[] q;
        std::lock_guard<std::mutex> lock(ledger->mutex);
        ++ledger->frees.at(std::size_t(id));
      });
      capacity_ = T;
    }
    for (int i = 0; !req.preview && i < int(p.get_int("ms")); ++i) {
      progress->check();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::fill(out_.get(), out_.get() + T, float(p.get_int("n")));
    RunResult r;
    r.params = p;
    r.backend = b;
    r.preview = req.preview;
    // The output in (fake) device memory, shared with the workload's buffer.
    std::shared_ptr<const float> mem(out_, out_.get());
    r.outputs.push_back({"n",
                         "n",
                         "",
                         io::DType::Float32,
                         {T},
                         OutputData::on_device(mem, io::DType::Float32, T,
                                               [mem](void* dst, std::size_t n) {
                                                 std::copy(mem.get(), mem.get() + n,
                                                           static_cast<float*>(dst));
                                               })});
    return r;
  }
  ViewImage view_image(const RunResult&, const std::string&) const override { return {}; }
  std::string describe_sample(const RunResult&, int, int) const override { return ""; }

 private:
  std::shared_ptr<Ledger> ledger_;
  std::shared_ptr<float> out_;
  std::size_t capacity_ = 0;
};

// Issue 16 item 1: the GUI keeps the preview, the full run reallocates the output buffer, the
// user cancels (busy() turns false), then a colormap or range change redraws from the preview's
// device output: that memory must still be the preview's, freed only when the result goes.
TEST(Worker, ElapsedCountsFromSubmission) {
  // Before the fix the clock started when the thread took the request, so a poll right after
  // submit() read the time since the steady clock's epoch (the machine's uptime).
  std::atomic<int> finished{0};
  Worker w(std::make_unique<FakeWorkload>(&finished));
  for (int round = 0; round < 50; ++round) {
    const auto before = std::chrono::steady_clock::now();
    w.submit(params(round, 2), Backend::Cpu, false);
    const double bound =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count() + 1e-3;
    const double e = w.elapsed_seconds();
    EXPECT_GE(e, 0.0);
    EXPECT_LE(e, bound + 0.5) << "round " << round;
    while (w.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    w.poll();
  }
}

TEST(Worker, PreviewDeviceViewOutlivesTheCancelledFullRun) {
  auto ledger = std::make_shared<Ledger>();
  std::optional<RunResult> shown;  // what the GUI holds (GuiState::result)
  {
    Worker w(std::make_unique<FakeDeviceWorkload>(ledger));
    w.submit(params(7, 10000), Backend::Cuda, true);
    auto e = wait_event(w);
    ASSERT_TRUE(e && e->result && e->result->preview);
    shown = std::move(e->result);
    // The full run has allocated its bigger buffer (the preview's is held by `shown`).
    for (int i = 0; i < 2500 && ledger->allocations() < 2; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ASSERT_EQ(ledger->allocations(), 2);
    w.cancel();
    for (int i = 0; i < 2500 && w.busy(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ASSERT_FALSE(w.busy());
    EXPECT_FALSE(w.poll().has_value());
    // The view change: the path refresh_image (app/gui/plane_image.cpp) takes with a device output.
    const float* shown_mem = shown->outputs[0].data.device();
    ASSERT_TRUE(shown_mem);
    EXPECT_EQ(ledger->freed(0), 0) << "the preview's device buffer was freed under its result";
    for (int i = 0; i < 4; ++i) EXPECT_EQ(shown_mem[i], 7.0f) << i;
    // A copy of the result (e.g. for an export) shares the buffer too.
    RunResult copy = *shown;
    shown.reset();
    EXPECT_EQ(ledger->freed(0), 0);
    EXPECT_EQ(copy.outputs[0].data.device()[0], 7.0f);
    EXPECT_EQ(copy.outputs[0].host()[0], 7.0f) << "downloaded on first use";
  }  // the worker (and the workload's current buffer) goes
  EXPECT_EQ(ledger->freed(0), 1) << "freed once, with its last holder";
  EXPECT_EQ(ledger->freed(1), 1);
}

}  // namespace
}  // namespace simscope::app
