// Inputs of the lsq workload (lsq.hpp): cube and design-matrix files, the synthetic generator,
// problem checks, and the available-memory guard.
#include <omp.h>

// GCC 12 reports false -Wmaybe-uninitialized inside Eigen's AVX-512 packet code.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <new>
#include <random>
#include <sstream>
#include <string>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "io/csv.hpp"
#include "io/npy.hpp"
#include "lsq/cube_file.hpp"
#include "lsq/lsq.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq {

namespace detail {
std::uint64_t next_generation() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

double output_bytes(std::size_t n, std::size_t pixels) {
  // Per pixel: float64 solution; float32 residual and condition, int32 count, uint8 status;
  // and the app's float32 copy of the solution and maps.
  return double(pixels) * (double(n) * 12.0 + 4 + 4 + 4 + 1 + 16);
}
}  // namespace detail

double device_maps_bytes(std::size_t n, std::size_t pixels) {
  return double(pixels) * (double(n) * 8.0 + 4 + 4 + 4 + 1);
}

namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

/// SplitMix64 (Steele, Lea & Flood 2014), a counter-based generator: entry k of the synthetic
/// cube gets the same noise and gap at any thread count.
std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
double unit(std::uint64_t h) { return double(h >> 11) * 0x1.0p-53; }  // [0, 1)

std::string index_text(const std::vector<std::size_t>& shape, std::size_t flat) {
  std::vector<std::size_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s = "[";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

Design design_from_values(const std::string& path, std::size_t m, std::size_t n,
                          std::vector<double> values, bool csv) {
  if (m == 0 || n == 0) throw Error(path + ": the design matrix is empty; expected shape (M, N)");
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k])) {
      const std::string where =
          csv ? "data row " + std::to_string(k / n + 1) + ", column " + std::to_string(k % n + 1)
              : std::string("A").append(index_text({m, n}, k));
      throw Error(path + ": " + where + " is " + (std::isnan(values[k]) ? "nan" : "inf") +
                  "; the design matrix must be finite (gaps belong in the data cube, as NaN)");
    }
  Design d;
  d.m = m;
  d.n = n;
  d.a = std::move(values);
  return d;
}

}  // namespace

double available_host_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (f >> key >> kb) {
    if (key == "MemAvailable:") return kb * 1024.0;
    f.ignore(1 << 10, '\n');
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 1e18;
}

const char* status_name(int code) {
  switch (code) {
    case kOk:
      return "ok";
    case kUnderdetermined:
      return "underdetermined";
    case kRankDeficient:
      return "rank-deficient";
    case kAllMissing:
      return "all-missing";
  }
  return "unknown";
}

double fallback_condition(Precision p) { return p == Precision::Fp32 ? 1e5 : 1e10; }

Cube make_cube(std::vector<float> values, std::size_t m, std::size_t height, std::size_t width) {
  if (values.size() != m * height * width)
    throw Error("lsq: cube values do not match the shape (M, H, W)");
  Cube c;
  c.m = m, c.height = height, c.width = width;
  c.dtype = io::DType::Float32;
  c.bytes.resize(values.size() * sizeof(float));
  std::memcpy(c.bytes.data(), values.data(), c.bytes.size());
  c.generation = detail::next_generation();
  return c;
}

Cube make_cube(std::vector<double> values, std::size_t m, std::size_t height, std::size_t width) {
  if (values.size() != m * height * width)
    throw Error("lsq: cube values do not match the shape (M, H, W)");
  Cube c;
  c.m = m, c.height = height, c.width = width;
  c.dtype = io::DType::Float64;
  c.bytes.resize(values.size() * sizeof(double));
  std::memcpy(c.bytes.data(), values.data(), c.bytes.size());
  c.generation = detail::next_generation();
  return c;
}

/// Whether v[0..n) holds +-inf: the largest |v| over the non-NaN entries, in 16-byte vectors
/// (GCC vector extensions, so the check runs at the memory's speed at any instruction set).
template <class E>
static bool any_inf(const E* v, std::size_t n) {
  constexpr int L = 16 / sizeof(E);
  typedef E VE __attribute__((vector_size(16)));
  VE m[4] = {};
  std::size_t k = 0;
  for (; k + 4 * L <= n; k += 4 * L)
    for (int q = 0; q < 4; ++q) {
      VE x;
      std::memcpy(&x, v + k + std::size_t(q) * L, sizeof x);
      const VE a = x < 0 ? -x : x;
      m[q] = a > m[q] ? a : m[q];  // a NaN compares false: kept out
    }
  E r = 0;
  for (int q = 0; q < 4; ++q)
    for (int l = 0; l < L; ++l) r = m[q][l] > r ? m[q][l] : r;
  for (; k < n; ++k) r = std::fabs(v[k]) > r ? std::fabs(v[k]) : r;
  return std::isinf(r);
}

