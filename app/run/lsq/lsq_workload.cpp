// The `lsq` workload as the app drives it. The problem (files or generator) and the last solve
// are cached between runs. Outputs solution, residual, count, status and condition; warns once
// per class of pixels that are not "ok"; draws the maps upright, row 0 at the top, as imshow.
#include "lsq_workload.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>

#include "job/cache_key.hpp"
#include "core/error.hpp"
#include "lsq/lsq_params.hpp"
#include "lsq/lsq_result.hpp"
#include "lsq/lsq_stat_labels.hpp"
#include "lsq/method_note.hpp"
#include "ranges/split_merge.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

using Clock = std::chrono::steady_clock;

/// The problem's inputs: the files by identity (cache_key) and the generator's settings in use.
std::string problem_key(const ParamSet& p) {
  return cache_key(
      p, {"data.file", "data.mask", "design.file", "synth.height", "synth.width", "synth.observations",
          "synth.unknowns", "synth.nan_fraction", "synth.noise", "synth.seed", "synth.design"});
}

/// Every stride-th pixel of the cube in both directions, for a coarse preview.
lsq::Cube subsample(const lsq::Cube& c, std::size_t s) {
  lsq::Cube o;
  o.m = c.m;
  o.height = (c.height + s - 1) / s;
  o.width = (c.width + s - 1) / s;
  o.dtype = c.dtype;
  const std::size_t es = c.dtype == io::DType::Float32 ? 4 : 8;
  o.bytes.resize(o.m * o.height * o.width * es);
  for (std::size_t i = 0; i < o.m; ++i)
    for (std::size_t h = 0; h < o.height; ++h)
      for (std::size_t w = 0; w < o.width; ++w)
        std::memcpy(&o.bytes[((i * o.height + h) * o.width + w) * es],
                    &c.bytes[((i * c.height + h * s) * c.width + w * s) * es], es);
  return o;
}

class LsqWorkload final : public Workload {
 public:
  const Schema& schema() const override { return lsq::schema(); }

  RunResult run(const ParamSet& params, Backend backend, const RunRequest& request,
                Progress* progress) override {
    const auto t0 = Clock::now();
    const std::string pkey = problem_key(params);
    load_problem(params);
    const lsq::Options options = lsq::options_from(params);
    const lsq::Cube& full = problem_->cube;
    if (request.range) return run_rows(params, backend, *request.range, options, progress, t0);
    const std::size_t stride = request.preview && full.height >= 64 && full.width >= 64 ? 4 : 1;
    const std::string rkey = pkey + "|" + params.get_string("method") + "|" +
                             params.get_string("precision") + "|" +
                             format_value(params.get("lambda")) + "|" + to_string(backend);
    if (last_ && rkey == result_key_) {  // only the view changed: the full result, no preview
      RunResult r = *last_;
      r.params = params;
      r.warnings.clear();
      add_unused_warnings(r);
      add_view_warnings(r);
      add_lsq_result_warnings(r);
      r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      return r;
    }

    ensure_solver(backend);
    auto result = std::make_shared<lsq::Result>();
    if (stride > 1) {
      const lsq::Cube sub = subsample(full, stride);
      solver_->solve(sub, problem_->design, options, *result, progress);
    } else {
      solver_->solve(full, problem_->design, options, *result, progress);
    }

    RunResult r = outputs_of(params, backend, *result, options);  // the maps move into r
    r.preview = stride > 1;
    if (stride > 1) r.stats["preview_stride"] = double(stride);

    auto pl = std::make_shared<LsqPayload>();
    pl->problem = problem_;
    pl->result = result;
    pl->stride = stride;
    pl->options = options;
    pl->backend = backend;
    pl->device_ops = result->on_host ? nullptr : device_ops_;
    if (!result->on_host) pl->device_inf = result->device_inf;
    r.payload = pl;
    add_unused_warnings(r);
    add_view_warnings(r);
    add_lsq_result_warnings(r, result.get());
    r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (stride == 1) {
      last_ = std::make_shared<const RunResult>(r);
      result_key_ = rkey;
    }
    return r;
  }

  WorkAxis work_axis(const ParamSet& params) override {
    load_problem(params);
    WorkAxis a;
    a.name = "rows";
    a.length = problem_->cube.height;
    return a;
  }

