// simscope.lsq on numpy arrays: a cube (M, H, W) with NaN gaps and a design matrix (M, N),
// solved by compute/lsq's solver; outputs as the CLI exports them.
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "lsq/lsq.hpp"
#include "lsq/lsq_device_cube.hpp"
#include "lsq/lsq_workload.hpp"
#include "py_arrays.hpp"
#include "py_call.hpp"
#include "py_dlpack.hpp"
#include "py_params.hpp"
#include "py_result.hpp"
#include "py_locale.hpp"

namespace simscope::python {

namespace {

using Clock = std::chrono::steady_clock;

struct LsqJob {
  py::object keep;  ///< the numpy array a borrowed cube reads (kept alive for the call)
  ParamSet params;
  BackendChoice choice;
  lsq::Cube cube;  ///< the host cube, or (device_cube) a header of its dimensions only
  lsq::Design design;
  lsq::Options options;
  /// A CUDA cube read in place by the CUDA solver (Solver::solve_device): the view of the
  /// caller's DeviceArray (alive for the call); null for a host cube.
  const DeviceView* device_cube = nullptr;
};

/// The cube of `obj`: borrowed without a copy when it is a C-contiguous, aligned, native-endian
/// float32/float64 array of 3 dimensions (`keep` then holds it), else read through its strides
/// (to_npy) into the cube's own storage. The checks and messages of the cube loader either way.
lsq::Cube cube_of(const py::object& obj, py::object& keep) {
  py::array a = py::array::ensure(obj);
  if (a && a.ndim() == 3 && (a.flags() & py::array::c_style) &&
      (a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) &&
      a.dtype().attr("byteorder").cast<std::string>() != ">" && a.dtype().kind() == 'f' &&
      (a.itemsize() == 4 || a.itemsize() == 8)) {
    keep = a;
    return lsq::borrow_cube(a.data(), a.itemsize() == 4 ? io::DType::Float32 : io::DType::Float64,
                            std::size_t(a.shape(0)), std::size_t(a.shape(1)),
                            std::size_t(a.shape(2)), "cube");
  }
  return lsq::cube_from_npy(to_npy(obj, "cube", "float32 or float64"), "cube");
}

/// The outputs of `res` as numpy arrays, with the dtypes of the CLI's files (lsq_workload.cpp:
/// solution float64, float32 when precision=fp32; residual/condition float32, count int32,
/// status uint8): moved where the dtype is the solver's own.
py::dict outputs_of(lsq::Result& res, bool fp64) {
  const std::size_t N = res.n, H = res.height, W = res.width;
  py::dict o;
  if (fp64)
    o["solution"] = numpy_from(std::move(res.solution), {N, H, W});
  else
    o["solution"] =
        numpy_from(std::vector<float>(res.solution.begin(), res.solution.end()), {N, H, W});
  o["residual"] = numpy_from(std::move(res.residual), {H, W});
  o["count"] = numpy_from(std::move(res.count), {H, W});
  o["status"] = numpy_from(std::move(res.status), {H, W});
  o["condition"] = numpy_from(std::move(res.condition), {H, W});
  return o;
}

py::dict stats_of(const lsq::Result& res, const lsq::Options& options, Backend backend,
                  double peak_device_bytes) {
  const auto& sc = res.status_counts;
  const double P = double(res.pixels());
  py::dict s;
  s["pixels"] = P;
  s["unknowns"] = double(res.n);
  s["status_ok"] = double(sc[lsq::kOk]);
  s["status_underdetermined"] = double(sc[lsq::kUnderdetermined]);
  s["status_rank_deficient"] = double(sc[lsq::kRankDeficient]);
  s["status_all_missing"] = double(sc[lsq::kAllMissing]);
  s["fallback_pixels"] = double(res.fallback_pixels);
  s["gap_free_pixels"] = double(res.shared_pixels);
  s["downdate_pixels"] = double(res.downdate_pixels);
  s["minnorm_pixels"] = double(res.minnorm_pixels);
  s["host_pixels"] = double(res.host_pixels);
  s["design_rank"] = double(res.shared_rank);
  s["pixels_per_s"] = res.seconds > 0 ? P / res.seconds : 0;
  s["peak_device_bytes"] = peak_device_bytes;
  s["method_on_host"] =
      double(lsq::method_runs_on(options.method, backend) != backend);  // 1: solved on the host
  return s;
}

}  // namespace

void bind_lsq(py::module_& m) {
  m.def(
      "lsq",
      [](const py::object& cube, const py::object& design, const Settings& settings,
         const std::string& backend, const py::object& progress) {
        const auto t0 = Clock::now();
        LsqJob job = checked([&] {
          LsqJob j;
          j.params = params_from(lsq::schema(), settings);
          j.choice = backend_from(backend);
          j.options = lsq::options_from(j.params);
          if (py::isinstance<DeviceArray>(cube)) {
            const DeviceView& v = cube.cast<const DeviceArray&>().view();
            lsq::check_cube_view(v);
            require_cuda_backend(v, j.choice.backend);
            require_visible_device(v);
            j.device_cube = &v;
            // Dimensions only, for validate(): its values stay on the device (never read here).
            j.cube.m = v.shape[0], j.cube.height = v.shape[1], j.cube.width = v.shape[2];
            j.cube.dtype = v.dtype;
            j.cube.borrowed = static_cast<const std::uint8_t*>(v.data);
          } else {
            j.cube = cube_of(cube, j.keep);
          }
          j.design = lsq::design_from_npy(
              to_npy(design, "design", "float32, float64, int32, int64 or uint8"), "design");
          lsq::validate(j.cube, j.design, j.options);
          return j;
        });
        const bool device = job.choice.backend == Backend::Cuda;
        struct Out {
          lsq::Result res;
          double peak = 0;
          double staged = 0;  ///< bytes of a device cube copied to the host
        };
        Out out = call_released(
            [&](Progress* p) {
              Out o;
              if (job.device_cube) cuda_select_device(job.device_cube->device);  // the caller's
              auto solver = lsq::make_solver(job.choice.backend);
              if (job.device_cube)
                solver->solve_device(*job.device_cube, job.design, job.options, o.res, p);
              else
                solver->solve(job.cube, job.design, job.options, o.res, p);
              o.peak = solver->peak_device_bytes();
              o.staged = solver->host_staging_bytes();
              return o;
            },
            progress, device);
        py::dict d;
        d["workload"] = "lsq";
        d["stats"] = stats_of(out.res, job.options, job.choice.backend, out.peak);
        d["stats"]["observations"] = double(job.cube.m);
        // 0 when the cube was read in place (borrowed), else the bytes of its copy.
        d["stats"]["cube_copied_bytes"] = double(job.cube.borrowed ? 0 : job.cube.bytes.size());
        // A CUDA cube: read in place on the device ("device"); the bytes copied to the host
        // for pixels solved there (methods qr/svd, fallbacks) in host_staging_bytes.
        d["stats"]["host_staging_bytes"] = out.staged;
        d["input_route"] = job.device_cube ? "device" : "host";
        d["compute_seconds"] = out.res.seconds;
        // The CLI's warnings (lsq_workload.cpp): settings not used (and the synthetic cube's,
        // which the arrays replace), then the solve's (pixels that are not ok, float32 overflow
        // in the outputs).
        py::list warnings;
        for (std::string& w : lsq::schema().unused_warnings(job.params)) warnings.append(w);
        // The arrays stand in for data.file: the settings its rule of use names are not used
        // (lsq_params.cpp's rule, so the list is the schema's, not a copy).
        for (const UseRule& r : lsq::schema().use_rules())
          if (r.when.size() == 1 && r.when[0].param == "data.file" &&
              r.when[0].op == ParamCondition::Op::Set) {
            const std::string synth = unused_by_arrays(
                job.params, "cube and design are given as arrays", r.unused, r.why);
            if (!synth.empty()) warnings.append(synth);
          }
        const auto& sc = out.res.status_counts;
        const auto inf32 = [](const auto& v) {
          return std::size_t(
              std::count_if(v.begin(), v.end(), [](auto x) { return std::isinf(float(x)); }));
        };
        for (std::string& w : app::lsq_result_warnings(
                 sc[lsq::kUnderdetermined], sc[lsq::kRankDeficient], sc[lsq::kAllMissing],
                 out.res.n, job.options.lambda, inf32(out.res.solution), inf32(out.res.residual)))
          warnings.append(w);
        d["warnings"] = warnings;
        d["outputs"] = outputs_of(out.res, job.options.precision == Precision::Fp64);
        d["backend"] = std::string(to_string(job.choice.backend));
        d["notice"] = job.choice.notice;
        d["params"] = params_dict(job.params);
        d["total_seconds"] = std::chrono::duration<double>(Clock::now() - t0).count();
        return d;
      },
      py::call_guard<CNumericLocale>(), py::arg("cube"), py::arg("design"), py::arg("settings"), py::arg("backend") = "auto",
      py::arg("progress") = py::none(),
      "The lsq workload on arrays (see simscope.lsq); returns the result dict.");
}

}  // namespace simscope::python
