// Stand-ins for the app's workload registry (app/workload_registry.cpp pulls in every workload
// and the renderer). session.cpp refers to make_workload and workload_names from functions the
// harnesses never call (check_command_line, make_session); reaching one is a harness bug,
// reported as such.
#include <cstdio>
#include <cstdlib>

#include "workload.hpp"

namespace simscope::app {

std::unique_ptr<Workload> make_workload(const std::string& name) {
  std::fprintf(stderr, "fuzz_app_stubs: make_workload('%s') is not in the fuzz build\n",
               name.c_str());
  std::abort();
}

const std::vector<std::string>& workload_names() {
  std::fprintf(stderr, "fuzz_app_stubs: workload_names() is not in the fuzz build\n");
  std::abort();
}

}  // namespace simscope::app