/// The index of v's first +-inf entry, or n. Chunks are tested with any_inf; only a chunk
/// holding an inf is searched entry by entry.
template <class E>
static std::size_t first_inf(const E* v, std::size_t n) {
  constexpr std::size_t kChunk = 4096;
  std::size_t bad = n;
#pragma omp parallel for reduction(min : bad) schedule(static)
  for (std::size_t c = 0; c < n; c += kChunk) {
    const std::size_t e = std::min(n, c + kChunk);
    if (any_inf(v + c, e - c))
      for (std::size_t k = c; k < e; ++k)
        if (std::isinf(v[k])) {
          bad = std::min(bad, k);
          break;
        }
  }
  return bad;
}

/// Throws refuse_inf_entries' message for c's first +-inf entry, if any.
static void throw_first_inf(const Cube& c, const std::string& path) {
  const std::size_t n = c.size();
  const std::size_t bad =
      c.dtype == io::DType::Float32 ? first_inf(c.f32(), n) : first_inf(c.f64(), n);
  if (bad < n)
    throw Error(path + ": entry " + index_text({c.m, c.height, c.width}, bad) +
                " is inf; only NaN may mark a missing observation");
}

void refuse_inf_entries(Cube& c, const std::string& path) {
  throw_first_inf(c, path);
  c.inf_unchecked.clear();
  c.generation = detail::next_generation();
}

void refuse_unchecked_inf(const Cube& c) {
  if (!c.inf_unchecked.empty()) throw_first_inf(c, c.inf_unchecked);
}

/// A cube's file name as load_cube() takes it.
static void check_cube_name(const std::string& path) {
  if (lower_extension(path) != ".npy")
    throw Error(path + ": the data cube must be a .npy file of shape (M, H, W)");
}
/// A cube's dtype and shape as load_cube() and cube_from_npy() take them; `shape_text` is
/// `shape` as numpy prints it.
static void check_cube_layout(io::DType dtype, const std::vector<std::size_t>& shape,
                              const std::string& shape_text, const std::string& path) {
  if (dtype != io::DType::Float32 && dtype != io::DType::Float64)
    throw Error(path + ": dtype " + io::to_string(dtype) +
                "; the data cube must be float32 or float64 (NaN marks a missing value)");
  if (shape.size() != 3)
    throw Error(path + ": shape " + shape_text + " has " + std::to_string(shape.size()) +
                " dimension" + (shape.size() == 1 ? "" : "s") +
                "; expected a cube (M, H, W): M observations of H x W pixels");
  if (std::find(shape.begin(), shape.end(), std::size_t(0)) != shape.end())
    throw Error(path + ": shape " + shape_text + " is empty");
}

void check_cube_file(const std::string& path) {
  check_cube_name(path);
  const io::NpyHeader h = io::read_npy_header(path, "float32 or float64 (the data cube)");
  check_cube_layout(h.dtype, h.shape, h.shape_text(), path);
}

Cube load_cube(const std::string& path, bool refuse_inf) {
  check_cube_name(path);
  std::error_code ec;
  const auto fsize = std::filesystem::file_size(path, ec);
  if (!ec) {
    const double avail = available_host_bytes();
    if (double(fsize) > avail)
      throw Error(path + ": the cube is " + format_bytes(double(fsize)) + ", more than the " +
                  format_bytes(avail) + " of memory available; crop it or split it into tiles");
  }
  return cube_from_npy(io::read_npy(path, "float32 or float64 (the data cube)"), path,
                       refuse_inf);
}

Cube cube_from_npy(io::NpyArray a, const std::string& path, bool refuse_inf) {
  check_cube_layout(a.dtype, a.shape, a.shape_text(), path);
  Cube c;
  c.m = a.shape[0], c.height = a.shape[1], c.width = a.shape[2];
  c.dtype = a.dtype;
  c.bytes = std::move(a.data);
  if (refuse_inf)
    refuse_inf_entries(c, path);
  else
    c.generation = detail::next_generation();
  return c;
}

Cube borrow_cube(const void* data, io::DType dtype, std::size_t m, std::size_t height,
                 std::size_t width, const std::string& name, bool defer_inf) {
  if (dtype != io::DType::Float32 && dtype != io::DType::Float64)
    throw Error(name + ": dtype " + io::to_string(dtype) +
                "; the data cube must be float32 or float64 (NaN marks a missing value)");
  Cube c;
  c.m = m, c.height = height, c.width = width;
  c.dtype = dtype;
  if (c.size() == 0)
    throw Error(name + ": shape (" + std::to_string(m) + ", " + std::to_string(height) + ", " +
                std::to_string(width) + ") is empty");
  c.borrowed = static_cast<const std::uint8_t*>(data);
  if (!defer_inf) {
    refuse_inf_entries(c, name);
    return c;
  }
  c.inf_unchecked = name;
  c.generation = detail::next_generation();
  return c;
}

