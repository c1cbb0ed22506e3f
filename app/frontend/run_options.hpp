#pragma once
/// @file The options of a run as every front end takes them.
/// app/cli parses the command line into it; the window and the MPI ranks read the same struct.
#include <string>
#include <vector>

namespace simscope::app {

/// What a run was asked to do, independent of how the options were given.
struct RunOptions {
  std::string workload;                        ///< empty: the preset's, else the first registered
  std::string preset;                          ///< --preset FILE.json
  std::vector<std::string> sets;               ///< --set NAME=VALUE, in order
  std::string backend = "auto";                ///< --backend auto|cpu|cuda
  bool headless = false;                       ///< --headless
  std::string out_image;                       ///< --out IMAGE.png
  std::string out_dir;                         ///< --out-dir DIR
  int image_width = 1024, image_height = 832;  ///< --image-size WxH
  bool no_image = false;                       ///< --no-image
  std::string list_params;                     ///< --list-params WORKLOAD
  int frames = 0;                              ///< --frames N (GUI: quit N frames after the result)
  std::string screenshot;                      ///< --screenshot FILE.png (GUI: then quit)
  bool quiet = false;                          ///< --quiet
  bool resume = false;                         ///< --resume (headless studies)
  double checkpoint_interval = 60;             ///< --checkpoint-interval SECONDS
  std::string mpi_split = "auto";     ///< --mpi-split targets|sources|auto (field under mpirun)
  std::vector<std::string> pin_sets;  ///< --pin-set NAME=VALUE (headless: A for a comparison)
  std::string sweep;    ///< --sweep NAME=START:STOP:FRAMES (headless: frames, sweep.mp4)
  int record = 0;       ///< --record FRAMES (GUI: the view's next frames to PNG and MP4)
  std::string profile;  ///< --profile x0,y0:x1,y1[:samples] (headless: DIR/profile.csv)
  bool estimate = false;  ///< --estimate (headless oscillators: the projected time, not run)
};

}  // namespace simscope::app
