// Checkpoints of headless runs as the front ends see them (checkpoint.hpp).
#include "job/checkpoint.hpp"

#include <filesystem>

#include "workload.hpp"

namespace simscope::app {

std::shared_ptr<CheckpointRequest> open_checkpoint(const std::string& workload,
                                                   const ParamSet& params, Backend backend,
                                                   const std::string& out_dir, bool resume,
                                                   double interval_s) {
  const WorkloadDescriptor& d = workload_descriptor(workload);
  if (d.open_checkpoint) return d.open_checkpoint(params, backend, out_dir, resume, interval_s);
  if (resume) {
    std::string studies;  // the workloads whose runs do keep one
    for (const WorkloadDescriptor& w : workloads())
      if (w.open_checkpoint) studies += (studies.empty() ? "" : " or ") + w.name;
    throw CheckpointRefused("--resume continues an interrupted " + studies + " study; workload " +
                            workload + " keeps no checkpoint");
  }
  return nullptr;
}

std::string interrupted_message(const std::string& signal, CheckpointRequest* ck) {
  if (!ck) return "interrupted by " + signal + "; no outputs written";
  return ck->interrupted_message(signal);
}

void remove_checkpoint(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace simscope::app
