#include "lsq/method_note.hpp"

#include <cstdint>

namespace simscope::app {

std::string method_on_host_note(const RunResult& r) {
  const auto flag = r.stats.find("method_on_host");
  if (r.backend != Backend::Cuda || flag == r.stats.end() || flag->second != 1) return "";
  std::string note = "method";
  if (r.params.has_schema() && r.params.schema().find("method"))
    note += " " + r.params.get_string("method");
  note += " ran on the host (CPU)";
  const auto host = r.stats.find("host_pixels"), all = r.stats.find("pixels");
  if (host != r.stats.end() && all != r.stats.end())
    note += " for " + std::to_string(std::uint64_t(host->second)) + " of " +
            std::to_string(std::uint64_t(all->second)) + " pixels";
  return note + ", not on CUDA";
}

}  // namespace simscope::app
