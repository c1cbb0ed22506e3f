#include "job/cache_key.hpp"

#include <filesystem>

namespace simscope::app {

std::string file_identity(const std::string& path) {
  if (path.empty()) return "";
  std::error_code ec1, ec2;
  const auto size = std::filesystem::file_size(path, ec1);
  const auto t = std::filesystem::last_write_time(path, ec2);
  if (ec1 || ec2) return path + "@?";
  return path + "@" + std::to_string(size) + ":" +
         std::to_string(
             std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

std::string cache_key(const ParamSet& p, const std::vector<std::string>& names) {
  std::string key;
  for (const std::string& n : names) {
    const ParamSpec& spec = p.schema().at(n);
    if (&n != &names.front()) key += '|';
    if (!p.schema().used(p, n))
      key += "-";
    else if (spec.type == ParamType::Path)
      key += file_identity(p.get_string(n));
    else
      key += format_value(p.get(n));
  }
  return key;
}

}  // namespace simscope::app
