// The measured error of a tree evaluation (tree_internal.hpp: measure_error): direct fp64 sums
// at a random sample of the evaluated targets, compared with the tree's fp64 values.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

#include "core/error.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field::tree {

std::size_t error_sample_count(std::int64_t requested, std::size_t P, std::size_t T) {
  if (requested == 0 || T == 0) return 0;
  std::size_t n;
  if (requested > 0) {
    n = std::size_t(requested);
  } else {
    // About 3e7 pairs, at least 8 targets, at most 1024.
    n = std::clamp<std::size_t>(std::size_t(3e7 / double(std::max<std::size_t>(P, 1))), 8, 1024);
  }
  return std::min(n, T);
}

void measure_error(std::size_t sources, const Targets& t, const IndexRange& r, const Options& o,
                   const std::vector<double>& acc, const DirectSums& direct, TreeStats& stats) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t T = r.end - r.begin;
  const std::size_t n = error_sample_count(o.error_samples, sources, T);
  stats.error_samples = n;
  stats.rms_rel_error = stats.max_rel_error = NAN;
  if (n == 0) return;
  // A stratified sample: one random target in each of n equal runs of consecutive indices,
  // i.e. rows of a plane. It spreads over the plane and keeps the estimate's variance below
  // that of n independent draws. Without a seed it is drawn from a hash of what is evaluated:
  // target count and end points, source count, tolerance. So another plane or grid gets a new
  // sample and the same run the same one. This matters because the sample's error decides the
  // ladder's rung and so the outputs, which must not change between identical runs.
  std::uint64_t seed = o.error_seed;
  if (seed == 0) {
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the words below
    auto mix = [&h](std::uint64_t w) {
      for (int k = 0; k < 8; ++k) h = (h ^ ((w >> (8 * k)) & 0xff)) * 0x100000001b3ull;
    };
    auto bits = [](double v) {
      std::uint64_t u;
      std::memcpy(&u, &v, sizeof u);
      return u;
    };
    mix(sources), mix(T), mix(r.begin), mix(bits(o.tolerance)), mix(bits(o.eps));
    for (std::size_t g : {r.begin, r.end - 1})
      mix(bits(t.x[g])), mix(bits(t.y[g])), mix(bits(t.z[g]));
    seed = h | 1;
  }
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> pick(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t b = i * T / n, e = (i + 1) * T / n;  // e > b since n <= T
    pick[i] = std::uniform_int_distribution<std::size_t>(b, e - 1)(rng);
  }
  std::vector<double> x(n), y(n), z(n), ref(4 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t g = r.begin + pick[i];
    x[i] = t.x[g], y[i] = t.y[g], z[i] = t.z[g];
  }
  direct(x.data(), y.data(), z.data(), n, ref.data());
  double num = 0, den = 0, mx = 0, pnum = 0, pden = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double* a = &acc[pick[i] * 4];
    const double* b = &ref[i * 4];
    const double d2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                      (a[2] - b[2]) * (a[2] - b[2]);
    const double e2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    num += d2, den += e2;
    pnum += (a[3] - b[3]) * (a[3] - b[3]), pden += b[3] * b[3];
    // A target where the direct field is exactly 0, e.g. a centre of symmetry, has no relative
    // error. It counts only in the RMS, by its absolute error against the sample's norm.
    if (e2 > 0) mx = std::max(mx, std::sqrt(d2 / e2));
  }
  // The norms ||E|| and ||phi|| come from every evaluated target's tree values, which are
  // within the tolerance of direct ones, scaled to the sample. Only the numerator is sampled.
  // This removes the denominator's variance: a few targets near sources dominate both sums,
  // and not the same few.
  double all_e = 0, all_p = 0;
  for (std::size_t i = 0; i < T; ++i) {
    const double* a = &acc[i * 4];
    all_e += a[0] * a[0] + a[1] * a[1] + a[2] * a[2], all_p += a[3] * a[3];
  }
  den = all_e * double(n) / double(T), pden = all_p * double(n) / double(T);
  stats.rms_rel_error = den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0.0);
  stats.max_rel_error = mx;
  stats.rms_rel_error_potential = pden > 0 ? std::sqrt(pnum / pden) : (pnum > 0 ? INFINITY : 0.0);
  stats.error_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<float> target_errors(const Targets& t, const IndexRange& r, const Options& o,
                                 const std::vector<double>& acc, const DirectSums& direct,
                                 TreeStats& stats) {
  const std::vector<std::size_t>& idx = o.error_targets;
  std::vector<float> err(idx.size());
  if (idx.empty()) return err;
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = idx.size();
  std::vector<double> x(n), y(n), z(n), ref(4 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t g = idx[i];
    x[i] = t.x[g], y[i] = t.y[g], z[i] = t.z[g];
  }
  direct(x.data(), y.data(), z.data(), n, ref.data());
  for (std::size_t i = 0; i < n; ++i) {
    const double* a = &acc[(idx[i] - r.begin) * 4];
    const double* b = &ref[i * 4];
    const double d = std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                               (a[2] - b[2]) * (a[2] - b[2]));
    const double e = std::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    err[i] = e > 0 ? float(d / e) : (d > 0 ? INFINITY : 0.0f);
  }
  stats.error_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return err;
}

void check_error_targets(const Options& o, const IndexRange& r) {
  for (std::size_t i : o.error_targets)
    if (i < r.begin || i >= r.end)
      throw Error("field tree: error_targets holds target " + std::to_string(i) +
                  ", outside the evaluated targets [" + std::to_string(r.begin) + ", " +
                  std::to_string(r.end) + ")");
}

}  // namespace simscope::field::tree
