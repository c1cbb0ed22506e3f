// Source distributions and source files of the field workload: field.hpp's generate_sources and
// load_sources, and sources.hpp's rows [begin, end) alone.
#include "field/sources.hpp"

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

/// Portable random numbers: std::mt19937_64, which the standard fully specifies, with our own
/// uniform and normal transforms, so a seed gives the same sources with any library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : g_(seed) {}
  double uniform() { return double(g_() >> 11) * 0x1.0p-53; }  ///< [0, 1)
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  /// Skips `n` draws, as n calls of uniform() would, via std::mt19937_64::discard.
  void skip(std::uint64_t n) { g_.discard(n); }
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

// The generators below fill `s`, already sized, with sources [first, first + s.size()) of the
// whole set of `count`; the whole set's stream is skipped to the range (draws per source:
// sources.hpp). first = 0 and s.size() = count give the whole set.

void gen_uniform(Sources& s, double hw, Rng& r, std::size_t first) {
  r.skip(4 * std::uint64_t(first));
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double x = r.uniform(-hw, hw), y = r.uniform(-hw, hw), z = r.uniform(-hw, hw);
    set(s, i, x, y, z, r.uniform(0.5, 1.5));
  }
}

void gen_gaussian(Sources& s, double hw, Rng& r, std::size_t first) {
  constexpr int kBlobs = 8;
  double c[kBlobs][3];
  for (auto& b : c)
    for (double& v : b) v = r.uniform(-hw / 2, hw / 2);
  r.skip(6 * std::uint64_t(first));  // 3 normals of 2 draws per source
  const double sigma = hw / 10;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto& b = c[(first + i) % kBlobs];
    const double x = b[0] + sigma * r.normal(), y = b[1] + sigma * r.normal(),
                 z = b[2] + sigma * r.normal();
    set(s, i, x, y, z, 1.0);
  }
}

void gen_dipoles(Sources& s, double hw, Rng& r, std::size_t first) {
  const double half_sep = hw / 100;  // pairs separated by hw / 50
  const std::size_t end = first + s.size();
  const std::size_t pair0 = first / 2;  // a range may start at a pair's second member
  r.skip(5 * std::uint64_t(pair0));     // 5 draws per pair
  for (std::size_t i = 2 * pair0; i < end; i += 2) {
    const double cx = r.uniform(-hw, hw), cy = r.uniform(-hw, hw), cz = r.uniform(-hw, hw);
    // Uniform direction on the sphere.
    const double uz = r.uniform(-1, 1), phi = r.uniform(0, 6.283185307179586);
    const double rho = std::sqrt(std::max(0.0, 1 - uz * uz));
    const double dx = half_sep * rho * std::cos(phi), dy = half_sep * rho * std::sin(phi),
                 dz = half_sep * uz;
    if (i >= first) set(s, i - first, cx + dx, cy + dy, cz + dz, 1.0);
    if (i + 1 < end) set(s, i + 1 - first, cx - dx, cy - dy, cz - dz, -1.0);
  }
}

