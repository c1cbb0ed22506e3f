#pragma once
/// @file A part of a job reported as its share of the whole: while a ProgressRelay lives, a
/// thread maps its inner Progress (the part's 0..1) onto [begin, end] of the outer one every
/// 10 ms and passes the outer cancel request in. For runs split into ranges (split_merge) and a
/// study's blocks resumed from a checkpoint (study_checkpoint).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "core/progress.hpp"

namespace simscope::app {

class ProgressRelay {
 public:
  /// `outer` may be null: then inner() is null too and no thread runs. 0 <= begin <= end <= 1.
  ProgressRelay(Progress* outer, double begin, double end) : outer_(outer) {
    if (!outer_) return;
    relay_ = std::thread([this, begin, end] {
      while (!done_) {
        if (outer_->cancel) inner_.cancel = true;
        outer_->set(begin + (end - begin) * std::clamp(inner_.fraction.load(), 0.0, 1.0));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  ~ProgressRelay() {
    done_ = true;
    if (relay_.joinable()) relay_.join();
  }
  ProgressRelay(const ProgressRelay&) = delete;
  ProgressRelay& operator=(const ProgressRelay&) = delete;

  /// The Progress to give the part (null without an outer one).
  Progress* inner() { return outer_ ? &inner_ : nullptr; }

 private:
  Progress* outer_;
  Progress inner_;
  std::atomic<bool> done_{false};
  std::thread relay_;
};

}  // namespace simscope::app