  /// Concatenates rows in range order by lsq::merge_row_ranges' rule: each pixel's outputs are
  /// the unsplit solve's on the CPU. Sums the counts; warnings come from the whole. No payload.
  RunResult merge_ranges(std::vector<RunResult> parts) const override {
    check_parts(parts, "rows");
    RunResult r = parts.front();
    r.outputs.clear();
    r.warnings.clear();
    r.part.reset();
    r.payload.reset();
    // Parts of this process whose maps are in device memory merge there, without a host copy.
    std::shared_ptr<const LsqDeviceOps> ops;
    for (const RunResult& p : parts) {
      const auto* pl = p.payload_as<LsqPayload>();
      ops = pl && pl->device_ops && (!ops || pl->device_ops->device == ops->device)
                ? pl->device_ops
                : nullptr;
      if (!ops) break;
    }
    bool on_device = ops != nullptr;
    const std::pair<const char*, std::size_t> merged[] = {
        {"solution", 1}, {"residual", 0}, {"count", 0}, {"status", 0}, {"condition", 0}};
    for (const auto& [name, dim] : merged) {
      std::optional<OutputArray> o = on_device ? concat_on_device(parts, name, dim, ops)
                                               : std::nullopt;
      on_device = on_device && o;
      r.outputs.push_back(o ? std::move(*o) : concat_outputs(parts, name, dim));
    }
    if (on_device) {  // the device inf counts (add_lsq_result_warnings): the parts' sums
      auto pl = std::make_shared<LsqPayload>();
      pl->device_ops = ops;
      std::array<std::uint64_t, 2> inf{};
      bool all = true;
      for (const RunResult& p : parts) {
        const auto* ppl = p.payload_as<LsqPayload>();
        all = all && ppl->device_inf;
        if (ppl->device_inf) inf[0] += (*ppl->device_inf)[0], inf[1] += (*ppl->device_inf)[1];
      }
      if (all) pl->device_inf = inf;
      r.payload = pl;
    }
    r.compute_seconds = 0;
    r.total_seconds = 0;
    std::vector<LsqStats> stats;
    for (const RunResult& p : parts) {
      stats.push_back(LsqStats::from_map(p.stats));
      r.compute_seconds += p.compute_seconds;
      r.total_seconds += p.total_seconds;
    }
    for (const auto& [k, v] : LsqStats::merged(stats, r.compute_seconds).to_map()) r.stats[k] = v;
    add_unused_warnings(r);
    add_view_warnings(r);
    add_lsq_result_warnings(r);
    return r;
  }

 private:
  /// The problem of `params`, loaded or generated unless the cached one is it.
  void load_problem(const ParamSet& params) {
    const std::string pkey = problem_key(params);
    if (pkey != problem_key_ || !problem_) {
      problem_.reset();  // the old cube goes before the new one comes (memory)
      last_.reset();
      problem_ = std::make_shared<const lsq::Synth>(lsq::make_problem(params));
      problem_key_ = pkey;
    }
  }

  /// A work range: the pixel rows `rows` of the loaded problem. Not cached, no preview.
  RunResult run_rows(const ParamSet& params, Backend backend, const IndexRange& rows,
                     const lsq::Options& options, Progress* progress, Clock::time_point t0) {
    const lsq::Cube& full = problem_->cube;
    const IndexRange range = resolve(rows, full.height, "lsq pixel rows");
    ensure_solver(backend);
    lsq::Result result;
    solver_->solve(full, problem_->design, range, options, result, progress);
    RunResult r = outputs_of(params, backend, result, options);
    r.part = RangePart{"rows", range.begin, range.end, full.height, {}};
    // Device maps: fill_lsq_result's payload, with device operations and inf counts but no
    // problem, lets merge_ranges merge them on the device.
    add_unused_warnings(r);
    add_view_warnings(r);
    add_lsq_result_warnings(r, &result);
    r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  }

  /// The outputs and stats of a solve, without warnings or payload. The maps move out of `res`.
  RunResult outputs_of(const ParamSet& params, Backend backend, lsq::Result& res,
                       const lsq::Options& options) const {
    RunResult r;
    r.workload = "lsq";
    r.params = params;
    r.backend = backend;
    fill_lsq_result(r, res, options, problem_->cube.m, solver_->peak_device_bytes(),
                    solver_.get(), device_ops_);
    return r;
  }

  /// The solver of `backend`. A device solver keeps its maps on the device; they are copied to
  /// the host only when something reads them: export, histogram, probe.
  void ensure_solver(Backend backend) {
    if (solver_ && solver_->backend() == backend) return;
    solver_ = lsq::make_solver(backend);
    device_ops_.reset();
    if (solver_->keep_outputs_on_device(true)) device_ops_ = lsq_cuda_ops(solver_->device());
  }

 public:
  ViewHints view_hints(const std::string& view) const override {
    if (view == "solution") return {"coolwarm", "linear"};  // signed: diverging
    if (view == "status") return {"turbo", "linear"};
    if (view == "condition") return {"", "log"};  // spans decades
    return {"", "linear"};
  }

