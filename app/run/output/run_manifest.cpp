#include "output/run_manifest.hpp"

#include "core/isa.hpp"

namespace simscope::app {

Json render_view_json(const RenderInfo& render) {
  Json v = Json::object();
  v["output"] = render.output;
  v["colormap"] = render.colormap;
  v["scale"] = render.scale;
  v["range"] = Json::array({json_number(render.range_lo), json_number(render.range_hi)});
  return v;
}

Json run_manifest(const RunResult& r, const std::string& backend_notice, const RenderInfo& render,
                  const std::map<std::string, std::string>& front_end_versions) {
  Json versions = Json::object();
  versions["simscope"] = SIMSCOPE_VERSION;
  versions["compiler"] = std::string("g++ ") + __VERSION__;
  const CudaStatus& cs = cuda_status();
  versions["cuda_compiled"] = cs.compiled;
  for (const auto& [k, v] : front_end_versions) versions[k] = v;

  Json backend = Json::object();
  backend["name"] = to_string(r.backend);
  backend["device"] = r.backend == Backend::Cuda ? cs.device : cpu_device_name();
  backend["notice"] = backend_notice;
  // The instruction-set level of the CPU kernels (core/isa.hpp) and what chose it.
  backend["cpu_kernels"] = isa_name(isa_level());
  backend["cpu_kernels_chosen_by"] = isa_chosen_by();

  Json timings = Json::object();
  timings["compute_s"] = json_number(r.compute_seconds);  // the kernels
  timings["run_s"] = json_number(r.total_seconds);        // the run: inputs, kernels, outputs
  timings["render_s"] = json_number(render.seconds);      // view.png
  timings["total_s"] = json_number(r.total_seconds + render.seconds);

  Json stats = Json::object();
  for (const auto& [k, v] : r.stats) stats[k] = json_number(v);
  for (const auto& [k, v] : r.stat_texts) stats[k] = v;

  Json warnings = Json::array();
  for (const auto& w : r.warnings) warnings.push_back(w);

  Json outputs = Json::array();
  for (const auto& o : r.outputs) {
    Json j = Json::object();
    j["name"] = o.name;
    j["file"] = o.name + ".npy";
    j["dtype"] = io::to_string(o.dtype);
    Json shape = Json::array();
    for (auto d : o.shape) shape.push_back(std::int64_t(d));
    j["shape"] = shape;
    j["unit"] = o.unit;
    outputs.push_back(j);
  }

  Json m = Json::object();
  m["simscope"] = versions;
  m["workload"] = r.workload;
  m["params"] = params_to_json(r.params);
  m["backend"] = backend;
  m["timings"] = timings;
  m["stats"] = stats;
  m["warnings"] = warnings;
  m["outputs"] = outputs;
  if (!render.context.empty()) {
    Json rj = Json::object();
    rj["context"] = render.context;
    rj["renderer"] = render.renderer;
    rj["upload_path"] = render.upload_path;
    if (!render.output.empty()) rj["view"] = render_view_json(render);
    m["render"] = rj;
  }
  return m;
}

}  // namespace simscope::app
