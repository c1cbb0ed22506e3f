// Study checkpoints as the headless front ends use them: opened for a run, the resume rules,
// the interrupted run's message, removal (study_checkpoint.hpp). The folder's format:
// study_checkpoint_format.cpp, study_checkpoint_blocks.cpp, study_checkpoint_import.cpp.
#include "oscillators/study_checkpoint.hpp"

#include <cstdio>
#include <filesystem>
#include <mutex>

#include "job/cache_key.hpp"
#include "oscillators/study_checkpoint_files.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;
using checkpoint_files::path_in;

bool compared(const std::string& name) { return name != "view" && name.rfind("live.", 0) != 0; }

}  // namespace

std::string checkpoint_dir(const std::string& out_dir) { return path_in(out_dir, "checkpoint"); }

OpenedCheckpoint open_study_checkpoint(const std::string& workload, const ParamSet& params,
                                       Backend backend, const std::string& out_dir, bool resume,
                                       double interval_s) {
  OpenedCheckpoint o;
  o.request = std::make_shared<StudyCheckpointRequest>();
  o.request->workload = workload;
  o.request->dir = checkpoint_dir(out_dir);
  o.request->resume = resume;
  o.request->interval_s = interval_s;
  o.header = read_checkpoint_header(o.request->dir);
  check_resume_rules(o.request->dir, resume, o.header, workload, params, backend);
  return o;
}

void check_resume_rules(const std::string& dir, bool resume,
                        const std::optional<CheckpointHeader>& header,
                        const std::string& workload, const ParamSet& params, Backend backend) {
  if (resume && !header)
    throw CheckpointRefused("--resume: no checkpoint in " + dir +
                            " (nothing to resume; run without --resume to start the study)");
  if (!resume && header)
    throw CheckpointRefused(dir + " holds the checkpoint of an interrupted study (" +
                            std::to_string(checkpoint_members_done(dir, *header)) + " of " +
                            std::to_string(header->members) +
                            " members done): add --resume to continue it, or remove that "
                            "folder to start over");
  if (header) check_resumable(*header, workload, params, backend, dir);
}

void check_resumable(const CheckpointHeader& h, const std::string& workload, const ParamSet& p,
                     Backend backend, const std::string& dir) {
  const std::string tail = " in the checkpoint " + dir +
                           "; resume with the interrupted study's command line, or remove that "
                           "folder to start a new study";
  if (h.workload != workload)
    throw CheckpointRefused("--resume: the workload is " + workload + " here but " + h.workload +
                            tail);
  if (h.backend != to_string(backend))
    throw CheckpointRefused("--resume: --backend is " + std::string(to_string(backend)) +
                            " here but " + h.backend + tail);
  for (const ParamSpec& spec : p.schema().specs()) {
    if (!compared(spec.name)) continue;
    const std::string now = format_value(p.get(spec.name));
    const auto it = h.params.find(spec.name);
    if (it == h.params.end())
      throw CheckpointRefused("--resume: " + spec.name + " is " + now + " here but not set" + tail);
    if (it->second != now)
      throw CheckpointRefused("--resume: " + spec.name + " is " + now + " here but " + it->second +
                              tail);
    // Same file name but edited file: the study would continue from other inputs.
    const auto f = h.files.find(spec.name);
    if (spec.type == ParamType::Path && f != h.files.end() &&
        file_identity(p.get_string(spec.name)) != f->second)
      throw CheckpointRefused("--resume: the file " + spec.name + " = " + now +
                              " was changed since the checkpoint was written (its size or "
                              "modification time differ)" +
                              tail);
  }
}

bool StudyCheckpointRequest::prepare_for_ranks(const ParamSet& params, Backend backend) {
  const std::optional<CheckpointHeader> header = read_checkpoint_header(dir);
  prepare_block_checkpoint(dir, workload, params, backend, header);
  return !header;
}

bool StudyCheckpointRequest::saved_nothing() const {
  try {
    const std::optional<CheckpointHeader> h = read_checkpoint_header(dir);
    return h && !block_checkpoint_has_progress(dir, *h);
  } catch (const std::exception&) {
    return false;
  }
}

std::string StudyCheckpointRequest::interrupted_message(const std::string& signal) {
  StudyCheckpointRequest* ck = this;
  std::string line = "interrupted by " + signal;
  {
    std::lock_guard<std::mutex> lock(ck->mutex);
    if (!ck->error.empty())
      return line + "; the checkpoint could not be written (" + ck->error + "); no outputs written";
  }
  std::optional<CheckpointHeader> h;
  try {
    h = read_checkpoint_header(ck->dir);
  } catch (const std::exception&) {
  }
  if (!h ||
      (h->version == kCheckpointVersionWritten && !block_checkpoint_has_progress(ck->dir, *h)))
    return line + " before the first checkpoint; no outputs written (nothing to resume)";
  char buf[160];
  std::snprintf(buf, sizeof buf, "; checkpoint %s: %d of %d members done, %.1f %% of the study",
                ck->dir.c_str(), checkpoint_members_done(ck->dir, *h), h->members,
                100.0 * checkpoint_fraction_done(ck->dir, *h));
  return line + buf + "; run the same command with --resume to continue it";
}

}  // namespace simscope::app
