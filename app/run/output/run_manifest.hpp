#pragma once
/// @file run.json: what a run did.
#include <map>
#include <string>

#include "output/json.hpp"
#include "params/params_json.hpp"
#include "workload.hpp"

namespace simscope::app {

/// How view.png was rendered; empty when none was.
struct RenderInfo {
  std::string context;      ///< e.g. "egl-surfaceless"
  std::string renderer;     ///< GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string upload_path;  ///< "cuda-gl interop", "device->host copy" or "host upload"
  double seconds = 0;
  /// The output drawn, the colormap and scale used, and the colour range [lo, hi] in data units.
  /// For a log scale the range holds values, not logarithms. Empty output: not recorded.
  std::string output, colormap, scale;
  double range_lo = 0, range_hi = 0;
};

/// How the view was drawn, as run.json's render.view and a PNG's simscope.view record it:
/// {"output", "colormap", "scale", "range": [lo, hi]}, from `render`'s output onwards.
Json render_view_json(const RenderInfo& render);

/// The manifest of `result` (README, "File formats"): versions (with the front end's `versions`,
/// e.g. {"qt": "6.4.2"}), workload, params, backend, timings, stats, warnings, outputs, and
/// "render" when `render` has a context.
Json run_manifest(const RunResult& result, const std::string& backend_notice,
                  const RenderInfo& render,
                  const std::map<std::string, std::string>& versions = {});

}  // namespace simscope::app
