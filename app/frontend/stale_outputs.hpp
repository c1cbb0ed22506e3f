#pragma once
/// @file Cleaning a reused --out-dir.
/// Outputs of an earlier run that this run does not write again are removed, so the folder holds
/// one run's results and no stale file passes for a new one.
#include <string>

namespace simscope::app {

/// What this run writes into its output folder besides its own files, which it overwrites.
struct OutputsKept {
  bool profile = false;  ///< profile.csv (--profile)
  bool pinned = false;   ///< pinned/ and difference/ (--pin-set)
  bool frames = false;   ///< frames/ and sweep.mp4 (--sweep): cleared all the same (re-written)
  /// The run's own outputs, <output>.npy and view.png. False for a sweep, which writes only frames
  /// and run.json, so earlier .npy files and view.png are removed.
  bool run_outputs = true;
};

/// Removes from `dir` what an earlier simscope run wrote there and this one does not keep:
///   - profile.csv;
///   - pinned/ when it holds a run.json, and difference/*.npy;
///   - frames/NNNN.png and sweep.mp4, also for a sweep, whose frames are written afresh;
///   - without run_outputs: view.png and the .npy file of every registered workload's outputs.
/// Empty folders left behind are removed too; other files are never touched. Returns the number of
/// files removed. Throws simscope::Error naming a file that exists but cannot be removed.
int remove_stale_outputs(const std::string& dir, const OutputsKept& keep);

}  // namespace simscope::app
