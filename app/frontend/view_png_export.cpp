#include "view_png_export.hpp"

#include <memory>
#include <mutex>

#include "png.hpp"
#include "png_metadata.hpp"

namespace simscope::app {

ExportFile view_png_file(const std::string& path, std::vector<std::uint8_t> rgba, int width,
                         int height, const RunResult& r, const Json& manifest) {
  Json view = Json::object();
  if (manifest.contains("render") && manifest["render"].contains("view"))
    view = manifest["render"]["view"];
  std::map<std::string, std::string> text = png_metadata(r.workload, r.params);
  text["simscope.view"] = json_text(view, true);
  auto pixels = std::make_shared<std::vector<std::uint8_t>>(std::move(rgba));
  ExportFile f;
  f.path = path;
  f.staged_name = "view.png";
  f.write = [pixels, width, height, text](const std::string& staged) {
    write_png(staged, *pixels, width, height, text);
  };
  return f;
}

namespace {
std::mutex versions_mutex;
std::map<std::string, std::string>& versions() {
  static std::map<std::string, std::string> v;
  return v;
}
}  // namespace

void add_front_end_version(const std::string& library, const std::string& version) {
  std::lock_guard<std::mutex> lock(versions_mutex);
  versions()[library] = version;
}

std::map<std::string, std::string> front_end_versions() {
  std::lock_guard<std::mutex> lock(versions_mutex);
  return versions();
}

}  // namespace simscope::app
