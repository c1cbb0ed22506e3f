#include "job/run_command.hpp"

#include "core/error.hpp"

namespace simscope::app {

const char* to_string(RunCommand c) {
  switch (c) {
    case RunCommand::Whole: return "";
    case RunCommand::Study: return "study";
    case RunCommand::Live: return "live";
    case RunCommand::Step: return "step";
    case RunCommand::Reset: return "reset";
  }
  return "";
}

RunCommand parse_run_command(const std::string& name) {
  for (RunCommand c : {RunCommand::Whole, RunCommand::Study, RunCommand::Live, RunCommand::Step,
                       RunCommand::Reset})
    if (name == to_string(c)) return c;
  throw Error("unknown run command '" + name + "' (study, live, step, reset)");
}

}  // namespace simscope::app
