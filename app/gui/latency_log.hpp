#pragma once
/// @file The window's latency log, written when SIMSCOPE_LATENCY_LOG=1: after the line that says
/// a full result is shown, one line with the times of that result's path since the input it
/// answers, in ms: "simscope: latency (ms since the input): submitted 1, run 2 .. 131, polled
/// 133, uploaded 135, drawn 149". The input is the last window event before the frame that
/// submitted the run (a key, a mouse move); a run submitted without one (the first) counts from
/// its submission. tests/bench/window_drag.py reads these lines (tests/bench/NOTES.md, "The
/// window on a user's path").
#include <chrono>
#include <deque>
#include <string>

#include "params/param_set.hpp"

namespace simscope::app::gui {

class LatencyLog {
 public:
  using Clock = std::chrono::steady_clock;
  using Time = Clock::time_point;

  /// On when `enabled`; by default when the environment's SIMSCOPE_LATENCY_LOG is 1.
  LatencyLog();
  explicit LatencyLog(bool enabled) : on_(enabled) {}
  bool on() const { return on_; }

  /// A run of `params` (the view selector left out) submitted at `at`, answering the input at
  /// `input` (Time{}: none). The last kKept submissions are remembered, so a result of an earlier
  /// one (a drag's run let finish, Supersede::FinishFull) is timed from its own input.
  void submitted(const ParamSet& params, Time input, Time at);
  /// A full result of `params` polled at `now`; its run started and ended at those times.
  void polled(const ParamSet& params, Time started, Time finished, Time now);
  /// Its image is in the view (uploaded) at `now`.
  void uploaded(Time now);
  /// The frame showing it is drawn at `now`: its line (without a newline), or "" when off, when
  /// no full result was polled since the last line, or when its submission is not remembered.
  std::string drawn(Time now);

  static constexpr std::size_t kKept = 16;

 private:
  struct Submission {
    ParamSet params;
    Time input, at;
  };
  bool on_ = false;
  std::deque<Submission> submissions_;
  bool have_ = false;  ///< a result polled and not yet drawn
  Time input_{}, submitted_{}, started_{}, finished_{}, polled_{}, uploaded_{};
};

}  // namespace simscope::app::gui
