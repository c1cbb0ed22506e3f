// The files of a study checkpoint folder (study_checkpoint_files.hpp).
#include "oscillators/study_checkpoint_files.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/shape_text.hpp"
#include "io/atomic_file.hpp"
#include "output/json.hpp"

namespace simscope::app::checkpoint_files {
namespace {

namespace fs = std::filesystem;
namespace osc = simscope::oscillators;

std::string gen_prefix(std::int64_t g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "g%06lld.", static_cast<long long>(g));
  return buf;
}

}  // namespace

std::string block_name(int b, const char* what) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "block_%05d.%s.npy", b, what);
  return buf;
}
std::string gen_name(std::int64_t g, const char* what) { return gen_prefix(g) + what + ".npy"; }

/// DIR/NAME (NAME alone when DIR is empty).
std::string path_in(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::vector<double> interleave(const std::vector<double>& x, const std::vector<double>& y,
                               std::size_t from, std::size_t count) {
  std::vector<double> v(2 * count);
  for (std::size_t q = 0; q < count; ++q) v[2 * q] = x[from + q], v[2 * q + 1] = y[from + q];
  return v;
}

/// Reads a checkpoint array of dtype `dt` and shape `shape`. Throws Error naming the file.
io::NpyArray read_array(const std::string& dir, const std::string& name, io::DType dt,
                        const std::vector<std::size_t>& shape) {
  const std::string path = path_in(dir, name);
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(path +
                ": missing from the checkpoint (remove the checkpoint folder to start over)");
  io::NpyArray a = io::read_npy(path);
  if (a.dtype != dt || a.shape != shape)
    throw Error(path + ": checkpoint array is " + io::to_string(a.dtype) + " " + a.shape_text() +
                ", expected " + io::to_string(dt) + " " + shape_text(shape));
  return a;
}

std::vector<double> as_doubles(const io::NpyArray& a) {
  std::vector<double> v(a.size());
  if (!v.empty()) std::memcpy(v.data(), a.data.data(), v.size() * sizeof(double));
  return v;
}

/// Rows of a (3, n) fp64 array.
void rows3(const io::NpyArray& a, std::vector<double>& r0, std::vector<double>& r1,
           std::vector<double>& r2) {
  const std::vector<double> v = as_doubles(a);
  const std::size_t n = v.size() / 3;
  r0.assign(v.begin(), v.begin() + std::ptrdiff_t(n));
  r1.assign(v.begin() + std::ptrdiff_t(n), v.begin() + std::ptrdiff_t(2 * n));
  r2.assign(v.begin() + std::ptrdiff_t(2 * n), v.end());
}

std::vector<std::int64_t> to_counts(const std::vector<double>& v) { return {v.begin(), v.end()}; }

/// Reduction groups of the block of `kb` members of a study of K (study_group_members).
std::size_t groups_of(int K, std::size_t kb) {
  const std::size_t g = std::size_t(osc::study_group_members(K));
  return (kb + g - 1) / g;
}

/// The (3, ns, G) array of a block under way: its groups' sums of msd and R and their counts
/// at each sample, in (sample, group) order (Series::group_*).
std::vector<double> group_rows(const osc::Series& s) {
  return stack3(s.group_msd, s.group_order, s.group_finite);
}

/// Fills Series::group_* of a block under way from its (3, ns, G) array.
/// Also sets the block means: the groups' fold over the count. Only their length is used.
void read_group_rows(const io::NpyArray& a, std::size_t ns, std::size_t G, osc::Series& s) {
  std::vector<double> counts;
  rows3(a, s.group_msd, s.group_order, counts);
  s.group_finite = to_counts(counts);
  s.msd.assign(ns, 0.0), s.order.assign(ns, 0.0), s.finite.assign(ns, 0);
  for (std::size_t j = 0; j < ns; ++j) {
    double m = 0, o = 0;
    std::int64_t n = 0;
    for (std::size_t q = 0; q < G; ++q)
      m += s.group_msd[j * G + q], o += s.group_order[j * G + q], n += s.group_finite[j * G + q];
    s.finite[j] = n;
    s.msd[j] = n > 0 ? m / double(n) : std::nan("");
    s.order[j] = n > 0 ? o / double(n) : std::nan("");
  }
}

/// Appends (n, N, 2) interleaved values to x, y.
void split_state(const std::vector<double>& v, std::vector<double>& x, std::vector<double>& y) {
  for (std::size_t q = 0; q + 1 < v.size(); q += 2) x.push_back(v[q]), y.push_back(v[q + 1]);
}

std::string block_file(int b, const char* what) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "block_%05d.%s", b, what);
  return buf;
}
std::string partial_file(int b, std::int64_t g, const char* what) {
  char buf[80];
  if (g < 0)
    std::snprintf(buf, sizeof buf, "partial_%05d.%s", b, what);
  else
    std::snprintf(buf, sizeof buf, "partial_%05d.g%06lld.%s.npy", b, static_cast<long long>(g),
                  what);
  return buf;
}

/// Writes `text` to DIR/NAME atomically: NAME.tmp, flushed, renamed. Throws Error naming it.
void write_text_atomic(const std::string& dir, const std::string& name, const std::string& text) {
  io::write_file_atomic(path_in(dir, name), text, "the checkpoint", true);
}

/// DIR/NAME as a JSON object; nothing when the file does not exist.
/// Throws Error naming the file when it is not an object.
std::optional<Json> read_json(const std::string& dir, const std::string& name) {
  const std::string path = path_in(dir, name);
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  Json o = Json::parse(text, nullptr, false);
  if (!o.is_object())
    throw Error(path + ": not a checkpoint record (remove the checkpoint folder to start over)");
  return o;
}

}  // namespace simscope::app::checkpoint_files
