#include "job/worker.hpp"

#include <exception>

#include "core/error.hpp"

namespace simscope::app {

Worker::Worker(std::unique_ptr<Workload> workload)
    : workload_(std::move(workload)), progress_(std::make_shared<Progress>()) {
  thread_ = std::thread([this] { loop(); });
}

Worker::~Worker() {
  quit_ = true;
  cancel();
  cv_.notify_all();
  thread_.join();
}

void Worker::submit(const ParamSet& params, Backend backend, bool preview_first,
                    RunCommand command,
                    std::shared_ptr<CheckpointRequest> checkpoint, Supersede supersede) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_ = Request{params, backend, preview_first, command, std::move(checkpoint), supersede};
  if (supersede == Supersede::FinishFull && running_supersede_ == Supersede::FinishFull &&
      phase_ == Phase::Full && !progress_->cancel)
    finishing_ = true;  // the full run under way comes first; this request after it
  else
    progress_->cancel = true;  // supersede the running job
  // The clock starts at submission, so a poll before the thread takes the request reads ~0 s,
  // not the time since the steady clock's epoch.
  started_ = std::chrono::steady_clock::now();
  busy_ = true;
  cv_.notify_all();
}

void Worker::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.reset();
  progress_->cancel = true;
  finishing_ = false;
  busy_ = running_;  // a request cancelled before the thread took it leaves nothing to do
  cv_.notify_all();  // ends a follow-up's wait (set_follow_up_delay)
}

std::optional<Worker::Event> Worker::poll() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (events_.empty()) return std::nullopt;
  std::optional<Event> e = std::move(events_.front());
  events_.pop_front();
  return e;
}

double Worker::progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return progress_->fraction.load();
}

double Worker::elapsed_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void Worker::loop() {
  for (;;) {
    Request req;
    std::shared_ptr<Progress> progress;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      running_ = false;
      phase_ = Phase::Idle;
      finishing_ = false;
      busy_ = pending_.has_value();
      cv_.wait(lock, [&] { return quit_ || pending_.has_value(); });
      if (quit_) return;
      req = std::move(*pending_);
      pending_.reset();
      running_supersede_ = req.supersede;
      progress_ = std::make_shared<Progress>();
      progress = progress_;
      started_ = std::chrono::steady_clock::now();
      running_ = true;
      busy_ = true;
    }
    // Publishes e unless a newer request superseded the job. Returns whether it did.
    auto publish = [&](Event e) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (progress->cancel || (pending_ && !(finishing_ && phase_ == Phase::Full))) return false;
        if (!e.follow_up) events_.clear();  // the newest result replaces those not yet polled
        events_.push_back(std::move(e));
      }
      if (notify_) notify_();
      return true;
    };
    auto enter = [&](Phase p) {
      std::lock_guard<std::mutex> lock(mutex_);
      phase_ = p;
    };
    try {
      // Set member by member for the whole run (no range, axis empty). An aggregate initializer
      // would make -Wmissing-field-initializers flag every member left out.
      RunRequest run;
      run.command = req.command;
      run.defer_checks = interactive_;
      double preview_seconds = 0;
      if (req.preview_first) {
        enter(Phase::Preview);
        run.preview = true;
        RunResult preview = workload_->run(req.params, req.backend, run, progress.get());
        preview_seconds = preview.compute_seconds;
        publish(Event{std::move(preview), {}});
        progress->fraction = 0;
      }
      run.preview = false;
      run.checkpoint = req.checkpoint;
      enter(Phase::Full);
      const auto full_started = std::chrono::steady_clock::now();
      RunResult full = workload_->run(req.params, req.backend, run, progress.get());
      const bool shown = publish(Event{std::move(full), {}, false, full_started,
                                       std::chrono::steady_clock::now(), preview_seconds});
      enter(Phase::FollowUp);  // from here a newer request cancels, whatever its Supersede
      bool newer = false;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (run.defer_checks && shown && follow_up_delay_.count() > 0 &&
            !workload_->continuous(req.params)) {
          // Not busy during the pause (nothing runs: no progress bar, the UI's idle pacing);
          // the follow-up's clock starts after it.
          busy_ = pending_.has_value();
          cv_.wait_for(lock, follow_up_delay_,
                       [&] { return quit_ || pending_.has_value() || progress->cancel; });
          busy_ = true;
          started_ = std::chrono::steady_clock::now();
        }
        newer = pending_.has_value() || quit_ || progress->cancel;
      }
      if (run.defer_checks && shown && !newer) {
        // The checks the run left out, after its result is handed over; the window shows the
        // result meanwhile. A newer request cancels them with the job.
        const auto follow_started = std::chrono::steady_clock::now();
        if (std::optional<RunResult> more = workload_->follow_up(progress.get()))
          publish(Event{std::move(more), {}, true, follow_started,
                        std::chrono::steady_clock::now()});
        workload_->warm_up(progress.get());  // e.g. caches a first visit would fill
      }
    } catch (const Cancelled&) {
      // superseded or cancelled: the previous result stays
    } catch (const std::exception& e) {
      publish(Event{std::nullopt, e.what()});
    }
  }
}

}  // namespace simscope::app
