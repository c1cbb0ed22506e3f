#include "sweep_frame.hpp"

#include <cstdio>
#include <filesystem>

#include "params/params_json.hpp"
#include "png.hpp"
#include "png_metadata.hpp"

namespace simscope::app {

SweepFrame write_sweep_frame(const std::string& dir, std::size_t k,
                             const std::vector<std::uint8_t>& rgba, int width, int height,
                             const RunResult& r, const std::string& what, const Json& view) {
  char name[32];
  std::snprintf(name, sizeof name, "frames/%04zu.png", k);
  SweepFrame f;
  f.path = (std::filesystem::path(dir) / name).string();
  std::map<std::string, std::string> text = png_metadata(r.workload, r.params);
  text["simscope.sweep"] = what + " frame " + std::to_string(k);
  if (view.is_object()) text["simscope.view"] = json_text(view, true);
  write_png(f.path, rgba, width, height, text);
  f.item["file"] = name;
  f.item["params"] = params_to_json(r.params);
  f.item["compute_seconds"] = r.compute_seconds;
  if (view.is_object()) f.item["view"] = view;
  return f;
}

}  // namespace simscope::app
