#pragma once
/// @file What one run of a workload is asked to do (RunRequest::command).
#include <string>

namespace simscope::app {

/// Whole: the run a headless front end asks for (a study, for the oscillators). The others come
/// from the GUI: Study (a study started from its panel), and for a continuous() workload's kept
/// state Live (the next batch of steps), Step (one step), Reset (back to the initial state).
enum class RunCommand { Whole, Study, Live, Step, Reset };

/// The command's name: "" for Whole, else "study", "live", "step", "reset".
const char* to_string(RunCommand c);
/// The command named `name` (as to_string writes it). Throws simscope::Error
/// "unknown run command 'x' (study, live, step, reset)".
RunCommand parse_run_command(const std::string& name);

}  // namespace simscope::app
