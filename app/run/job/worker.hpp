#pragma once
/// @file Runs a workload off the UI thread.
/// A newer request cancels the running job (Progress::cancel), or with Supersede::FinishFull
/// lets a full run under way finish first; either way only the newest request runs next. An
/// optional coarse preview runs first, so a long evaluation shows something quickly.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "workload.hpp"

namespace simscope::app {

/// What a newer request does to the job under way (Worker::submit).
enum class Supersede {
  /// Cancels it at once; only the newest request's results come.
  Cancel,
  /// A full run under way that was itself submitted with FinishFull finishes, and its result
  /// comes first; the newer request runs after it, and the finished run's follow-up is skipped.
  /// A preview or follow-up under way, or any other job, is cancelled. The window's choice
  /// while each run is short: a drag then shows a new result per run instead of none until the
  /// mouse stops.
  FinishFull,
};

class Worker {
 public:
  /// Takes ownership of the workload; afterwards only the worker thread touches it.
  /// view_image(), describe_sample() and schema() are const and safe from the UI thread.
  explicit Worker(std::unique_ptr<Workload> workload);
  ~Worker();  ///< cancels the running job and joins
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  const Workload& workload() const { return *workload_; }

  /// Queues a run. `preview_first`: run a coarse preview before the full evaluation.
  /// `command`: passed to the workload (RunRequest::command).
  /// `checkpoint`: passed to the workload (RunRequest::checkpoint).
  /// `supersede`: what this request does to the job under way (Supersede).
  void submit(const ParamSet& params, Backend backend, bool preview_first,
              RunCommand command = RunCommand::Whole,
              std::shared_ptr<CheckpointRequest> checkpoint = nullptr,
              Supersede supersede = Supersede::Cancel);
  /// The window's worker: runs ask to defer checks (RunRequest::defer_checks) and, after each
  /// full result, the workload's follow_up() runs and comes as a second event (Event::follow_up).
  /// Call before the first submit().
  void set_interactive(bool on) { interactive_ = on; }
  /// The window's worker: after a full result, its follow-up and warm-up wait until no newer
  /// request came for `seconds` (a pause in the input), so that during a drag no check takes
  /// the cores from the next run or from the frame showing the result; a newer request within
  /// it skips them. Live workloads (Workload::continuous) do not wait. Default 0: at once.
  /// During the pause busy() is false; elapsed_seconds() counts from its end.
  void set_follow_up_delay(double seconds) {
    follow_up_delay_ = std::chrono::duration<double>(seconds);
  }
  /// Called on the worker thread after each event is queued, e.g. to wake a UI thread that
  /// waits for input. Call before the first submit().
  void set_notify(std::function<void()> notify) { notify_ = std::move(notify); }
  /// Cancels the running and queued work. The last result stays.
  void cancel();

  /// Something that finished since the last poll: a preview or full result, or an error text.
  struct Event {
    std::optional<RunResult> result;
    std::string error;
    /// The workload's follow_up() of the full result before it (set_interactive): the same
    /// result completed (e.g. with the field tree's measured error).
    bool follow_up = false;
    /// When the run (or follow-up) that made it started and ended on the worker thread: the
    /// window's latency log (latency_log.hpp).
    std::chrono::steady_clock::time_point started{}, finished{};
    /// A full result's preview that ran first for the same request: its compute_seconds (0:
    /// none). The window adds it to the time shown (a first field run's tree is built there);
    /// the preview's own event may have been replaced before a poll.
    double preview_seconds = 0;
  };
  /// The oldest event not yet polled, or nothing. Called by the UI thread each frame, until it
  /// returns nothing. A newer result replaces events not yet polled, except that a follow-up
  /// comes after the full result it completes (both are returned, in that order).
  std::optional<Event> poll();

  bool busy() const { return busy_.load(); }
  /// Fraction done of the current job, and seconds since it started.
  double progress() const;
  double elapsed_seconds() const;

 private:
  struct Request {
    ParamSet params;
    Backend backend;
    bool preview_first;
    RunCommand command;
    std::shared_ptr<CheckpointRequest> checkpoint;
    Supersede supersede;
  };
  void loop();
  /// What the thread is doing, for Supersede::FinishFull (guarded by mutex_).
  enum class Phase { Idle, Preview, Full, FollowUp };

  std::unique_ptr<Workload> workload_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<Request> pending_;
  std::deque<Event> events_;
  std::atomic<bool> interactive_{false};
  std::chrono::duration<double> follow_up_delay_{0};
  std::function<void()> notify_;
  std::shared_ptr<Progress> progress_;  // of the running job
  std::atomic<bool> busy_{false};
  bool running_ = false;  // the thread is inside a job (guarded by mutex_)
  Phase phase_ = Phase::Idle;
  Supersede running_supersede_ = Supersede::Cancel;  // the job under way's own
  bool finishing_ = false;  // the full run under way publishes although a request is pending
  std::atomic<bool> quit_{false};
  std::chrono::steady_clock::time_point started_{};
  std::thread thread_;
};

}  // namespace simscope::app
