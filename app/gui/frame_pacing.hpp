#pragma once
/// @file When the window draws a frame. It draws on input and on the worker's events, and
/// kSettleFrames more after them (Dear ImGui settles hovered items and opens popups over the
/// next frames; during a run at its progress rate); every frame while something animates (a sweep, --frames counting); a few
/// frames a second while a run is under way (its progress), a text field has focus (its
/// cursor) or a tooltip waits for its delay; otherwise none: the loop sleeps until the next event, waking kWakeSeconds apart
/// only to look for a stop signal. Input while a run computes is drawn at no more than
/// kBusyInputFramesPerSecond, since on 2 cores with software GL each frame takes time from the
/// run (tests/bench/NOTES.md "The window on a user's path"); for the same reason the frame that
/// submits a short run is held for its result's frame (hold()). Pure logic on times in seconds;
/// the loop in gui_app.cpp waits and polls GLFW as it says.
#include <limits>

namespace simscope::app::gui {

/// What the window has going on, read before each wait.
struct FrameNeeds {
  bool animating = false;  ///< something advances every frame: draw as fast as allowed
  bool busy = false;       ///< a run is under way
  bool typing = false;     ///< a text field has focus
  /// A tooltip waits for its delay (hover_tip.hpp): frames at kTypingFramesPerSecond, so it
  /// shows at most 1 / that seconds late without input.
  bool tip_waiting = false;
};

/// What a frame did, read after its UI and before it is drawn (FramePacer::hold).
struct FrameDone {
  bool submitted = false;        ///< it submitted a run
  bool worker_was_idle = false;  ///< no run was under way before: the run starts at once
  double last_full_seconds = 0;  ///< the last full run's compute time (0: none yet)
  bool result_taken = false;     ///< it took a result or error from the worker
  bool output_waiting = false;   ///< a screenshot, export, sweep or --frames waits for pixels
  bool animating = false;        ///< FrameNeeds::animating, e.g. a live workload's runs
};

class FramePacer {
 public:
  static constexpr int kSettleFrames = 2;
  static constexpr double kFramesPerSecond = 60;           ///< at most, on input or animating
  static constexpr double kBusyInputFramesPerSecond = 15;  ///< at most, on input during a run
  static constexpr double kBusyFramesPerSecond = 4;        ///< a run's progress without input
  static constexpr double kTypingFramesPerSecond = 4;      ///< a text cursor's blink
  static constexpr double kWakeSeconds = 0.25;             ///< the longest sleep
  /// A run this short (its last full run) holds the frame that submitted it (hold()).
  static constexpr double kHoldSeconds = 1 / kBusyFramesPerSecond;

  /// Whether to hold a frame instead of drawing it: it submitted a run that starts at once
  /// and whose last full run took at most kHoldSeconds; it took no result, nothing waits for
  /// its pixels and nothing animates. Its result's frame then shows the input too, about as
  /// soon; drawn, the frame would take the cores from the run (software GL draws on all).
  /// Call drawn() for a held frame as for a drawn one: a run longer than expected then shows
  /// the input at its progress rate, kBusyFramesPerSecond.
  static bool hold(const FrameDone& f);

  /// How long the loop may sleep at `now` waiting for events (it wakes earlier on one), at
  /// most kWakeSeconds; 0 when a frame is due: poll and draw.
  double wait_seconds(const FrameNeeds& n, double now) const;
  /// Whether to draw a frame at `now`. `events`: input arrived since the last call; `result`:
  /// the worker has something to show, which is drawn at kFramesPerSecond's cap even during a
  /// run (it is what the user waits for). Events not drawn yet (the cap) are kept for later.
  bool should_draw(const FrameNeeds& n, bool events, double now, bool result = false);
  /// Call once a frame is drawn; `started`: when it began (before the worker's events were
  /// polled), so that the caps count frames a second, the drawing's own time included.
  void drawn(double started);

 private:
  /// When the next frame is due at the latest, without new events.
  double due(const FrameNeeds& n) const;
  double last_frame_ = -std::numeric_limits<double>::infinity();
  bool pending_ = false;  ///< events not yet drawn
  bool result_ = false;   ///< a worker's event not yet drawn
  int settle_ = 0;        ///< frames still to draw after the last event's frame
};

}  // namespace simscope::app::gui
