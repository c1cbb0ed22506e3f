#include "render/colormap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>

#include "colormaps_embedded.hpp"
#include "render/error.hpp"

namespace simscope::render {

namespace {

Colormap parse(const std::string& name, std::string_view csv) {
  Colormap map;
  map.name = name;
  map.cyclic = name == "twilight";
  std::istringstream in{std::string(csv)};
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::array<float, 3> rgb{};
    const char* p = line.c_str();
    for (int c = 0; c < 3; ++c) {
      char* end = nullptr;
      const double v = std::strtod(p, &end);
      if (end == p || !(v >= 0.0 && v <= 1.0) || (c < 2 && *end != ',')) {
        throw RenderError("colormap " + name + ".csv, line " + std::to_string(line_no) +
                          ": expected \"r,g,b\" with values in [0, 1]");
      }
      rgb[c] = static_cast<float>(v);
      p = end + (c < 2 ? 1 : 0);
    }
    map.table.push_back(rgb);
  }
  if (map.table.size() != 256) {
    throw RenderError("colormap " + name + ".csv has " + std::to_string(map.table.size()) +
                      " rows, expected 256");
  }
  return map;
}

}  // namespace

std::array<float, 3> Colormap::sample(double t) const {
  if (table.empty()) return {0.f, 0.f, 0.f};
  if (!(t > 0.0)) return table.front();  // also NaN
  if (t >= 1.0) return table.back();
  const double x = t * static_cast<double>(table.size() - 1);
  const size_t k = static_cast<size_t>(x);
  const double f = x - static_cast<double>(k);
  const auto& a = table[k];
  const auto& b = table[std::min(k + 1, table.size() - 1)];
  std::array<float, 3> out{};
  for (int c = 0; c < 3; ++c) out[c] = static_cast<float>(a[c] + f * (b[c] - a[c]));
  return out;
}

const std::vector<std::string>& colormap_names() {
  static const std::vector<std::string> names = {"viridis", "inferno",  "magma", "plasma",
                                                 "turbo",   "coolwarm", "gray",  "twilight"};
  return names;
}

const Colormap& colormap(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, Colormap> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  const auto& names = colormap_names();
  const std::string_view csv = std::find(names.begin(), names.end(), name) != names.end()
                                   ? simscope::embedded::colormaps::find(name + ".csv")
                                   : std::string_view{};
  if (csv.empty()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw RenderError("unknown colormap '" + name + "': expected one of " + list);
  }
  return cache.emplace(name, parse(name, csv)).first->second;
}

}  // namespace simscope::render
