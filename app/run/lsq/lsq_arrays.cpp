// The lsq workload on a caller's arrays (lsq_arrays.hpp).
#include "lsq/lsq_arrays.hpp"

#include "arrays/device_arrays.hpp"
#include "lsq/lsq_device_cube.hpp"
#include "lsq/lsq_params.hpp"
#include "lsq/lsq_result.hpp"

namespace simscope::app {

LsqArrays::LsqArrays(const Settings& settings, const std::string& backend, bool device_results)
    : t0_(std::chrono::steady_clock::now()) {
  params_ = params_from(lsq::schema(), settings);
  choice_ = choose_backend(backend);
  options_ = lsq::options_from(params_);
  device_results_ = device_results;
}

void LsqArrays::take(ArrayInput cube, const ArrayInput& design) {
  if (cube.kind == ArrayInput::Kind::Device) {
    const DeviceView& v = *cube.device;
    lsq::check_cube_view(v);
    require_cuda_backend(v, choice_.backend);
    require_visible_device(v);
    device_cube_ = &v;
    // Dimensions only, for validate(): its values stay on the device (never read here).
    cube_.m = v.shape[0], cube_.height = v.shape[1], cube_.width = v.shape[2];
    cube_.dtype = v.dtype;
    cube_.borrowed = static_cast<const std::uint8_t*>(v.data);
  } else if (cube.kind == ArrayInput::Kind::InPlace) {
    // The CPU solver refuses its inf entries in its first pass over the cube, not in one here.
    cube_ = lsq::borrow_cube(cube.data, cube.dtype, cube.shape[0], cube.shape[1], cube.shape[2],
                             "cube", choice_.backend == Backend::Cpu);
  } else {
    cube_ = lsq::cube_from_npy(std::move(cube.copy), "cube");
  }
  design_ = lsq::design_from_npy(design.copy, "design");
  lsq::validate(cube_, design_, options_);
}

void LsqArrays::solve(Progress* progress) {
  if (device_cube_) cuda_select_device(device_cube_->device);  // the caller's
  auto solver = lsq::make_solver(choice_.backend);
  // CUDA results for a CUDA caller: the maps stay on the device (DLPack, no copy).
  if (device_results_ && solver->keep_outputs_on_device(true))
    ops_ = lsq_cuda_ops(solver->device());
  if (device_cube_)
    solver->solve_device(*device_cube_, design_, options_, res_, progress);
  else
    solver->solve(cube_, design_, options_, res_, progress);
  peak_ = solver->peak_device_bytes();
  staged_ = solver->host_staging_bytes();
  solver_ = std::move(solver);
}

RunResult LsqArrays::result() {
  // The CLI's result (lsq_result.hpp): the solver's maps moved into the outputs, its stats and
  // warnings: settings not used (and the synthetic cube's, which the arrays replace), then the
  // solve's.
  RunResult r;
  r.workload = "lsq";
  r.params = params_;
  r.backend = choice_.backend;
  r.warnings = lsq::schema().unused_warnings(params_);
  // The arrays stand in for data.file: the settings its rule of use names are not used
  // (lsq_params.cpp's rule, so the list is the schema's, not a copy).
  for (const UseRule& u : lsq::schema().use_rules())
    if (u.when.size() == 1 && u.when[0].param == "data.file" &&
        u.when[0].op == ParamCondition::Op::Set) {
      const std::string synth =
          unused_by_arrays(params_, "cube and design are given as arrays", u.unused, u.why);
      if (!synth.empty()) r.warnings.push_back(synth);
    }
  fill_lsq_result(r, res_, options_, cube_.m, peak_, solver_.get(), ops_);
  results_device_ = res_.on_host ? -1 : ops_->device;
  solver_.reset();  // the outputs hold the maps
  add_lsq_result_warnings(r, &res_);
  // How the call's cube came in: 0 bytes copied when it was read in place (borrowed), else the
  // bytes of its copy; a CUDA cube is read in place on the device ("device"), and the bytes
  // copied to the host for pixels solved there (methods qr/svd, fallbacks) are
  // host_staging_bytes.
  r.stats["cube_copied_bytes"] = double(cube_.borrowed ? 0 : cube_.bytes.size());
  r.stats["host_staging_bytes"] = staged_;
  r.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  return r;
}

}  // namespace simscope::app