void gen_lattice(Sources& s, double hw, std::size_t count, std::size_t first) {
  std::size_t n = std::size_t(std::ceil(std::cbrt(double(count))));
  while (n * n * n < count) ++n;
  while (n > 1 && (n - 1) * (n - 1) * (n - 1) >= count) --n;
  auto coord = [&](std::size_t i) {
    return n == 1 ? 0.0 : -hw + 2 * hw * double(i) / double(n - 1);
  };
  // Source idx is lattice point (i, j, k) with idx = (i n + j) n + k, k fastest.
  for (std::size_t t = 0; t < s.size(); ++t) {
    const std::size_t idx = first + t, i = idx / (n * n), j = idx / n % n, k = idx % n;
    set(s, t, coord(i), coord(j), coord(k), (i + j + k) % 2 ? -1.0 : 1.0);
  }
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

/// Stores row `i`, values v[0..cols), after checking each value is finite and fits in float32.
/// `where` names the row in messages, e.g. "row 17".
/// Value `v` of column c (x, y, z, q) as the float32 it is stored as; throws naming the file,
/// the row and the column for a non-finite value or one beyond float32.
float checked_value(double v, std::size_t c, const std::string& path, const std::string& where) {
  if (!std::isfinite(v))
    throw Error(path + ": " + where + ": non-finite " + column_name(c) + " value (" +
                (std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf")) +
                "); sources need finite x, y, z and q");
  const float f = float(v);
  if (!std::isfinite(f))
    throw Error(path + ": " + where + ": " + column_name(c) + " value " + std::to_string(v) +
                " does not fit in float32");
  return f;
}

void store_row(Sources& s, std::size_t i, const double* v, std::size_t cols,
               const std::string& path, const std::string& where) {
  float f[4] = {0, 0, 0, 1};
  for (std::size_t c = 0; c < cols; ++c) f[c] = checked_value(v[c], c, path, where);
  s.x[i] = f[0], s.y[i] = f[1], s.z[i] = f[2], s.q[i] = f[3];
}

constexpr const char* kNpyDtypes = "float32 or float64 (the sources)";
constexpr std::size_t kChunkRows = std::size_t(1) << 18;  // rows read and converted at a time

/// Checks a source array's dtype and shape; `shape_text` is for the messages.
void check_source_array(io::DType dtype, const std::vector<std::size_t>& shape,
                        const std::string& shape_text, const std::string& path) {
  if (dtype != io::DType::Float32 && dtype != io::DType::Float64)
    throw Error(path + ": dtype " + io::to_string(dtype) +
                " is not supported for sources; expected float32 or float64");
  if (shape.size() != 2 || (shape[1] != 3 && shape[1] != 4))
    throw Error(path + ": (P,4) or (P,3) expected, got " + shape_text + " (columns x, y, z[, q])");
  if (shape[0] == 0) throw Error(path + ": no sources (shape " + shape_text + ")");
}

/// Stores `rows` rows of a 2-D array, strides in bytes, into s[at, at + rows), checked as
/// store_row checks them. Messages name file row first_row + i.
void store_strided(Sources& s, std::size_t at, const void* data, io::DType dtype, std::size_t rows,
                   std::size_t cols, std::ptrdiff_t row_stride, std::ptrdiff_t col_stride,
                   const std::string& path, std::size_t first_row) {
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
    store_row(s, at + i, v, cols, path, "row " + std::to_string(first_row + i));
  }
}

/// Resolves `rows` against a set of `count` sources. Throws simscope::Error for a range beyond
/// count; the message starts with `prefix`, and `what` names the set's size, e.g. "the file has".
IndexRange resolve_rows(const IndexRange& rows, std::size_t count, const std::string& prefix,
                        const std::string& what) {
  const std::size_t end = rows.end == IndexRange::kToEnd ? count : rows.end;
  if (rows.begin > end || end > count)
    throw Error(prefix + "sources [" + std::to_string(rows.begin) + ", " + std::to_string(end) +
                ") asked for, " + what + " " + std::to_string(count));
  return {rows.begin, end};
}

/// The header of a .npy source file, checked as source_file_count does.
io::NpyHeader npy_source_header(const std::string& path) {
  const io::NpyHeader h = io::read_npy_header(path, kNpyDtypes);
  check_source_array(h.dtype, h.shape, h.shape_text(), path);
  return h;
}

Sources load_npy_rows(const std::string& path, const IndexRange& wanted) {
  const io::NpyHeader h = npy_source_header(path);
  const IndexRange rows = resolve_rows(wanted, h.shape[0], path + ": ", "the file has");
  const std::size_t cols = h.shape[1];
  const std::ptrdiff_t item = h.dtype == io::DType::Float32 ? 4 : 8;
  Sources s;
  reserve(s, rows.end - rows.begin);
  for (std::size_t b = rows.begin; b < rows.end; b += kChunkRows) {
    const std::size_t e = std::min(rows.end, b + kChunkRows);
    const io::NpyArray a = io::read_npy_rows(path, b, e, kNpyDtypes);
    if (a.dtype != h.dtype || a.shape != std::vector<std::size_t>{e - b, cols})
      throw Error(path + ": the file changed while it was read");
    store_strided(s, b - rows.begin, a.data.data(), a.dtype, e - b, cols,
                  item * std::ptrdiff_t(cols), item, path, b);
  }
  return s;
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

/// The error of a file type load_sources does not read.
[[noreturn]] void unknown_type(const std::string& path) {
  throw Error(path + ": unknown source file type '" + lower_extension(path) +
              "'; expected a .npy or .csv file");
}

/// generate_sources' checks of its settings.
void check_generator(const std::string& distribution, std::size_t count, double half_width) {
  if (count < 1) throw Error("sources.count must be at least 1");
  if (count > kMaxSources)
    throw Error("sources.count " + std::to_string(count) + " exceeds the maximum of 1e9");
  if (!(half_width > 0) || !std::isfinite(half_width))
    throw Error("sources.half_width must be a finite number > 0");
  if (distribution != "uniform" && distribution != "gaussian" && distribution != "dipoles" &&
      distribution != "lattice")
    throw Error("sources.distribution: expected uniform, gaussian, dipoles or lattice, got '" +
                distribution + "'");
}

}  // namespace

Sources sources_from_npy(const io::NpyArray& a, const std::string& path) {
  check_source_array(a.dtype, a.shape, a.shape_text(), path);
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
  check_source_array(dtype, shape_of.shape, shape_of.shape_text(), path);
  Sources s;
  reserve(s, rows);
  store_strided(s, 0, data, dtype, rows, cols, row_stride, col_stride, path, 0);
  s.generation = detail::next_generation();
  return s;
}

Sources generate_sources(const std::string& distribution, std::size_t count, double half_width,
                         std::uint64_t seed) {
  return generate_source_rows(distribution, count, half_width, seed, IndexRange::all());
}

Sources generate_source_rows(const std::string& distribution, std::size_t count, double half_width,
                             std::uint64_t seed, const IndexRange& wanted) {
  check_generator(distribution, count, half_width);
  const IndexRange rows = resolve_rows(wanted, count, "", "sources.count is");
  Sources s;
  reserve(s, rows.end - rows.begin);
  Rng r(seed);
  if (distribution == "uniform")
    gen_uniform(s, half_width, r, rows.begin);
  else if (distribution == "gaussian")
    gen_gaussian(s, half_width, r, rows.begin);
  else if (distribution == "dipoles")
    gen_dipoles(s, half_width, r, rows.begin);
  else
    gen_lattice(s, half_width, count, rows.begin);
  s.generation = detail::next_generation();
  return s;
}

Sources load_sources(const std::string& path) { return load_source_rows(path, IndexRange::all()); }

bool source_rows_readable(const std::string& path) { return lower_extension(path) == ".npy"; }

std::size_t source_file_count(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return npy_source_header(path).shape[0];
  if (ext == ".csv") return load_csv(path).size();
  unknown_type(path);
}

Sources load_source_rows(const std::string& path, const IndexRange& rows) {
  const std::string ext = lower_extension(path);
  Sources s;
  if (ext == ".npy") {
    s = load_npy_rows(path, rows);
  } else if (ext == ".csv") {
    s = load_csv(path);
    const IndexRange r = resolve_rows(rows, s.size(), path + ": ", "the file has");
    if (r.begin > 0 || r.end < s.size())
      for (auto* v : {&s.x, &s.y, &s.z, &s.q}) {
        v->erase(v->begin() + std::ptrdiff_t(r.end), v->end());
        v->erase(v->begin(), v->begin() + std::ptrdiff_t(r.begin));
        v->shrink_to_fit();
      }
  } else {
    unknown_type(path);
  }
  s.generation = detail::next_generation();
  return s;
}

Sources make_sources(const SourceSpec& spec) {
  if (!spec.file.empty()) return load_sources(spec.file);
  return generate_sources(spec.distribution, spec.count, spec.half_width, spec.seed);
}

std::size_t source_count(const SourceSpec& spec) {
  if (!spec.file.empty()) return source_file_count(spec.file);
  check_generator(spec.distribution, spec.count, spec.half_width);
  return spec.count;
}

Sources make_source_rows(const SourceSpec& spec, const IndexRange& rows) {
  if (!spec.file.empty()) return load_source_rows(spec.file, rows);
  return generate_source_rows(spec.distribution, spec.count, spec.half_width, spec.seed, rows);
}

void charges_from_strided(Sources& s, const void* data, io::DType dtype, std::ptrdiff_t stride,
                          const std::string& name) {
  if (dtype != io::DType::Float32 && dtype != io::DType::Float64)
    throw Error(name + ": dtype " + io::to_string(dtype) +
                " is not supported; expected float32 or float64");
  const auto* base = static_cast<const std::uint8_t*>(data);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::uint8_t* e = base + std::ptrdiff_t(i) * stride;
    double v;
    if (dtype == io::DType::Float32) {
      float f;
      std::memcpy(&f, e, 4);
      v = f;
    } else {
      std::memcpy(&v, e, 8);
    }
    s.q[i] = checked_value(v, 3, name, "row " + std::to_string(i));
  }
}

}  // namespace simscope::field
