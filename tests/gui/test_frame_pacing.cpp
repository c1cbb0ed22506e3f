// When the window draws (frame_pacing.hpp): an idle window sleeps and draws nothing; an event
// draws one frame and kSettleFrames after it (during a run at its progress rate); input during
// a run is drawn at no more than kBusyInputFramesPerSecond; a run's progress, a text cursor and
// animations keep their rates.
#include <gtest/gtest.h>

#include "frame_pacing.hpp"

namespace simscope::app::gui {
namespace {

/// Runs the loop of gui_app.cpp for `seconds` from `t` without input: each iteration sleeps
/// wait_seconds() (no event ends it early) and asks should_draw(). Returns the frames drawn.
int frames_without_input(FramePacer& p, const FrameNeeds& n, double& t, double seconds) {
  int frames = 0;
  const double end = t + seconds;
  while (t < end) {
    const double w = p.wait_seconds(n, t);
    EXPECT_GE(w, 0.0);
    EXPECT_LE(w, FramePacer::kWakeSeconds);
    t += w > 0 ? w : 1e-4;  // a poll takes a little time
    if (p.should_draw(n, false, t)) {
      p.drawn(t);
      ++frames;
    }
  }
  return frames;
}

TEST(FramePacer, AnIdleWindowDrawsNothingAndWakesOnlyToLookForSignals) {
  FramePacer p;
  FrameNeeds idle;
  double t = 100;
  ASSERT_TRUE(p.should_draw(idle, true, t));  // the first frame (Window::watch_events counts it)
  p.drawn(t);
  // The first frame's settle frames, then none for 10 s.
  const int settle = frames_without_input(p, idle, t, 1.0);
  EXPECT_EQ(settle, FramePacer::kSettleFrames);
  EXPECT_EQ(frames_without_input(p, idle, t, 10.0), 0);
  EXPECT_DOUBLE_EQ(p.wait_seconds(idle, t), FramePacer::kWakeSeconds);
}

TEST(FramePacer, AnEventDrawsAtOnceThenSettles) {
  FramePacer p;
  FrameNeeds idle;
  double t = 5;
  p.should_draw(idle, true, t);
  p.drawn(t);
  frames_without_input(p, idle, t, 2.0);
  t += 0.3;
  EXPECT_TRUE(p.should_draw(idle, true, t)) << "input long after the last frame: drawn at once";
  p.drawn(t);
  EXPECT_EQ(frames_without_input(p, idle, t, 2.0), FramePacer::kSettleFrames);
}

TEST(FramePacer, InputFasterThanTheCapIsDrawnAtTheCap) {
  for (const bool busy : {false, true}) {
    FramePacer p;
    FrameNeeds n;
    n.busy = busy;
    const double cap = busy ? FramePacer::kBusyInputFramesPerSecond : FramePacer::kFramesPerSecond;
    // Mouse motion every 0.5 ms for 2 s: frames at the cap (less the rounding to the next
    // event), none of the events lost.
    int frames = 0;
    bool drawn_since_last_event = true;
    for (double t = 0; t < 2.0; t += 0.0005) {
      if (p.should_draw(n, true, t)) {
        p.drawn(t);
        ++frames;
        drawn_since_last_event = true;
      } else {
        drawn_since_last_event = false;
        EXPECT_GT(p.wait_seconds(n, t), 0.0) << "an event inside the cap waits for its frame";
      }
    }
    EXPECT_LE(frames, 2.0 * cap + 1) << (busy ? "busy" : "idle");
    EXPECT_GE(frames, 0.95 * 2.0 * cap) << (busy ? "busy" : "idle");
    // The last events are drawn later even without more input.
    double t = 2.0;
    const int later = frames_without_input(p, n, t, 1.0);
    EXPECT_GE(later, drawn_since_last_event ? 0 : 1);
  }
}

TEST(FramePacer, AResultDuringARunIsDrawnAtTheIdleCap) {
  FramePacer p;
  FrameNeeds busy;
  busy.busy = true;
  double t = 0;
  ASSERT_TRUE(p.should_draw(busy, true, t));
  p.drawn(t);
  t += 1.5 / FramePacer::kFramesPerSecond;  // inside the busy input cap, past the idle cap
  EXPECT_FALSE(p.should_draw(busy, true, t)) << "input waits for the busy cap";
  EXPECT_TRUE(p.should_draw(busy, false, t, true)) << "a result does not";
}

// During a run the frames that settle an input come at the run's progress rate, since each
// takes the cores from it; the input's own frame is drawn at once.
TEST(FramePacer, SettleFramesDuringARunComeAtItsProgressRate) {
  FramePacer p;
  FrameNeeds busy;
  busy.busy = true;
  double t = 10;
  ASSERT_TRUE(p.should_draw(busy, true, t)) << "input long after the last frame: drawn at once";
  p.drawn(t);
  const double period = 1 / FramePacer::kBusyFramesPerSecond;
  EXPECT_FALSE(p.should_draw(busy, false, t + 2 / FramePacer::kBusyInputFramesPerSecond))
      << "no settle frame at the input cap";
  EXPECT_FALSE(p.should_draw(busy, false, t + 0.9 * period));
  t += period;
  EXPECT_TRUE(p.should_draw(busy, false, t)) << "one at the progress rate";
  p.drawn(t);
  // The run over: the settle frames left come at the idle cap, then nothing.
  FrameNeeds idle;
  EXPECT_LE(frames_without_input(p, idle, t, 1.0), FramePacer::kSettleFrames);
  EXPECT_EQ(frames_without_input(p, idle, t, 5.0), 0);
}

TEST(FramePacer, ARunsProgressAndATextCursorKeepTheirRates) {
  FramePacer p;
  double t = 0;
  p.should_draw({}, true, t);
  p.drawn(t);
  FrameNeeds busy;
  busy.busy = true;
  frames_without_input(p, busy, t, 1.0);  // past the settle frames
  EXPECT_NEAR(frames_without_input(p, busy, t, 10.0), 10 * FramePacer::kBusyFramesPerSecond, 1);
  FrameNeeds typing;
  typing.typing = true;
  EXPECT_NEAR(frames_without_input(p, typing, t, 10.0), 10 * FramePacer::kTypingFramesPerSecond,
              1);
}

// A tooltip waiting for its delay (hover_tip.hpp) is drawn without further input, at most one
// typing frame's interval after the delay.
TEST(FramePacer, AWaitingTooltipGetsItsFrame) {
  FramePacer p;
  double t = 0;
  p.should_draw({}, true, t);
  p.drawn(t);
  frames_without_input(p, {}, t, 1.0);  // past the settle frames: idle, nothing drawn
  FrameNeeds tip;
  tip.tip_waiting = true;
  EXPECT_LE(p.wait_seconds(tip, t), 1 / FramePacer::kTypingFramesPerSecond);
  EXPECT_NEAR(frames_without_input(p, tip, t, 2.0), 2 * FramePacer::kTypingFramesPerSecond, 1);
}

TEST(FramePacer, AnimationDrawsEveryFrameUpToTheCap) {
  FramePacer p;
  FrameNeeds n;
  n.animating = true;
  n.busy = true;  // a live workload's runs: animation, not the busy input cap
  double t = 0;
  EXPECT_NEAR(frames_without_input(p, n, t, 2.0), 2 * FramePacer::kFramesPerSecond, 2);
}

// A frame that submits a short run on a free worker is held (FramePacer::hold): drawn, it
// would take the cores from the run whose result's frame shows the input as soon.
TEST(FramePacer, AFrameSubmittingAShortRunIsHeldForItsResult) {
  FrameDone f;
  f.submitted = true;
  f.worker_was_idle = true;
  f.last_full_seconds = 0.12;
  EXPECT_TRUE(FramePacer::hold(f));
  f.last_full_seconds = FramePacer::kHoldSeconds;
  EXPECT_TRUE(FramePacer::hold(f)) << "the bound is inclusive";
  // Drawn: no run submitted; a run under way (the new one waits or the drag's input shows at
  // the busy cap); the first run (cost unknown) or a longer one; a result taken this frame;
  // pixels wanted (a screenshot, export, sweep, --frames); an animation (a live workload's
  // runs, each submitted by a frame).
  for (int k = 0; k < 7; ++k) {
    FrameDone g = f;
    g.last_full_seconds = 0.12;
    if (k == 0) g.submitted = false;
    if (k == 1) g.worker_was_idle = false;
    if (k == 2) g.last_full_seconds = 0;
    if (k == 3) g.last_full_seconds = FramePacer::kHoldSeconds * 1.01;
    if (k == 4) g.result_taken = true;
    if (k == 5) g.output_waiting = true;
    if (k == 6) g.animating = true;
    EXPECT_FALSE(FramePacer::hold(g)) << "case " << k;
  }
}

// A held frame counts as drawn: its run's result is drawn at once when it comes, and a run
// longer than expected shows the input at the run's progress rate.
TEST(FramePacer, AfterAHeldFrameTheResultIsDrawnAtOnceOrTheInputAtTheBusyRate) {
  FramePacer p;
  FrameNeeds busy;
  busy.busy = true;
  double t = 10;
  ASSERT_TRUE(p.should_draw({}, true, t));  // the Return that submits the run
  p.drawn(t);                               // held
  EXPECT_FALSE(p.should_draw(busy, false, t + 0.005));
  EXPECT_TRUE(p.should_draw(busy, false, t + 0.12, true)) << "the result, 120 ms later";
  FramePacer q;
  ASSERT_TRUE(q.should_draw({}, true, t));
  q.drawn(t);  // held; the run takes long
  EXPECT_FALSE(q.should_draw(busy, false, t + 0.2));
  EXPECT_TRUE(q.should_draw(busy, false, t + 1 / FramePacer::kBusyFramesPerSecond));
}

}  // namespace
}  // namespace simscope::app::gui
