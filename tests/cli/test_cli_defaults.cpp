// README ("The oscillators workload"): a headless study checkpoints on the CPU mid-block at least
// every `--checkpoint-interval SECONDS`, default 60. The option's value reaches the study through
// RunOptions -> StudyCheckpointRequest -> StudyCheckpointing (the headless front ends, the
// oscillators adapter); e2e_resume.py runs explicit values end to end. This checks the default
// at each step, without a run of 60 s: the parsed command line without the option, and the two
// requests' own defaults (used where nothing sets them).
#include <gtest/gtest.h>

#include "cli.hpp"
#include "oscillators/study.hpp"
#include "oscillators/study_checkpoint.hpp"

namespace simscope::app {
namespace {

constexpr double kReadmeDefault = 60;  // README: "--checkpoint-interval SECONDS, default 60"

TEST(CliDefaults, CheckpointIntervalIsSixtySeconds) {
  const CliParse p = parse_command_line(
      {"simscope", "--headless", "--workload", "oscillators", "--out-dir", "study"});
  ASSERT_TRUE(p.options.has_value()) << "exit " << p.exit_code;
  EXPECT_EQ(p.options->checkpoint_interval, kReadmeDefault);
  const CliParse given = parse_command_line(
      {"simscope", "--headless", "--workload", "oscillators", "--checkpoint-interval", "2.5"});
  ASSERT_TRUE(given.options.has_value());
  EXPECT_EQ(given.options->checkpoint_interval, 2.5);  // the option is read, not the default
  EXPECT_EQ(StudyCheckpointRequest{}.interval_s, kReadmeDefault);
  EXPECT_EQ(oscillators::StudyCheckpointing{}.interval_s, kReadmeDefault);
}

}  // namespace
}  // namespace simscope::app
