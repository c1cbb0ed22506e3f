#pragma once
/// @file A writer of version-3 study checkpoints, the format older builds wrote in one process
/// (app/run/oscillators/study_checkpoint.hpp describes it), for the tests of its import. simscope
/// itself writes version 4 only.
#include <cstdint>
#include <string>

#include "core/backend.hpp"
#include "params/schema.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "oscillators/study.hpp"

namespace simscope::test {

/// Writes the checkpoints of one study into `dir`.
class StudyCheckpointV3Writer {
  using Backend = simscope::Backend;
  using ParamSet = simscope::ParamSet;
  using CheckpointHeader = simscope::app::CheckpointHeader;

 public:
  /// `resumed`: the header of the checkpoint in `dir` that the study resumed from (its blocks are
  /// on disk); null: a new study (the folder is emptied and created at the first write).
  StudyCheckpointV3Writer(std::string dir, const std::string& workload, const ParamSet& p,
                          Backend backend, const CheckpointHeader* resumed = nullptr);
  /// Writes `sp` as the next generation (finished blocks once each, the sums, the block under
  /// way, checkpoint.json last). Throws simscope::Error naming the file that failed.
  void write(const oscillators::StudyProgress& sp);

 private:
  std::string dir_, workload_, backend_;
  const ParamSet* params_;
  int blocks_on_disk_ = 0;
  std::int64_t generation_ = 0;
  bool fresh_ = true;
};

}  // namespace simscope::test
