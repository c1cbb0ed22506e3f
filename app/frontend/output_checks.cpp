#include "output_checks.hpp"

#include <unistd.h>

#include <filesystem>

#include "core/error.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;

bool writable(const fs::path& p) { return ::access(p.c_str(), W_OK) == 0; }

/// `p` made absolute, without "." or ".." parts; links are not resolved.
fs::path absolute_clean(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec).lexically_normal();
  if (a.has_relative_path() && !a.has_filename()) a = a.parent_path();  // "dir/" -> "dir"
  return a;
}

}  // namespace

void check_output_dir(const std::string& dir) {
  std::error_code ec;
  const fs::path info = absolute_clean(dir);
  if (fs::exists(info, ec)) {
    if (!fs::is_directory(info, ec))
      throw Error(dir + ": output directory is an existing file, not a directory");
    if (!writable(info)) throw Error(dir + ": output directory is not writable");
    return;
  }
  if (info.filename().string().size() > 255)
    throw Error(dir + ": output directory name is longer than 255 bytes");
  // The nearest existing ancestor must be a writable directory, to create the rest.
  fs::path up = info.parent_path();
  while (!fs::exists(up, ec) && up != up.root_path()) up = up.parent_path();
  if (!fs::is_directory(up, ec))
    throw Error(dir + ": cannot create the output directory (" + up.string() +
                " is not a directory)");
  if (!writable(up))
    throw Error(dir + ": cannot create the output directory (" + up.string() +
                " is not writable)");
}

void check_output_file(const std::string& path, const std::string& dir_to_create) {
  std::error_code ec;
  const fs::path info = absolute_clean(path);
  if (fs::is_directory(info, ec))
    throw Error(path + ": is a directory; expected a file name ending in .png");
  if (info.filename().string().size() > 255)
    throw Error(path + ": file name longer than 255 bytes");
  const fs::path parent = info.parent_path();
  if (!dir_to_create.empty() && parent == absolute_clean(dir_to_create))
    return;  // checked separately
  if (!fs::exists(parent, ec))
    throw Error(path + ": directory " + parent.string() + " does not exist");
  if (!fs::is_directory(parent, ec) || !writable(parent))
    throw Error(path + ": directory " + parent.string() + " is not writable");
}

}  // namespace simscope::app
