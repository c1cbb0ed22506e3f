// Source distributions and source files of the field workload (field.hpp: generate_sources,
// load_sources).
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstring>
#include <new>
#include <random>
#include <string>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "field/field_internal.hpp"
#include "field/strided_inputs.hpp"
#include "io/csv.hpp"
#include "io/npy.hpp"

namespace simscope::field {

namespace detail {
std::uint64_t next_generation() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}
}  // namespace detail

namespace {

constexpr std::size_t kMaxSources = 1000000000;  // the schema's sources.count maximum

/// Portable random numbers: std::mt19937_64 (fully specified by the standard) with our own
/// uniform and normal transforms, so that a seed gives the same sources with any library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : g_(seed) {}
  double uniform() { return double(g_() >> 11) * 0x1.0p-53; }  ///< [0, 1)
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  double normal() {                     ///< Box-Muller, one value per call
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::mt19937_64 g_;
};

void reserve(Sources& s, std::size_t n) {
  try {
    s.x.resize(n), s.y.resize(n), s.z.resize(n), s.q.resize(n);
  } catch (const std::bad_alloc&) {
    throw Error("cannot allocate memory for " + std::to_string(n) + " sources (" +
                format_bytes(double(n) * 16) + ")");
  }
}

void set(Sources& s, std::size_t i, double x, double y, double z, double q) {
  s.x[i] = float(x), s.y[i] = float(y), s.z[i] = float(z), s.q[i] = float(q);
}

void gen_uniform(Sources& s, double hw, Rng& r) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double x = r.uniform(-hw, hw), y = r.uniform(-hw, hw), z = r.uniform(-hw, hw);
    set(s, i, x, y, z, r.uniform(0.5, 1.5));
  }
}

void gen_gaussian(Sources& s, double hw, Rng& r) {
  constexpr int kBlobs = 8;
  double c[kBlobs][3];
  for (auto& b : c)
    for (double& v : b) v = r.uniform(-hw / 2, hw / 2);
  const double sigma = hw / 10;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto& b = c[i % kBlobs];
    const double x = b[0] + sigma * r.normal(), y = b[1] + sigma * r.normal(),
                 z = b[2] + sigma * r.normal();
    set(s, i, x, y, z, 1.0);
  }
}

void gen_dipoles(Sources& s, double hw, Rng& r) {
  const double half_sep = hw / 100;  // pairs separated by hw / 50
  for (std::size_t i = 0; i < s.size(); i += 2) {
    const double cx = r.uniform(-hw, hw), cy = r.uniform(-hw, hw), cz = r.uniform(-hw, hw);
    // Uniform direction on the sphere.
    const double uz = r.uniform(-1, 1), phi = r.uniform(0, 6.283185307179586);
    const double rho = std::sqrt(std::max(0.0, 1 - uz * uz));
    const double dx = half_sep * rho * std::cos(phi), dy = half_sep * rho * std::sin(phi),
                 dz = half_sep * uz;
    set(s, i, cx + dx, cy + dy, cz + dz, 1.0);
    if (i + 1 < s.size()) set(s, i + 1, cx - dx, cy - dy, cz - dz, -1.0);
  }
}

void gen_lattice(Sources& s, double hw) {
  std::size_t n = std::size_t(std::ceil(std::cbrt(double(s.size()))));
  while (n * n * n < s.size()) ++n;
  while (n > 1 && (n - 1) * (n - 1) * (n - 1) >= s.size()) --n;
  auto coord = [&](std::size_t i) {
    return n == 1 ? 0.0 : -hw + 2 * hw * double(i) / double(n - 1);
  };
  std::size_t idx = 0;
  for (std::size_t i = 0; i < n && idx < s.size(); ++i)
    for (std::size_t j = 0; j < n && idx < s.size(); ++j)
      for (std::size_t k = 0; k < n && idx < s.size(); ++k, ++idx)
        set(s, idx, coord(i), coord(j), coord(k), (i + j + k) % 2 ? -1.0 : 1.0);
}

std::string lower_extension(const std::string& path) {
  const auto slash = path.find_last_of("/\\");
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot);
  for (char& ch : e) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return e;
}

const char* column_name(std::size_t c) {
  static const char* names[] = {"x", "y", "z", "q"};
  return names[c];
}

/// Stores row `i` (values v[0..cols)) after checking each value is finite and fits in float32.
/// `where` names the row in messages, e.g. "row 17".
void store_row(Sources& s, std::size_t i, const double* v, std::size_t cols,
               const std::string& path, const std::string& where) {
  float f[4] = {0, 0, 0, 1};
  for (std::size_t c = 0; c < cols; ++c) {
    if (!std::isfinite(v[c]))
      throw Error(path + ": " + where + ": non-finite " + column_name(c) + " value (" +
                  (std::isnan(v[c]) ? "nan" : (v[c] > 0 ? "inf" : "-inf")) +
                  "); sources need finite x, y, z and q");
    f[c] = float(v[c]);
    if (!std::isfinite(f[c]))
      throw Error(path + ": " + where + ": " + column_name(c) + " value " + std::to_string(v[c]) +
                  " does not fit in float32");
  }
  s.x[i] = f[0], s.y[i] = f[1], s.z[i] = f[2], s.q[i] = f[3];
}

