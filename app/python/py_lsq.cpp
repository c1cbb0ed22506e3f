// simscope.lsq on numpy arrays: a cube (M, H, W) with NaN gaps and a design matrix (M, N),
// solved by compute/lsq's solver; outputs as the CLI exports them.
#include <pybind11/stl.h>

#include <chrono>

#include "lsq/lsq.hpp"
#include "lsq/lsq_device_cube.hpp"
#include "lsq/lsq_params.hpp"
#include "lsq/lsq_result.hpp"
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
  /// Leave the maps in device memory (CUDA DLPack results: the caller gave CUDA arrays).
  bool device_results = false;
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

}  // namespace

void bind_lsq(py::module_& m) {
  m.def(
      "lsq",
      [](const py::object& cube, const py::object& design, const Settings& settings,
         const std::string& backend, const py::object& progress, bool device_results) {
        const auto t0 = Clock::now();
        LsqJob job = checked([&] {
          LsqJob j;
          j.params = params_from(lsq::schema(), settings);
          j.choice = backend_from(backend);
          j.options = lsq::options_from(j.params);
          j.device_results = device_results;
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
          std::unique_ptr<lsq::Solver> solver;  ///< holds the device maps (shared with outputs)
          std::shared_ptr<const app::LsqDeviceOps> ops;  ///< set when it kept them
        };
        Out out = call_released(
            [&](Progress* p) {
              Out o;
              if (job.device_cube) cuda_select_device(job.device_cube->device);  // the caller's
              auto solver = lsq::make_solver(job.choice.backend);
              // CUDA results for a CUDA caller: the maps stay on the device (DLPack, no copy).
              if (job.device_results && solver->keep_outputs_on_device(true))
                o.ops = app::lsq_cuda_ops(solver->device());
              if (job.device_cube)
                solver->solve_device(*job.device_cube, job.design, job.options, o.res, p);
              else
                solver->solve(job.cube, job.design, job.options, o.res, p);
              o.peak = solver->peak_device_bytes();
              o.staged = solver->host_staging_bytes();
              o.solver = std::move(solver);
              return o;
            },
            progress, device);
        // The CLI's result (lsq_result.hpp): the solver's maps moved into the outputs, its stats
        // and warnings: settings not used (and the synthetic cube's, which the arrays replace),
        // then the solve's.
        app::RunResult r;
        r.workload = "lsq";
        r.params = job.params;
        r.backend = job.choice.backend;
        r.warnings = lsq::schema().unused_warnings(job.params);
        // The arrays stand in for data.file: the settings its rule of use names are not used
        // (lsq_params.cpp's rule, so the list is the schema's, not a copy).
        for (const UseRule& u : lsq::schema().use_rules())
          if (u.when.size() == 1 && u.when[0].param == "data.file" &&
              u.when[0].op == ParamCondition::Op::Set) {
            const std::string synth = unused_by_arrays(
                job.params, "cube and design are given as arrays", u.unused, u.why);
            if (!synth.empty()) r.warnings.push_back(synth);
          }
        app::fill_lsq_result(r, out.res, job.options, job.cube.m, out.peak, out.solver.get(),
                             out.ops);
        const int results_device = out.res.on_host ? -1 : out.ops->device;
        out.solver.reset();  // the outputs hold the maps
        app::add_lsq_result_warnings(r, &out.res);
        // How the call's cube came in: 0 bytes copied when it was read in place (borrowed),
        // else the bytes of its copy; a CUDA cube is read in place on the device ("device"),
        // and the bytes copied to the host for pixels solved there (methods qr/svd, fallbacks)
        // are host_staging_bytes.
        r.stats["cube_copied_bytes"] = double(job.cube.borrowed ? 0 : job.cube.bytes.size());
        r.stats["host_staging_bytes"] = out.staged;
        r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        py::dict d = result_dict(std::move(r), job.choice.notice, results_device);
        d["input_route"] = job.device_cube ? "device" : "host";
        return d;
      },
      py::call_guard<CNumericLocale>(), py::arg("cube"), py::arg("design"), py::arg("settings"), py::arg("backend") = "auto",
      py::arg("progress") = py::none(), py::arg("device_results") = false,
      "The lsq workload on arrays (see simscope.lsq); returns the result dict.");
}

}  // namespace simscope::python
