// Sample targets of the field workload: planes and box faces (field.hpp, make_targets).
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "field/field.hpp"
#include "field/strided_inputs.hpp"

namespace simscope::field {

namespace {

/// numpy.linspace(-hw, hw, n)[i], with both endpoints exact and symmetric values.
double lin(int i, int n, double hw) {
  if (i == n - 1) return hw;
  // -hw + 2 hw i/(n-1), written so that i and n-1-i give exactly opposite values.
  const double t = double(2 * i - (n - 1)) / double(n - 1);
  return hw * t;
}

/// Appends an n x n face at `offset` whose normal is axis `normal`: 0 = x, 1 = y, 2 = z.
/// Index i*n + j holds u_i on the face's first axis and v_j on its second: xy: u=x, v=y;
/// xz: u=x, v=z; yz: u=y, v=z.
void append_face(Targets& t, int normal, double offset, int n, double hw) {
  for (int i = 0; i < n; ++i) {
    const double u = lin(i, n, hw);
    for (int j = 0; j < n; ++j) {
      const double v = lin(j, n, hw);
      switch (normal) {
        case 2:
          t.x.push_back(u), t.y.push_back(v), t.z.push_back(offset);
          break;
        case 1:
          t.x.push_back(u), t.y.push_back(offset), t.z.push_back(v);
          break;
        default:
          t.x.push_back(offset), t.y.push_back(u), t.z.push_back(v);
          break;
      }
    }
  }
}

void check(const Grid& grid) {
  if (grid.size < 2)
    throw Error("grid.size must be at least 2 (samples per side), got " +
                std::to_string(grid.size));
  if (!(grid.half_width > 0) || !std::isfinite(grid.half_width))
    throw Error("grid.half_width must be a finite number > 0");
  if (!std::isfinite(grid.offset)) throw Error("plane.offset must be finite");
}

}  // namespace

std::vector<std::size_t> grid_shape(const Grid& grid) {
  check(grid);
  const std::size_t n = std::size_t(grid.size);
  if (grid.kind == PlaneKind::Box) return {6, n, n};
  return {n, n};
}

Targets make_targets(const Grid& grid) {
  check(grid);
  const int n = grid.size;
  const std::size_t per_face = std::size_t(n) * std::size_t(n);
  Targets t;
  const std::size_t total = grid.kind == PlaneKind::Box ? 6 * per_face : per_face;
  t.x.reserve(total), t.y.reserve(total), t.z.reserve(total);
  switch (grid.kind) {
    case PlaneKind::XY:
      append_face(t, 2, grid.offset, n, grid.half_width);
      break;
    case PlaneKind::XZ:
      append_face(t, 1, grid.offset, n, grid.half_width);
      break;
    case PlaneKind::YZ:
      append_face(t, 0, grid.offset, n, grid.half_width);
      break;
    case PlaneKind::Box: {
      // Faces at -|offset| then +|offset|: a negative offset must not swap -x and +x.
      const double d = std::fabs(grid.offset);
      for (int axis : {0, 1, 2})
        for (double sign : {-1.0, 1.0}) append_face(t, axis, sign * d, n, grid.half_width);
      break;
    }
  }
  return t;
}

}  // namespace simscope::field

namespace simscope::field {

Targets targets_from_npy(const io::NpyArray& a, const std::string& name) {
  if (a.dtype != io::DType::Float32 && a.dtype != io::DType::Float64)
    throw Error(name + ": dtype " + io::to_string(a.dtype) +
                " is not supported for targets; expected float32 or float64");
  if (a.shape.size() != 2 || a.shape[1] != 3)
    throw Error(name + ": (T,3) expected, got " + a.shape_text() + " (columns x, y, z)");
  const std::ptrdiff_t item = a.dtype == io::DType::Float32 ? 4 : 8;
  return targets_from_strided(a.data.data(), a.dtype, a.shape[0], a.shape[1], 3 * item, item, name);
}

Targets targets_from_strided(const void* data, io::DType dtype, std::size_t rows, std::size_t cols,
                             std::ptrdiff_t row_stride, std::ptrdiff_t col_stride,
                             const std::string& name) {
  io::NpyArray shape_of;  // for the messages only (no data)
  shape_of.dtype = dtype;
  shape_of.shape = {rows, cols};
  if (dtype != io::DType::Float32 && dtype != io::DType::Float64)
    throw Error(name + ": dtype " + io::to_string(dtype) +
                " is not supported for targets; expected float32 or float64");
  if (cols != 3)
    throw Error(name + ": (T,3) expected, got " + shape_of.shape_text() + " (columns x, y, z)");
  if (rows == 0) throw Error(name + ": no targets (shape " + shape_of.shape_text() + ")");
  Targets t;
  t.x.resize(rows), t.y.resize(rows), t.z.resize(rows);
  std::vector<double>* out[3] = {&t.x, &t.y, &t.z};
  const auto* base = static_cast<const std::uint8_t*>(data);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t c = 0; c < 3; ++c) {
      const std::uint8_t* e =
          base + std::ptrdiff_t(i) * row_stride + std::ptrdiff_t(c) * col_stride;
      double v;
      if (dtype == io::DType::Float32) {
        float f;
        std::memcpy(&f, e, 4);
        v = f;
      } else {
        std::memcpy(&v, e, 8);
      }
      if (!std::isfinite(v))
        throw Error(name + ": row " + std::to_string(i) + ": non-finite " + "xyz"[c] +
                    std::string(" value; targets need finite x, y, z"));
      (*out[c])[i] = v;
    }
  return t;
}

}  // namespace simscope::field
