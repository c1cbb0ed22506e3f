#include "view_png_export.hpp"

#include <QString>
#include <QtGlobal>
#include <memory>

#include "params_json.hpp"
#include "png.hpp"

namespace simscope::app {

ExportFile view_png_file(const std::string& path, std::vector<std::uint8_t> rgba, int width,
                         int height, const RunResult& r, const Json& manifest) {
  Json view = Json::object();
  if (manifest.contains("render") && manifest["render"].contains("view"))
    view = manifest["render"]["view"];
  std::map<QString, QString> text{{"Software", "simscope " SIMSCOPE_VERSION},
                                  {"simscope.workload", QString::fromStdString(r.workload)},
                                  {"simscope.params", QString::fromStdString(to_text(r.params))},
                                  {"simscope.view", QString::fromStdString(json_text(view, true))}};
  auto pixels = std::make_shared<std::vector<std::uint8_t>>(std::move(rgba));
  ExportFile f;
  f.path = path;
  f.staged_name = "view.png";
  f.write = [pixels, width, height, text](const std::string& staged) {
    write_png(staged, *pixels, width, height, text);
  };
  return f;
}

std::map<std::string, std::string> front_end_versions() { return {{"qt", qVersion()}}; }

}  // namespace simscope::app