Design design_from_npy(const io::NpyArray& a, const std::string& path) {
  if (a.shape.size() == 1) return design_from_values(path, a.shape[0], 1, a.to_double(), false);
  if (a.shape.size() != 2)
    throw Error(path + ": shape " + a.shape_text() +
                "; the design matrix must be 2-D, shape (M, N)");
  return design_from_values(path, a.shape[0], a.shape[1], a.to_double(), false);
}

Design load_design(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return design_from_npy(io::read_npy(path), path);
  if (ext == ".csv") {
    io::CsvTable t = io::read_csv(path);
    if (t.rows == 0) throw Error(path + ": no data rows; expected M rows of N numbers");
    return design_from_values(path, t.rows, t.cols, std::move(t.values), true);
  }
  throw Error(path + ": unknown design-matrix file type '" + ext +
              "'; expected a .npy or .csv file");
}

void validate(const Cube& cube, const Design& design, const Options& options) {
  if (cube.m == 0 || cube.height == 0 || cube.width == 0)
    throw Error("lsq: the data cube is empty");
  if (cube.dtype != io::DType::Float32 && cube.dtype != io::DType::Float64)
    throw Error("lsq: the data cube must be float32 or float64");
  if (cube.stored_bytes() != cube.size() * (cube.dtype == io::DType::Float32 ? 4 : 8))
    throw Error("lsq: the data cube's storage does not match its shape");
  if (design.m == 0 || design.n == 0 || design.a.size() != design.m * design.n)
    throw Error("lsq: the design matrix is empty or does not match its shape");
  if (cube.m != design.m)
    throw Error("lsq: the data cube has M = " + std::to_string(cube.m) +
                " observations per pixel but the design matrix has " + std::to_string(design.m) +
                " rows; A must have shape (M, N) with the cube's M");
  if (design.n > kMaxUnknowns)
    throw Error("lsq: N = " + std::to_string(design.n) + " unknowns; at most " +
                std::to_string(kMaxUnknowns) + " are supported");
  if (design.m > kMaxObservations)
    throw Error("lsq: M = " + std::to_string(design.m) + " observations; at most " +
                std::to_string(kMaxObservations) + " are supported");
  for (std::size_t k = 0; k < design.a.size(); ++k)
    if (!std::isfinite(design.a[k]))
      throw Error("lsq: design matrix entry A" + index_text({design.m, design.n}, k) +
                  " is not finite");
  if (!std::isfinite(options.lambda) || options.lambda < 0)
    throw Error("lsq: lambda must be a finite number >= 0, got " + std::to_string(options.lambda));
}

