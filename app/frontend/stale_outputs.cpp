#include "stale_outputs.hpp"

#include <filesystem>
#include <functional>

#include "core/error.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;

void remove_file(const fs::path& path, int& count) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return;
  if (!fs::remove(path, ec) || ec)
    throw Error("cannot remove the earlier run's " + path.string() + " from the output folder");
  ++count;
}

/// Removes the files of `base`/`sub` whose names pass `match`, then `sub` itself when empty.
void remove_matching(const fs::path& base, const std::string& sub,
                     const std::function<bool(const std::string&)>& match, int& count) {
  const fs::path d = base / sub;
  std::error_code ec;
  if (!fs::is_directory(d, ec)) return;
  std::vector<fs::path> doomed;
  for (const auto& e : fs::directory_iterator(d, ec))
    if (e.is_regular_file(ec) && match(e.path().filename().string())) doomed.push_back(e.path());
  for (const auto& p : doomed) remove_file(p, count);
  if (fs::is_empty(d, ec)) fs::remove(d, ec);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// NNNN.png with four or more digits: a sweep's frames.
bool frame_name(const std::string& f) {
  if (!ends_with(f, ".png") || f.size() < 8) return false;
  for (std::size_t k = 0; k + 4 < f.size(); ++k)
    if (f[k] < '0' || f[k] > '9') return false;
  return true;
}

}  // namespace

int remove_stale_outputs(const std::string& dir, const OutputsKept& keep) {
  const fs::path base(dir);
  int count = 0;
  std::error_code ec;
  if (!fs::exists(base, ec)) return 0;
  if (!keep.profile) remove_file(base / "profile.csv", count);
  if (!keep.pinned) {
    const fs::path pinned = base / "pinned";
    if (fs::is_regular_file(pinned / "run.json", ec)) {  // a simscope export: all of it is ours
      for (const auto& e : fs::directory_iterator(pinned, ec))
        if (e.is_regular_file(ec)) ++count;
      fs::remove_all(pinned, ec);
      if (ec)
        throw Error("cannot remove the earlier run's " + pinned.string() +
                    " from the output folder");
    }
    remove_matching(base, "difference", [](const std::string& f) { return ends_with(f, ".npy"); },
                    count);
  }
  // Frames are always cleared: a sweep rewrites them, and fewer frames would leave old ones.
  remove_matching(base, "frames", frame_name, count);
  remove_file(base / "sweep.mp4", count);
  (void)keep.frames;
  if (!keep.run_outputs) {
    remove_file(base / "view.png", count);
    for (const WorkloadDescriptor& w : workloads())
      for (const OutputSpec& o : w.outputs) remove_file(base / (o.name + ".npy"), count);
  }
  return count;
}

}  // namespace simscope::app
