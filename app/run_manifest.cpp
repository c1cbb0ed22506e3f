#include "run_manifest.hpp"

#include <QJsonArray>
#include <QtGlobal>

#include "params_json.hpp"

namespace simscope::app {

QJsonObject run_manifest(const RunResult& r, const std::string& backend_notice,
                         const RenderInfo& render) {
  QJsonObject versions;
  versions["simscope"] = SIMSCOPE_VERSION;
  versions["qt"] = qVersion();
  versions["compiler"] = QString("g++ ") + __VERSION__;
  const CudaStatus& cs = cuda_status();
  versions["cuda_compiled"] = cs.compiled;

  QJsonObject backend;
  backend["name"] = to_string(r.backend);
  backend["device"] =
      r.backend == Backend::Cuda ? QString::fromStdString(cs.device) : QString("CPU (OpenMP)");
  backend["notice"] = QString::fromStdString(backend_notice);

  QJsonObject timings;
  timings["compute_s"] = r.compute_seconds;  // the kernels
  timings["run_s"] = r.total_seconds;        // the run: inputs, kernels, outputs
  timings["render_s"] = render.seconds;      // view.png
  timings["total_s"] = r.total_seconds + render.seconds;

  QJsonObject stats;
  for (const auto& [k, v] : r.stats) stats[QString::fromStdString(k)] = v;

  QJsonArray warnings;
  for (const auto& w : r.warnings) warnings.append(QString::fromStdString(w));

  QJsonArray outputs;
  for (const auto& o : r.outputs) {
    QJsonObject j;
    j["name"] = QString::fromStdString(o.name);
    j["file"] = QString::fromStdString(o.name + ".npy");
    j["dtype"] = io::to_string(o.dtype);
    QJsonArray shape;
    for (auto d : o.shape) shape.append(qint64(d));
    j["shape"] = shape;
    j["unit"] = QString::fromStdString(o.unit);
    outputs.append(j);
  }

  QJsonObject m;
  m["simscope"] = versions;
  m["workload"] = QString::fromStdString(r.workload);
  m["params"] = to_json(r.params);
  m["backend"] = backend;
  m["timings"] = timings;
  m["stats"] = stats;
  m["warnings"] = warnings;
  m["outputs"] = outputs;
  if (!render.context.empty()) {
    QJsonObject rj;
    rj["context"] = QString::fromStdString(render.context);
    rj["renderer"] = QString::fromStdString(render.renderer);
    rj["upload_path"] = QString::fromStdString(render.upload_path);
    if (!render.output.empty()) {
      QJsonObject v;
      v["output"] = QString::fromStdString(render.output);
      v["colormap"] = QString::fromStdString(render.colormap);
      v["scale"] = QString::fromStdString(render.scale);
      v["range"] = QJsonArray{render.range_lo, render.range_hi};
      rj["view"] = v;
    }
    m["render"] = rj;
  }
  return m;
}

}  // namespace simscope::app
