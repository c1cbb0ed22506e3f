// Host-side checks of the field's device inputs (device_inputs.hpp).
#include "field/device_inputs.hpp"

#include <cstdint>

#include "core/error.hpp"
#include "core/shape_text.hpp"
#include "field/strided_inputs.hpp"

namespace simscope::field {

namespace {

/// The reader's message as an InputError, for errors it throws before reading a value: dtype,
/// columns, no rows.
template <class F>
void rethrow_input(F&& f) {
  try {
    f();
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError(e.what());
  }
}

void check_view(const DeviceView& v, bool sources) {
  if (v.ndim() != 2)
    throw InputError(
        v.name +
        (sources ? ": (P,4) or (P,3) expected, got " + shape_text(v.shape) + " (columns x, y, z[, q])"
                 : ": (T,3) expected, got " + shape_text(v.shape) + " (columns x, y, z)"));
  const std::size_t rows = v.shape[0], cols = v.shape[1];
  const bool floats = v.dtype == io::DType::Float32 || v.dtype == io::DType::Float64;
  if (!floats || rows == 0 || (sources ? cols != 3 && cols != 4 : cols != 3))
    rethrow_input([&] {
      if (sources) sources_from_strided(nullptr, v.dtype, rows, cols, 0, 0, v.name);
      targets_from_strided(nullptr, v.dtype, rows, cols, 0, 0, v.name);
    });
  if (v.strides.size() != 2)  // (rows, cols) needs two strides; the message is the alignment's
    throw InputError(v.name + ": device memory not aligned to its " + std::to_string(v.itemsize()) +
                     "-byte elements");
  v.check_aligned();
}

}  // namespace

void check_sources_view(const DeviceView& v) { check_view(v, true); }
void check_targets_view(const DeviceView& v) { check_view(v, false); }

void throw_bad_row(const DeviceView& v, std::size_t row, const void* row_values, bool sources) {
  const std::size_t cols = v.shape[1];
  const auto item = std::ptrdiff_t(v.itemsize());
  try {
    if (sources)
      sources_from_strided(row_values, v.dtype, 1, cols, std::ptrdiff_t(cols) * item, item, v.name);
    else
      targets_from_strided(row_values, v.dtype, 1, cols, std::ptrdiff_t(cols) * item, item, v.name);
  } catch (const Error& e) {
    std::string m = e.what();
    const std::string first = v.name + ": row 0:";
    if (m.compare(0, first.size(), first) == 0)
      m = v.name + ": row " + std::to_string(row) + ":" + m.substr(first.size());
    throw InputError(m);
  }
  throw InputError(v.name + ": row " + std::to_string(row) +
                   ": a value the device conversion found not finite");
}

}  // namespace simscope::field
