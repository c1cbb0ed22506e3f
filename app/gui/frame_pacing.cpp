#include "frame_pacing.hpp"

#include <algorithm>

namespace simscope::app::gui {

double FramePacer::due(const FrameNeeds& n) const {
  const double cap =
      1 / (n.busy && !n.animating && !result_ ? kBusyInputFramesPerSecond : kFramesPerSecond);
  if (pending_ || n.animating) return last_frame_ + cap;
  // Settle frames during a run come at its progress rate: each takes the cores from the run.
  if (n.busy) return last_frame_ + 1 / kBusyFramesPerSecond;
  if (settle_ > 0) return last_frame_ + cap;
  if (n.typing || n.tip_waiting) return last_frame_ + 1 / kTypingFramesPerSecond;
  return std::numeric_limits<double>::infinity();
}

double FramePacer::wait_seconds(const FrameNeeds& n, double now) const {
  return std::clamp(due(n) - now, 0.0, kWakeSeconds);
}

bool FramePacer::should_draw(const FrameNeeds& n, bool events, double now, bool result) {
  result_ = result_ || result;
  pending_ = pending_ || events || result;
  return now >= due(n);
}

bool FramePacer::hold(const FrameDone& f) {
  return f.submitted && f.worker_was_idle && f.last_full_seconds > 0 &&
         f.last_full_seconds <= kHoldSeconds && !f.result_taken && !f.output_waiting &&
         !f.animating;
}

void FramePacer::drawn(double started) {
  last_frame_ = started;
  if (pending_)
    settle_ = kSettleFrames;
  else if (settle_ > 0)
    --settle_;
  pending_ = false;
  result_ = false;
}

}  // namespace simscope::app::gui