Sources load_npy(const std::string& path) {
  return sources_from_npy(io::read_npy(path, "float32 or float64 (the sources)"), path);
}

Sources load_csv(const std::string& path) {
  const io::CsvTable t = io::read_csv(path);
  if (t.rows == 0) throw Error(path + ": no sources (no data rows)");
  if (t.cols != 3 && t.cols != 4)
    throw Error(path + ": " + std::to_string(t.cols) + " columns; x,y,z or x,y,z,q expected");
  Sources s;
  reserve(s, t.rows);
  for (std::size_t i = 0; i < t.rows; ++i)
    store_row(s, i, &t.values[i * t.cols], t.cols, path, "data row " + std::to_string(i + 1));
  return s;
}

}  // namespace

Sources sources_from_npy(const io::NpyArray& a, const std::string& path) {
  if (a.dtype != io::DType::Float32 && a.dtype != io::DType::Float64)
    throw Error(path + ": dtype " + io::to_string(a.dtype) +
                " is not supported for sources; expected float32 or float64");
  if (a.shape.size() != 2 || (a.shape[1] != 3 && a.shape[1] != 4))
    throw Error(path + ": (P,4) or (P,3) expected, got " + a.shape_text() +
                " (columns x, y, z[, q])");
  const std::ptrdiff_t item = a.dtype == io::DType::Float32 ? 4 : 8;
  return sources_from_strided(a.data.data(), a.dtype, a.shape[0], a.shape[1],
                              item * std::ptrdiff_t(a.shape[1]), item, path);
}

Sources sources_from_strided(const void* data, io::DType dtype, std::size_t rows, std::size_t cols,
                             std::ptrdiff_t row_stride, std::ptrdiff_t col_stride,
                             const std::string& path) {
  io::NpyArray shape_of;  // for the messages only (no data)
  shape_of.dtype = dtype;
  shape_of.shape = {rows, cols};
  if (dtype != io::DType::Float32 && dtype != io::DType::Float64)
    throw Error(path + ": dtype " + io::to_string(dtype) +
                " is not supported for sources; expected float32 or float64");
  if (cols != 3 && cols != 4)
    throw Error(path + ": (P,4) or (P,3) expected, got " + shape_of.shape_text() +
                " (columns x, y, z[, q])");
  if (rows == 0) throw Error(path + ": no sources (shape " + shape_of.shape_text() + ")");
  Sources s;
  reserve(s, rows);
  const auto* base = static_cast<const std::uint8_t*>(data);
  double v[4];
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t c = 0; c < cols; ++c) {
      const std::uint8_t* e =
          base + std::ptrdiff_t(i) * row_stride + std::ptrdiff_t(c) * col_stride;
      if (dtype == io::DType::Float32) {
        float f;
        std::memcpy(&f, e, 4);
        v[c] = f;
      } else {
        std::memcpy(&v[c], e, 8);
      }
    }
    store_row(s, i, v, cols, path, "row " + std::to_string(i));
  }
  s.generation = detail::next_generation();
  return s;
}

Sources generate_sources(const std::string& distribution, std::size_t count, double half_width,
                         std::uint64_t seed) {
  if (count < 1) throw Error("sources.count must be at least 1");
  if (count > kMaxSources)
    throw Error("sources.count " + std::to_string(count) + " exceeds the maximum of 1e9");
  if (!(half_width > 0) || !std::isfinite(half_width))
    throw Error("sources.half_width must be a finite number > 0");
  if (distribution != "uniform" && distribution != "gaussian" && distribution != "dipoles" &&
      distribution != "lattice")
    throw Error("sources.distribution: expected uniform, gaussian, dipoles or lattice, got '" +
                distribution + "'");
  Sources s;
  reserve(s, count);
  Rng r(seed);
  if (distribution == "uniform")
    gen_uniform(s, half_width, r);
  else if (distribution == "gaussian")
    gen_gaussian(s, half_width, r);
  else if (distribution == "dipoles")
    gen_dipoles(s, half_width, r);
  else
    gen_lattice(s, half_width);
  s.generation = detail::next_generation();
  return s;
}

Sources load_sources(const std::string& path) {
  const std::string ext = lower_extension(path);
  Sources s;
  if (ext == ".npy")
    s = load_npy(path);
  else if (ext == ".csv")
    s = load_csv(path);
  else
    throw Error(path + ": unknown source file type '" + ext + "'; expected a .npy or .csv file");
  s.generation = detail::next_generation();
  return s;
}

}  // namespace simscope::field
