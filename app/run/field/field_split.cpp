#include "field_split.hpp"

namespace simscope::app {

std::string choose_field_split(std::size_t sources, std::size_t targets, double share_bytes) {
  if (share_bytes > 0 && 32.0 * double(sources) > share_bytes) return "sources";
  if (double(sources) > kSourcesPerTarget * double(targets)) return "sources";
  return "targets";
}

}  // namespace simscope::app