  ViewImage view_image(const RunResult& r, const std::string& view) const override {
    const OutputArray* o = r.find(view);
    if (!o) throw Error("lsq: no output called '" + view + "'");
    ViewImage img;
    img.set_hints(view_hints(view));
    std::size_t H = 0, W = 0, offset = 0;
    if (view == "solution") {
      const std::size_t N = o->shape[0];
      H = o->shape[1], W = o->shape[2];
      const std::size_t k =
          std::min<std::size_t>(std::size_t(r.params.get_int("view.component")), N - 1);
      offset = k * H * W;
      img.label = "x[" + std::to_string(k) + "]";
    } else {
      H = o->shape[0], W = o->shape[1];
      img.label = o->label;
      img.unit = o->unit;
      if (view == "status") {
        img.label = "status (0 ok, 1 underdetermined, 2 rank-deficient, 3 all missing)";
        img.range_lo = -0.5, img.range_hi = 3.5;  // each code keeps its colour
      }
    }
    // Upright: column w to the right, row h downwards; sample (i, j) = pixel (H-1-j, i).
    img.rows = int(W);
    img.cols = int(H);
    const LsqPayload* dpl = r.payload_as<LsqPayload>();
    if (dpl && dpl->device_ops && device_only(o->data)) {
      // Maps in device memory: the image is made there and drawn through CUDA-GL interop. The
      // solution's other components are never copied, and the host never sees a copy.
      double m = 0;
      img.data = lsq_device_image(o->data, offset, H, W, dpl->device_ops,
                                  img.colormap == "coolwarm" ? &m : nullptr);
      if (m > 0) img.range_lo = -m, img.range_hi = m;  // symmetric_range's, reduced there
      img.symmetric = img.colormap == "coolwarm";
    } else {
    std::vector<float> upright(H * W);
    o->data.visit([&](const auto& src) {  // the shown component only, as float32
      for (std::size_t w = 0; w < W; ++w)
        for (std::size_t j = 0; j < H; ++j)
          upright[w * H + j] = float(src[offset + (H - 1 - j) * W + w]);
    });
    img.data = std::move(upright);
    if (img.colormap == "coolwarm") img.symmetric_range();  // zero at the neutral centre
    }
    // Titles in the cube's pixel indices, since a preview samples every stride-th pixel:
    // columns w left to right, rows h top to bottom; the vertical axis runs from H-1 at the
    // bottom to 0.
    const LsqPayload* pl = r.payload_as<LsqPayload>();
    const double stride = pl ? double(pl->stride) : 1.0;
    img.annotations.axis_i = {"pixel column w", true, 0.0, double(W - 1) * stride};
    img.annotations.axis_j = {"pixel row h", true, double(H - 1) * stride, 0.0};
    return img;
  }

  /// Where the method ran, when part of it ran on the host under CUDA (method_note.hpp).
  std::string status_note(const RunResult& r) const override { return method_on_host_note(r); }

  std::string describe_sample(const RunResult& r, int i, int j) const override {
    const LsqPayload* pl = r.payload_as<LsqPayload>();
    if (!pl || !pl->result) return "";
    const LsqMaps maps = lsq_maps(r);
    std::size_t h = 0, w = 0;
    lsq_image_to_pixel(*pl->result, i, j, h, w);
    if (h >= maps.height || w >= maps.width) return "";
    const std::size_t p = h * maps.width + w;
    char buf[200];
    std::snprintf(buf, sizeof buf, "pixel h=%zu w=%zu  observed %d/%zu  %s", h * pl->stride,
                  w * pl->stride, int(maps.at(*maps.count, p)), pl->problem->cube.m,
                  lsq::status_name(int(maps.at(*maps.status, p))));
    return buf;
  }

 private:
  /// Warnings for generator settings the inputs override, from the schema's rules of use.
  static void add_unused_warnings(RunResult& r) {
    for (std::string& w : r.params.schema().unused_warnings(r.params))
      r.warnings.push_back(std::move(w));
  }

  static void add_view_warnings(RunResult& r) {
    const OutputArray* s = r.find("solution");
    const std::int64_t k = r.params.get_int("view.component");
    if (s && std::size_t(k) >= s->shape[0])
      r.warnings.push_back("view.component " + std::to_string(k) +
                           " >= N = " + std::to_string(s->shape[0]) + ": the view shows x[" +
                           std::to_string(s->shape[0] - 1) + "]");
  }

  std::string problem_key_, result_key_;
  std::shared_ptr<const lsq::Synth> problem_;
  std::shared_ptr<const RunResult> last_;
  std::unique_ptr<lsq::Solver> solver_;
  std::shared_ptr<const LsqDeviceOps> device_ops_;  ///< set while solver_ keeps its maps
};

}  // namespace

WorkloadDescriptor lsq_descriptor() {
  // The outputs as compute/lsq declares them; lsq::outputs() also gives the view choices.
  WorkloadDescriptor d;
  d.name = "lsq";
  d.make = [] { return std::make_unique<LsqWorkload>(); };
  d.outputs = lsq::outputs();
  d.stat_labels = lsq_stat_labels();
  d.shapes = "solution (N,H,W), the others (H,W)";
  d.inputs = {
      {{"npy"}, [](const std::vector<std::size_t>& s) { return s.size() == 3; },
       {{"data.file", "{path}"}}},
      {{"csv"}, nullptr, {{"design.file", "{path}"}}},
      {{"npy"}, [](const std::vector<std::size_t>& s) { return s.size() == 2; },
       {{"design.file", "{path}"}}}};
  d.inputs_text = "data cube or design .npy/.csv";
  d.npy_expected = "lsq takes a data cube (M, H, W) or a design matrix (M, N)";
  return d;
}

}  // namespace simscope::app
