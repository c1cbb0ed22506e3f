#include "presets/shipped_presets.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "params/closest_names.hpp"

#ifndef SIMSCOPE_SOURCE_PRESETS
#define SIMSCOPE_SOURCE_PRESETS ""
#endif

namespace simscope::app {
namespace {

namespace fs = std::filesystem;

bool is_folder(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

/// The folder of the running executable (/proc/self/exe), or empty.
fs::path executable_folder() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

}  // namespace

std::vector<std::string> preset_folders() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("SIMSCOPE_PRESETS_DIR"); env && *env) candidates.push_back(env);
  if (const fs::path bin = executable_folder(); !bin.empty())
    candidates.push_back(bin.parent_path() / "share" / "simscope" / "presets");
  candidates.push_back(SIMSCOPE_SOURCE_PRESETS);
  std::vector<std::string> out;
  for (const auto& c : candidates)
    if (is_folder(c) && std::find(out.begin(), out.end(), c.string()) == out.end())
      out.push_back(c.string());
  return out;
}

std::vector<std::string> shipped_presets() {
  std::vector<std::string> names;
  for (const auto& folder : preset_folders()) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder, ec))
      if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string find_preset(const std::string& name_or_path) {
  std::error_code ec;
  if (fs::exists(name_or_path, ec) || name_or_path.find('/') != std::string::npos ||
      fs::path(name_or_path).extension() == ".json")
    return name_or_path;
  for (const auto& folder : preset_folders()) {
    const fs::path p = fs::path(folder) / (name_or_path + ".json");
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  const std::vector<std::string> names = shipped_presets();
  std::vector<KnownName> known;
  std::string list;
  for (const auto& n : names) {
    known.push_back({n, {}});
    list += (list.empty() ? "" : ", ") + n;
  }
  const std::string hint = did_you_mean(name_or_path, known);
  throw Error("preset '" + quote_text(name_or_path) +
              "': no such file and no shipped preset of that name" +
              (hint.empty() ? "" : " (" + hint + ")") +
              (list.empty() ? " (no shipped presets found)" : " (shipped: " + list + ")"));
}

}  // namespace simscope::app
