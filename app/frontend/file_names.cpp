#include "file_names.hpp"

#include <ctime>
#include <filesystem>

namespace simscope::app {

std::string local_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm t{};
  localtime_r(&now, &t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &t);
  return buf;
}

std::string unused_name(const std::string& stem, const std::string& ext) {
  std::error_code ec;
  std::string name = stem + ext;
  for (int k = 2; std::filesystem::exists(name, ec); ++k)
    name = stem + "-" + std::to_string(k) + ext;
  return name;
}

}  // namespace simscope::app
