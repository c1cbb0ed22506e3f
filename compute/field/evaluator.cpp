// Back-end-independent parts of the field workload (field.hpp: make_evaluator, output_names,
// output) and the option checks shared by every evaluator.
#include <cmath>

#include "core/error.hpp"
#include "field/field_internal.hpp"

namespace simscope::field {

namespace detail {

void validate(const Options& o) {
  if (!std::isfinite(o.k)) throw Error("field: k must be a finite number");
  if (!std::isfinite(o.eps) || o.eps < 0)
    throw Error("field: eps must be a finite number >= 0, got " + std::to_string(o.eps));
}

void resize_outputs(Result& out, std::size_t n) {
  for (auto* v : {&out.magnitude, &out.ex, &out.ey, &out.ez, &out.potential}) v->resize(n);
}

#ifndef SIMSCOPE_HAVE_CUDA
std::unique_ptr<Evaluator> make_cuda_evaluator() {
  throw Error("field: the CUDA back end is not available (" + cuda_status().reason + ")");
}
#endif

}  // namespace detail

const std::vector<std::string>& output_names() {
  static const std::vector<std::string> names = {"magnitude", "ex", "ey", "ez", "potential"};
  return names;
}

const std::vector<float>& output(const Result& r, const std::string& name) {
  if (name == "magnitude") return r.magnitude;
  if (name == "ex") return r.ex;
  if (name == "ey") return r.ey;
  if (name == "ez") return r.ez;
  if (name == "potential") return r.potential;
  throw Error("unknown field output '" + name + "' (known: magnitude, ex, ey, ez, potential)");
}

std::unique_ptr<Evaluator> make_evaluator(Backend backend) {
  if (backend == Backend::Cpu) return detail::make_cpu_evaluator();
  const CudaStatus& s = cuda_status();
  if (!s.usable) throw Error("field: the CUDA back end cannot run (" + s.reason + ")");
  return detail::make_cuda_evaluator();
}

}  // namespace simscope::field
