#pragma once
/// @file What a file dropped onto the window means: a workload's input file parameter (.npy,
/// .csv or an edge list), a preset (.json with "simscope_preset"), or a run.json whose
/// parameters are restored. Pure: reads only the file's header or JSON.
#include <string>
#include <utility>
#include <vector>

namespace simscope::app {

/// A dropped file's use.
struct DropPlan {
  enum class Kind { Input, Preset, Run };
  Kind kind = Kind::Input;
  /// The workload it is for: the current one for inputs; the preset's or run's own otherwise.
  std::string workload;
  /// Input: parameters to set, NAME and VALUE. The file parameter, and its selector where the
  /// workload reads the file only when selected, e.g. init=file.
  std::vector<std::pair<std::string, std::string>> sets;
  std::string summary;  ///< e.g. "sources.file = /data/src.npy"
};

/// The plan for dropping `path` while workload `workload` is shown:
///  - one of the workload's input files (WorkloadDescriptor::inputs: extension, .npy shape, the
///    parameters it sets);
///  - .json with "simscope_preset": a preset;
///  - .json with "workload" and "params" (run.json): a run whose parameters are restored.
/// Throws simscope::Error naming the file and what the workload takes when the file fits
/// nothing: another extension, an .npy of another shape, a JSON that is neither.
DropPlan plan_drop(const std::string& path, const std::string& workload);


}  // namespace simscope::app