Design make_design(const std::string& kind, std::size_t m, std::size_t n, std::uint64_t seed) {
  if (m < 1 || n < 1) throw Error("lsq: the design matrix needs M >= 1 and N >= 1");
  Design d;
  d.m = m, d.n = n;
  d.a.resize(m * n);
  if (kind == "random") {
    std::mt19937_64 g(seed * 0x2545f4914f6cdd1dull + 17);
    for (double& v : d.a) {  // Box-Muller on the standard's fully specified engine
      const double u1 = 1.0 - double(g() >> 11) * 0x1.0p-53, u2 = double(g() >> 11) * 0x1.0p-53;
      v = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
  } else if (kind == "polynomial") {
    for (std::size_t i = 0; i < m; ++i) {
      const double t = m == 1 ? 0.0 : -1.0 + 2.0 * double(i) / double(m - 1);
      double p0 = 1, p1 = t;  // Legendre recurrence (k+1) P_{k+1} = (2k+1) t P_k - k P_{k-1}
      for (std::size_t k = 0; k < n; ++k) {
        d.a[i * n + k] = k == 0 ? p0 : p1;
        if (k >= 1) {
          const double p2 = ((2.0 * double(k) + 1) * t * p1 - double(k) * p0) / double(k + 1);
          p0 = p1, p1 = p2;
        }
      }
    }
  } else if (kind == "gaussian_bands") {
    const double w = 0.7 / double(n);
    for (std::size_t i = 0; i < m; ++i) {
      const double t = m == 1 ? 0.5 : double(i) / double(m - 1);
      for (std::size_t k = 0; k < n; ++k) {
        const double c = n == 1 ? 0.5 : double(k) / double(n - 1);
        const double z = (t - c) / w;
        d.a[i * n + k] = std::exp(-0.5 * z * z);
      }
    }
  } else {
    throw Error("lsq: unknown synthetic design '" + kind +
                "' (known: random, polynomial, gaussian_bands)");
  }
  return d;
}

Synth generate(const SynthSpec& spec, const Design* given) {
  if (spec.height < 1 || spec.width < 1)
    throw Error("lsq: synthetic cube needs height and width >= 1");
  if (!(spec.nan_fraction >= 0 && spec.nan_fraction <= 1))
    throw Error("lsq: synth.nan_fraction must be in [0, 1]");
  if (!(spec.noise >= 0) || !std::isfinite(spec.noise))
    throw Error("lsq: synth.noise must be a finite number >= 0");
  Synth s;
  s.design = given ? *given : make_design(spec.design, spec.m, spec.n, spec.seed);
  const std::size_t M = s.design.m, N = s.design.n, P = spec.height * spec.width;
  if (N > kMaxUnknowns || M > kMaxObservations)
    throw Error("lsq: at most " + std::to_string(kMaxUnknowns) + " unknowns and " +
                std::to_string(kMaxObservations) + " observations are supported");
  const double need =
      double(M) * double(P) * 4 + double(N) * double(P) * 8 + detail::output_bytes(N, P);
  const double avail = available_host_bytes();
  if (need > avail)
    throw Error("lsq: the synthetic problem (" + std::to_string(M) + " x " +
                std::to_string(spec.height) + " x " + std::to_string(spec.width) +
                " cube, its truth and the outputs) needs " + format_bytes(need) +
                ", more than the " + format_bytes(avail) + " of memory available");
  float* cube = nullptr;
  try {
    s.cube.bytes.resize(M * P * sizeof(float));
    cube = reinterpret_cast<float*>(s.cube.bytes.data());
    s.truth.resize(N * P);
  } catch (const std::bad_alloc&) {
    throw Error("lsq: cannot allocate " + format_bytes(need) + " for the synthetic problem");
  }

  // Smooth maps: x_k(u, v) = c_k + sum_j a_kj cos(2 pi (f_kj u + g_kj v) + phi_kj), with u = h / H,
  // v = w / W, 3 terms, frequencies in [-2, 2] cycles per image.
  struct Term {
    double a, f, g, phi;
  };
  std::vector<double> offset(N);
  std::vector<Term> terms(N * 3);
  {
    std::mt19937_64 g(spec.seed * 0x9e3779b97f4a7c15ull + 3);
    auto u = [&] { return double(g() >> 11) * 0x1.0p-53; };
    for (std::size_t k = 0; k < N; ++k) {
      offset[k] = u() - 0.5;
      for (int j = 0; j < 3; ++j)
        terms[k * 3 + j] = {0.3 + 0.7 * u(), 4 * u() - 2, 4 * u() - 2, 6.283185307179586 * u()};
    }
  }
  const double two_pi = 6.283185307179586;
  const std::uint64_t key = splitmix(spec.seed ^ 0x6a09e667f3bcc909ull);
  constexpr std::size_t kChunk = 1024;
  const std::size_t chunks = (P + kChunk - 1) / kChunk;
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMat> A(s.design.a.data(), Eigen::Index(M), Eigen::Index(N));
#pragma omp parallel
  {
    RowMat X, B;
#pragma omp for schedule(dynamic)
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t p0 = c * kChunk, np = std::min(kChunk, P - p0);
      X.resize(Eigen::Index(N), Eigen::Index(np));
      for (std::size_t k = 0; k < N; ++k)
        for (std::size_t q = 0; q < np; ++q) {
          const std::size_t p = p0 + q;
          const double u = double(p / spec.width) / double(spec.height);
          const double v = double(p % spec.width) / double(spec.width);
          double x = offset[k];
          for (int j = 0; j < 3; ++j) {
            const Term& t = terms[k * 3 + j];
            x += t.a * std::cos(two_pi * (t.f * u + t.g * v) + t.phi);
          }
          X(Eigen::Index(k), Eigen::Index(q)) = x;
          s.truth[k * P + p] = x;
        }
      B.noalias() = A * X;
      for (std::size_t i = 0; i < M; ++i)
        for (std::size_t q = 0; q < np; ++q) {
          const std::uint64_t idx = i * P + p0 + q;
          const std::uint64_t h1 = splitmix(key ^ (2 * idx)), h2 = splitmix(key ^ (2 * idx + 1));
          double v = B(Eigen::Index(i), Eigen::Index(q));
          if (spec.noise > 0) {
            const double u1 = 1.0 - unit(h1), u2 = unit(h2);
            v += spec.noise * std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
          }
          const bool gap = spec.nan_fraction > 0 && unit(splitmix(h1 ^ h2)) < spec.nan_fraction;
          cube[idx] = gap ? NAN : float(v);
        }
    }
  }
  s.cube.m = M, s.cube.height = spec.height, s.cube.width = spec.width;
  s.cube.dtype = io::DType::Float32;
  s.cube.generation = detail::next_generation();
  return s;
}

}  // namespace simscope::lsq
