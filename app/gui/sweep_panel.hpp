#pragma once
/// @file Parameter sweeps in the window. The right panel's "Sweep" section picks a numeric
/// parameter, start, stop, frames and an image size. Each frame's full result is drawn
/// offscreen into simscope-sweep-<time>/frames/0000.png ..., then sweep.mp4 (ffmpeg) and
/// run.json are written as the headless --sweep writes them (sweep.hpp). The panel shows
/// progress, ETA and Cancel. `simscope --sweep NAME=START:STOP:FRAMES` without --headless starts
/// one in the window once the first result is in. Live workloads (oscillators) are not swept
/// in the window.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "sweep_video.hpp"

namespace simscope::app::gui {

struct GuiState;

struct SweepState {
  bool running = false;
  SweepSpec spec;
  std::vector<ParamSet> frames;
  std::size_t next = 0;        ///< the frame being computed
  bool awaiting = false;       ///< its parameters are set; waiting for its full result
  std::uint64_t serial = 0;    ///< result_serial when they were set
  bool shown_already = false;  ///< the result shown then had them: no new run
  std::string dir;
  int w = 0, h = 0;
  std::chrono::steady_clock::time_point t0;
  Json items = Json::array();
  std::string pending_cli;  ///< --sweep from the command line, started after the first result
  // the panel's fields
  int param = -1;
  double start = 0, stop = 1;
  int count = 10;
  char size[32] = "";
  bool start_clicked = false;
};

/// Recording the view: the next `frames` results as they are shown go into
/// simscope-record-<time>/frames/0000.png ..., then sweep.mp4 and run.json with each frame's
/// parameters and stats (step, time...). A live workload's frames are recorded as it runs, e.g.
/// the oscillators' phase view.
struct RecordState {
  int total = 0, done = 0;  ///< total 0: not recording
  std::string dir;
  std::uint64_t last_serial = 0;
  Json items = Json::array();
  int pending_cli = 0;  ///< --record FRAMES, started after the first result
  int count = 100;      ///< the panel's field
};

/// Starts recording the next `frames` results. Throws simscope::Error when frames is outside
/// [1, 100000] or a folder cannot be made.
void start_record(GuiState& s, int frames);

/// Starts sweeping `spec` at w x h pixels. Throws simscope::Error for a parameter that is not
/// numeric, a value out of range, a live workload, or a folder that cannot be made.
void start_sweep(GuiState& s, const SweepSpec& spec, int w, int h);
/// The "Sweep" section of the right panel.
void draw_sweep_panel(GuiState& s);
/// After the frame is drawn, with the GL context current: saves the frame whose full result is
/// shown, sets the next frame's parameters, and finishes with the video and run.json.
void advance_sweep(GuiState& s);

}  // namespace simscope::app::gui
