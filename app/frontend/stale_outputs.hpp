#pragma once
/// @file A reused --out-dir: the outputs of an earlier run that this run does not write again
/// are removed, so that the folder holds one run's results and no stale file can be taken for
/// a new one (a profile.csv of other parameters, a sweep's frames beyond this sweep's count).
#include <string>

namespace simscope::app {

/// What this run writes into its output folder, besides the run's own files (which it
/// overwrites anyway).
struct OutputsKept {
  bool profile = false;  ///< profile.csv (--profile)
  bool pinned = false;   ///< pinned/ and difference/ (--pin-set)
  bool frames = false;   ///< frames/ and sweep.mp4 (--sweep): cleared all the same (re-written)
  /// The run's own outputs (<output>.npy, view.png): false for a sweep, which writes frames and
  /// run.json only, so an earlier run's .npy files of any workload's outputs and view.png go.
  bool run_outputs = true;
};

/// Removes from `dir` what simscope wrote there in an earlier run and this one does not keep:
/// profile.csv; pinned/ (when it holds a run.json: a simscope export) and difference/*.npy;
/// frames/NNNN.png and sweep.mp4 (for a sweep too: its frames are written afresh); without
/// run_outputs, view.png and the .npy file of every registered workload's outputs. Empty folders
/// left behind go as well; other files are never touched. Returns the number of files removed.
/// Throws simscope::Error naming a file that exists but cannot be removed.
int remove_stale_outputs(const std::string& dir, const OutputsKept& keep);

}  // namespace simscope::app
