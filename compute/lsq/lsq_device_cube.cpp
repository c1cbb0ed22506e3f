// Host-side checks of an lsq cube in device memory (lsq_device_cube.hpp).
#include "lsq/lsq_device_cube.hpp"

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/shape_text.hpp"
#include "lsq/lsq.hpp"

namespace simscope::lsq {

void check_cube_view(const DeviceView& v) {
  const bool floats = v.dtype == io::DType::Float32 || v.dtype == io::DType::Float64;
  if (floats && v.ndim() != 3)
    throw InputError(v.name + ": shape " + shape_text(v.shape) + " has " + std::to_string(v.ndim()) +
                     " dimension" + (v.ndim() == 1 ? "" : "s") +
                     "; expected a cube (M, H, W): M observations of H x W pixels");
  if (!floats || v.size() == 0) {
    try {  // borrow_cube throws for these before it reads a value
      borrow_cube(nullptr, v.dtype, v.ndim() > 0 ? v.shape[0] : 0, v.ndim() > 1 ? v.shape[1] : 0,
                  v.ndim() > 2 ? v.shape[2] : 0, v.name);
    } catch (const Error& e) {
      throw InputError(e.what());
    }
  }
  v.check_aligned();
}

void throw_inf_entry(const DeviceView& v, std::size_t flat, const void* value) {
  std::string index = "[";
  std::size_t idx[3], f = flat;
  for (std::size_t d = 3; d-- > 0;) idx[d] = f % v.shape[d], f /= v.shape[d];
  for (std::size_t d = 0; d < 3; ++d) index += (d ? ", " : "") + std::to_string(idx[d]);
  index += "]";
  try {  // the loader's message on that one entry, at its index in the view
    borrow_cube(value, v.dtype, 1, 1, 1, v.name);
  } catch (const Error& e) {
    std::string m = e.what();
    const std::string first = v.name + ": entry [0, 0, 0]";
    if (m.compare(0, first.size(), first) == 0)
      m = v.name + ": entry " + index + m.substr(first.size());
    throw InputError(m);
  }
  throw InputError(v.name + ": entry " + index +
                   " is inf; only NaN may mark a missing observation");
}

void Solver::solve_device(const DeviceView&, const Design&, const Options&, Result&, Progress*) {
  throw Error("lsq: a cube in CUDA device memory needs the CUDA solver (backend=cuda)");
}

}  // namespace simscope::lsq
