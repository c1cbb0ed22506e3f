// The CPU lsq solver (lsq.hpp, Solver). One OpenMP region over tasks of up to kBlockPixels
// consecutive pixels: the cube's bands of kBlockPixels pixels within the rows solved. Each task
// finds the band's shared missing-row patterns (pattern.hpp; methods auto and normal), puts
// their pixels first, grouped by pattern, and the others sorted by observed count. The
// gap-free pixels (all M rows observed) are solved together with the shared SVD's operator,
// and each pattern's pixels with the pattern's (SharedBlock); the others in groups of V, one
// SIMD lane per pixel (LaneGroup), each lane by its path (path.hpp).
// Lanes that leave their path or have none are solved one by one with Eigen (lsq_dense.cpp).
// Lanes without a path: methods qr and svd, and underdetermined pixels with lambda = 0 where the
// minimum-norm path is off. An fp32 solve hands its downdate and minimum-norm pixels to a
// float64 group solver. Each task stages its solutions (SolutionStage) and writes them to the
// result's (N, H, W) rows as contiguous runs.
// Memory: the cube (read in place), the outputs, and O(M V + N^2 V + 256 N) scratch per thread.
#include <omp.h>
#if defined(__AVX512F__) && defined(__BMI2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "core/isa.hpp"
#include "core/error.hpp"
#include "lsq/cpu/lane_group.hpp"
#include "lsq/cpu/path.hpp"
#include "lsq/cpu/pattern.hpp"
#include "lsq/cpu/problem.hpp"
#include "lsq/cpu/shared_block.hpp"

namespace simscope::lsq::detail {
namespace cpu {
SIMSCOPE_ISA_BEGIN

template <class T>
Problem<T>::Problem(const Cube& c, const Design& d, const Options& o, const SharedSvd& s,
                    const DowndateOps& dd, std::size_t pb)
    : cube(c), design(d), options(o), shared(s), ops(dd) {
  M = int(d.m), N = int(d.n);
  ldA = (N + kRowPad - 1) / kRowPad * kRowPad;
  P = c.pixels();
  pbeg = pb;
  apad.assign(std::size_t(M) * ldA, T(0));
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < N; ++k) apad[std::size_t(i) * ldA + k] = T(d.a[std::size_t(i) * N + k]);
  gfull.assign(std::size_t(N + 3) * ldA, T(0));  // blocks of 4 rows
  for (int a = 0; a < N; ++a)
    for (int b = 0; b <= a; ++b) {
      double s = 0;
      for (int i = 0; i < M; ++i) s += d.a[std::size_t(i) * N + a] * d.a[std::size_t(i) * N + b];
      gfull[std::size_t(a) * ldA + b] = T(s);
    }
  ld8 = (N + kProdRows - 1) / kProdRows * kProdRows;
  a8.assign(std::size_t(M) * ld8, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < N; ++k) a8[std::size_t(i) * ld8 + k] = d.a[std::size_t(i) * N + k];
  op8.assign(std::size_t(ld8) * M, 0.0);
  std::copy(s.op.begin(), s.op.end(), op8.begin());
  if (dd.downdate) {
    bop8.assign(std::size_t(ld8) * M, 0.0);
    bt8.assign(std::size_t(M) * ld8, 0.0);
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < N; ++k) {
        bop8[std::size_t(k) * M + i] = dd.bt[std::size_t(i) * N + k];
        bt8[std::size_t(i) * ld8 + k] = dd.bt[std::size_t(i) * N + k];
      }
  }
  threshold = fallback_condition(std::is_same_v<T, float> ? Precision::Fp32 : Precision::Fp64);
  singular = 0.1 / double(std::numeric_limits<T>::epsilon());
}

namespace {

using Clock = std::chrono::steady_clock;

/// Pixels per band of the cube, the unit of a task (order_pixels) and of pattern finding.
constexpr std::size_t kBlockPixels = 256;

/// One task's solutions, N x kBlockPixels: component k of the task's pixel j is at k kStride + j.
/// Groups store here in count order, in an L2-resident buffer. flush() copies each component's
/// row to the result as one contiguous run of np values.
struct SolutionStage {
  // Row stride: 8 doubles more than the task's pixels, so one pixel's N stores do not all fall in
  // the same two L1 sets.
  static constexpr std::size_t kStride = kBlockPixels + 8;
  std::size_t p0 = 0;  // the task's first result pixel
  AVec<double> x;

  explicit SolutionStage(int n) : x(std::size_t(n) * kStride) {}
  /// Copies the staged runs to the result: its solution, or its solution32 rounded to float32
  /// (Options::float32_solution). Returns how many of them are inf once rounded to float32.
  /// With AVX-512 it uses streaming stores, which do not read the result's lines into the
  /// cache; the result's pages are first touched here, by the thread that writes them.
  std::uint64_t flush(Result& out, std::size_t np) const {
    const std::size_t P = out.pixels();
    const bool f32 = !out.solution32.empty();
    std::uint64_t inf = 0;
    for (std::size_t k = 0; k < out.n; ++k) {
      const double* src = x.data() + k * kStride;
      for (std::size_t j = 0; j < np; ++j) inf += std::fabs(src[j]) >= 0x1.ffffffp+127;
      if (f32)
        store_run(out.solution32.data() + k * P + p0, src, np);
      else
        store_run(out.solution.data() + k * P + p0, src, np);
    }
    fence();
    return inf;
  }
  /// Makes the task's streaming stores visible before the task counts as done.
  static void fence() { __builtin_ia32_sfence(); }

 private:
  static void store_run(double* dst, const double* src, std::size_t np) {
    std::size_t j = 0;
#if defined(__AVX512F__) && defined(__BMI2__)
    for (; j < np && reinterpret_cast<std::uintptr_t>(dst + j) % 64 != 0; ++j) dst[j] = src[j];
    for (; j + 8 <= np; j += 8) _mm512_stream_pd(dst + j, _mm512_loadu_pd(src + j));
#endif
    for (; j < np; ++j) dst[j] = src[j];
  }
  static void store_run(float* dst, const double* src, std::size_t np) {
    std::size_t j = 0;
#if defined(__AVX512F__) && defined(__BMI2__)
    for (; j < np && reinterpret_cast<std::uintptr_t>(dst + j) % 32 != 0; ++j)
      dst[j] = float(src[j]);
    for (; j + 8 <= np; j += 8) _mm256_stream_ps(dst + j, _mm512_maskz_cvtpd_ps(0xFF, _mm512_loadu_pd(src + j)));
#endif
    for (; j < np; ++j) dst[j] = float(src[j]);
  }
};

/// The paths in the order they run; each writes only its own lanes.
template <class T, int V>
std::vector<std::unique_ptr<Path<T, V>>> make_paths(const Problem<T>& pb) {
  std::vector<std::unique_ptr<Path<T, V>>> paths;
  paths.push_back(make_gram_path<T, V>(pb));
  paths.push_back(make_downdate_path<T, V>(pb));
  paths.push_back(make_minnorm_path<T, V>(pb));
  return paths;
}

/// Solves groups of V pixels: loads them (LaneGroup), runs the paths their lanes need, and
/// stores each pixel's outputs. Pixels their path left go through Eigen. One instance per thread.
template <class T, int V>
class GroupSolver {
 public:
  GroupSolver(const Problem<T>& pb, Result& out)
      : pb_(pb),
        out_(out),
        g_(pb),
        paths_(make_paths<T, V>(pb)),
        xt_(std::size_t(pb.N) * V),
        xs_(std::size_t(pb.N)) {}

  /// Solutions go to `stage`, the task's SolutionStage, instead of the result.
  void set_stage(SolutionStage* stage) { stage_ = stage; }

  std::uint64_t fallbacks() const { return fallbacks_; }
  std::uint64_t dense_pixels() const { return dense_; }
  std::uint64_t downdate_pixels() const { return downdated_; }
  std::uint64_t minnorm_pixels() const { return minnormed_; }

  /// Solves the result's pixels px[0..lanes), lanes <= V; lane v is cube pixel pbeg + px[v].
  /// Any pixels may be grouped: each lane's outputs do not depend on the others.
  void solve(const std::size_t* px, int lanes) {
    g_.load(px, lanes);
    const Method method = pb_.options.method;
    const double lambda = pb_.options.lambda;
    const int M = pb_.M, N = pb_.N;
    bool any[kMinNorm + 1] = {};
    for (int v = 0; v < V; ++v) {
      const Kind k = v >= lanes ? kPad : kind_of(g_.cnt[v], M, N, method, lambda, pb_.ops);
      g_.kind[v] = k;
      any[k] = true;
    }
    for (const auto& path : paths_)
      if (any[path->kind()]) path->solve(g_);
    g_.residuals();
    for (int k = 0; k < N; ++k)  // x transposed once for the lanes' stores (finish)
      for (int v = 0; v < V; ++v) xt_[std::size_t(v) * N + k] = g_.x[std::size_t(k) * V + v];
    for (int v = 0; v < lanes; ++v) finish(px[v], v);
  }

 private:
  void finish(std::size_t p, int v) {
    const int N = pb_.N;
    const Kind kind = g_.kind[v];
    PixelOutcome o;
    switch (kind) {
      case kPad:
      case kShared:  // solved by SharedBlock, never in a group
        return;
      case kEmpty: {  // status 3: NaN outputs, count 0 (shape_result leaves the arrays unset)
        const double nan = std::numeric_limits<double>::quiet_NaN();
        for (int k = 0; k < N; ++k) xs_[std::size_t(k)] = nan;
        o.status = kAllMissing;
        o.condition = std::numeric_limits<float>::quiet_NaN();
        store(p, xs_.data(), o, nan, 0);
        return;
      }
      case kDense:
        dense(p, v, pb_.options.method != Method::Qr && pb_.options.method != Method::Svd);
        return;
      case kChol:
      case kDowndate:
      case kMinNorm:
        if (!g_.ok[v]) {
          dense(p, v, true);
          return;
        }
        if (kind == kDowndate) ++downdated_;
        if (kind == kMinNorm) ++minnormed_;
        o.status = g_.cnt[v] < N ? kUnderdetermined : kOk;
        o.condition = float(g_.condition[v]);
        break;
    }
    store(p, &xt_[std::size_t(v) * N], o, std::sqrt(g_.rss[v] / double(g_.cnt[v])), g_.cnt[v]);
  }

  /// Writes pixel p's outputs: the maps into the result, and the solution x (N values) into the
  /// task's stage if any, else into the result. SolutionStage::flush copies staged values later.
  void store(std::size_t p, const double* x, const PixelOutcome& o, double residual, int count) {
    if (!stage_) return store_pixel(out_, p, x, o, residual, count);
    store_maps(out_, p, o, residual, count);
    double* s = stage_->x.data() + (p - stage_->p0);
    for (int k = 0; k < pb_.N; ++k) s[std::size_t(k) * SolutionStage::kStride] = x[k];
  }

  /// Solves one pixel with Eigen: the float64 SVD fallback, or the qr and svd methods.
  void dense(std::size_t p, int v, bool fallback) {
    px_.rows.clear();
    px_.b.clear();
    for (int i = 0; i < pb_.M; ++i)
      if (g_.w[std::size_t(i) * V + v] != 0) {
        px_.rows.push_back(i);
        px_.b.push_back(g_.b[std::size_t(i) * V + v]);
      }
    const double lambda = pb_.options.lambda;
    constexpr bool f32 = std::is_same_v<T, float>;
    PixelOutcome o;
    ++dense_;
    if (fallback) {
      o = svd_pixel<double>(pb_.design, px_, lambda, xs_.data());
      ++fallbacks_;
    } else if (pb_.options.method == Method::Qr) {
      o = f32 ? qr_pixel<float>(pb_.design, px_, lambda, xs_.data())
              : qr_pixel<double>(pb_.design, px_, lambda, xs_.data());
    } else {
      o = f32 ? svd_pixel<float>(pb_.design, px_, lambda, xs_.data())
              : svd_pixel<double>(pb_.design, px_, lambda, xs_.data());
    }
    store(p, xs_.data(), o, residual_rms(pb_.design, px_, xs_.data()), int(px_.rows.size()));
  }

  const Problem<T>& pb_;
  Result& out_;
  LaneGroup<T, V> g_;
  std::vector<std::unique_ptr<Path<T, V>>> paths_;
  AVec<double> xt_;  // V x N: the group's x transposed (each lane's solution contiguous)
  AVec<double> xs_;  // N: one pixel's solution (empty and dense pixels)
  PixelData px_;
  std::uint64_t fallbacks_ = 0, dense_ = 0, downdated_ = 0, minnormed_ = 0;
  SolutionStage* stage_ = nullptr;
};

/// Whether cube pixel p observes exactly the rows of `mask` (pattern.hpp's layout).
bool observes(const Cube& cube, int M, std::size_t p, const std::uint64_t* mask) {
  for (int i = 0; i < M; ++i) {
    const double v = cube.at(std::size_t(i), p);
    if ((v == v) != bool(mask[std::size_t(i / 64)] >> (i % 64) & 1)) return false;
  }
  return true;
}

/// The result's pixels [p0, p0 + np) in solving order, by a stable counting sort: those with a
/// pattern (pid[j] >= 0 for pixel p0 + j) first, grouped by pattern, then the others by observed
/// count. Consecutive groups then share a pattern's operator or have similar small sizes s or k,
/// so the group's SoA factorisation needs little padding and usually one path.
void order_pixels(int M, std::size_t p0, std::size_t np, const int* counts, const int* pid,
                  int npat, std::vector<std::size_t>& order) {
  auto key = [&](std::size_t j) { return pid[j] >= 0 ? pid[j] : npat + counts[j]; };
  std::vector<int> start(std::size_t(npat + M) + 2, 0);
  for (std::size_t j = 0; j < np; ++j) ++start[std::size_t(key(j)) + 1];
  for (int c = 0; c <= npat + M; ++c) start[std::size_t(c) + 1] += start[std::size_t(c)];
  order.resize(np);
  for (std::size_t j = 0; j < np; ++j) order[std::size_t(start[std::size_t(key(j))]++)] = p0 + j;
}

/// Solves the result's out.pixels() pixels, starting at cube pixel out.row_begin * W.
/// Each task takes the result's pixels within one band of kBlockPixels cube pixels, orders them
/// (order_pixels) and solves V at a time. Patterns are found over the whole band, also where the
/// rows solved cut it, so a pixel's path depends on the cube alone.
/// With `scan_inf` (every cube pixel solved) the first pass over each band also looks for +-inf
/// entries: a band holding one is not solved, and the cube is refused after the region
/// (refuse_unchecked_inf: its first inf entry, whichever band found one).
template <class T, int V>
void run(const Cube& cube, const Design& design, const Options& options, const SharedSvd& shared,
         const DowndateOps& ops, Result& out, Progress* progress, bool scan_inf) {
  const Problem<T> pb(cube, design, options, shared, ops, out.row_begin * cube.width);
  // fp32: the downdate and minimum-norm pixels go to a float64 group solver.
  constexpr bool f32 = std::is_same_v<T, float>;
  std::optional<Problem<double>> pbd;
  if (f32) pbd.emplace(cube, design, options, shared, ops, out.row_begin * cube.width);
  auto small = [&](int c) {
    const Kind k = kind_of(c, pb.M, pb.N, options.method, options.lambda, ops);
    return f32 && (k == kDowndate || k == kMinNorm);
  };
  // Patterns under the methods that decide rank by a float64 SVD (lsq.hpp), as rows_svd does.
  const bool patterns =
      (options.method == Method::Auto || options.method == Method::Normal) && pb.M > 1;
  PatternCache cache(design, options.lambda, pb.ld8);
  const std::size_t P = out.pixels(), gbeg = pb.pbeg, gend = gbeg + P, Pc = cube.pixels();
  const std::size_t first = gbeg / kBlockPixels;
  const std::size_t blocks = P == 0 ? 0 : (gend + kBlockPixels - 1) / kBlockPixels - first;
  std::atomic<std::uint64_t> fallbacks{0}, dense{0}, downdated{0}, minnormed{0}, patterned{0},
      inf{0};
  // One parallel region for the whole solve, to avoid a barrier per chunk.
  // Cancellation is polled per block: remaining blocks are skipped and Cancelled is thrown after
  // the region. The calling thread sets the progress fraction.
  std::atomic<std::size_t> done{0};
  std::atomic<bool> stop{false}, inf_found{false};
  progress_check(progress);
  {
#pragma omp parallel
    {
      GroupSolver<T, V> gs(pb, out);
      std::optional<GroupSolver<double, kLanesFp64>> gsd;
      if (f32) gsd.emplace(*pbd, out);
      SolutionStage stage(pb.N);
      SharedBlock shared_block(pb);
      std::vector<double> shared_rss(kBlockPixels);
      std::vector<std::size_t> pat_px;
      std::uint64_t solved_patterns = 0;
      gs.set_stage(&stage);
      if (gsd) gsd->set_stage(&stage);
      std::vector<std::size_t> order, order64;
      std::vector<int> counts, pid;
      std::vector<std::uint64_t> hashes;
      std::vector<const Pattern*> pats;
      std::uint64_t solution_inf = 0;
      // Chunks of 4 bands: a thread's next band is mostly k + 1, which the gap-free solve of
      // band k prefetches (SharedBlock::prefetch).
#pragma omp for schedule(dynamic, 4)
      for (std::size_t k = 0; k < blocks; ++k) {
        if (stop.load(std::memory_order_relaxed)) continue;
        const std::size_t b0 = (first + k) * kBlockPixels, b1 = std::min(b0 + kBlockPixels, Pc);
        const std::size_t t0 = std::max(b0, gbeg), t1 = std::min(b1, gend);
        const std::size_t p0 = t0 - gbeg, np = t1 - t0;
        std::size_t off = 0;  // counts[off + j] and pid[off + j] are result pixel p0 + j's
        bool band_inf = false;
        if (patterns)
          scan_pixels(cube, pb.M, b0, b1 - b0, counts, nullptr, scan_inf ? &band_inf : nullptr);
        else
          scan_pixels(cube, pb.M, t0, np, counts, nullptr, scan_inf ? &band_inf : nullptr);
        if (band_inf) {
          inf_found = true;
          stop = true;
          continue;
        }
        if (patterns) {
          // Hashes only where the band has pixels with gaps: a second pass over its rows, which
          // the first brought into the cache. Gap-free bands cost what they did before, and
          // find_patterns reads no hash there.
          bool gaps = false;
          for (const int c : counts) gaps = gaps || (c > 0 && c < pb.M);
          if (gaps) scan_pixels(cube, pb.M, b0, b1 - b0, counts, &hashes);
          find_patterns(cube, pb.M, b0, b1 - b0, counts, hashes, cache, pid, pats);
          off = t0 - b0;
        } else {
          pid.assign(np, -1);
          pats.clear();
        }
        order_pixels(pb.M, p0, np, counts.data() + off, pid.data() + off, int(pats.size()),
                     order);
        stage.p0 = p0;
        // The task's solutions are all the gap-free solve's and it writes them to the result
        // itself (streamed: no stage), float64 or float32, where the residuals do not read
        // them back.
        bool streamed = false;
        {  // the gap-free pixels, last in order (by pixel), solved together
          std::size_t n = order.size();
          while (n > 0 && counts[off + order[n - 1] - p0] == pb.M) --n;
          const std::size_t ns = order.size() - n;
          if (k + 1 < blocks) shared_block.prefetch(b1, std::min(b1 + kBlockPixels, Pc) - b1);
          streamed = ns == np && np > 0 && shared_block.gap_free_streams();
          if (streamed)
            shared_block.solve(order.data() + n, ns, out.solution.data(), P, 0,
                               shared_rss.data(), &solution_inf,
                               out.solution32.empty() ? nullptr : out.solution32.data());
          else
            shared_block.solve(order.data() + n, ns, stage.x.data(), SolutionStage::kStride, p0,
                               shared_rss.data());
          for (std::size_t j = 0; j < ns; ++j)
            store_maps(out, order[n + j], shared.outcome, std::sqrt(shared_rss[j] / pb.M), pb.M);
          order.resize(n);
        }
        // The pattern pixels, first in order and grouped by pattern, each pattern's together;
        // a pixel whose rows are not its pattern's (a hash collision) takes its own path.
        {
          std::size_t j = 0, kept = 0;
          while (j < order.size() && pid[off + order[j] - p0] >= 0) {
            const int id = pid[off + order[j] - p0];
            const Pattern& pat = *pats[std::size_t(id)];
            pat_px.clear();
            for (; j < order.size() && pid[off + order[j] - p0] == id; ++j) {
              const std::size_t px = order[j];
              if (observes(cube, pb.M, gbeg + px, pat.mask.data()))
                pat_px.push_back(px);
              else
                order[kept++] = px;
            }
            const SharedOperator sop{pat.rows.data(), int(pat.rows.size()), pat.opc.data(),
                                     pat.ac.data(), pat.rop.data(), pat.rop_rows};
            shared_block.solve(sop, pat_px.data(), pat_px.size(), stage.x.data(),
                               SolutionStage::kStride, p0, shared_rss.data());
            const int m = int(pat.rows.size());
            for (std::size_t q = 0; q < pat_px.size(); ++q)
              store_maps(out, pat_px[q], pat.outcome, std::sqrt(shared_rss[q] / m), m);
            solved_patterns += pat_px.size();
          }
          order.erase(order.begin() + std::ptrdiff_t(kept), order.begin() + std::ptrdiff_t(j));
        }
        if (f32) {  // split off the float64 pixels (order stays sorted by count in both lists)
          order64.clear();
          std::size_t n32 = 0;
          for (std::size_t j = 0; j < order.size(); ++j) {
            const std::size_t px = order[j];
            if (small(counts[off + px - p0]))
              order64.push_back(px);
            else
              order[n32++] = px;
          }
          order.resize(n32);
          for (std::size_t g = 0; g < order64.size(); g += kLanesFp64)
            gsd->solve(order64.data() + g,
                       int(std::min<std::size_t>(kLanesFp64, order64.size() - g)));
        }
        for (std::size_t g = 0; g < order.size(); g += V)
          gs.solve(order.data() + g, int(std::min<std::size_t>(V, order.size() - g)));
        if (streamed)
          SolutionStage::fence();
        else
          solution_inf += stage.flush(out, np);
        const std::size_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
        if (progress && progress->cancel.load(std::memory_order_relaxed)) stop = true;
        if (progress && omp_get_thread_num() == 0) progress_set(progress, double(d) / blocks);
      }
      inf += solution_inf;
      fallbacks += gs.fallbacks();
      dense += gs.dense_pixels();
      downdated += gs.downdate_pixels();
      minnormed += gs.minnorm_pixels();
      patterned += solved_patterns;
      if (gsd) {
        fallbacks += gsd->fallbacks();
        dense += gsd->dense_pixels();
        downdated += gsd->downdate_pixels();
        minnormed += gsd->minnorm_pixels();
      }
    }
  }
  if (inf_found) refuse_unchecked_inf(cube);
  progress_check(progress);
  progress_set(progress, 1.0);
  out.fallback_pixels = fallbacks.load();
  out.host_pixels = dense.load();
  out.downdate_pixels = downdated.load();
  out.minnorm_pixels = minnormed.load();
  out.pattern_pixels = patterned.load();
  out.host_inf[0] = inf.load();
}

/// init_result without filling the arrays. The group solvers write every pixel's outputs,
/// including NaN and status 3 for empty pixels in finish, so the N P solution values are
/// written once, in parallel, and first touched there: BigVector does not zero them before.
/// The solution goes to solution32 with Options::float32_solution.
void shape_result(Result& out, const Cube& cube, const Design& design, const IndexRange& rows,
                  bool float32_solution) {
  const std::size_t P = (rows.end - rows.begin) * cube.width;
  Result meta;  // the metadata of init_result, on an empty result
  init_result(meta, Cube{}, design, IndexRange{0, 0});
  meta.height = rows.end - rows.begin;
  meta.width = cube.width;
  meta.row_begin = rows.begin;
  meta.solution.swap(out.solution);
  meta.solution32.swap(out.solution32);
  meta.residual.swap(out.residual);
  meta.count.swap(out.count);
  meta.status.swap(out.status);
  meta.condition.swap(out.condition);
  out = std::move(meta);
  if (float32_solution) {
    BigVector<double>().swap(out.solution);
    out.solution32.resize(design.n * P);
  } else {
    BigVector<float>().swap(out.solution32);
    out.solution.resize(design.n * P);
  }
  out.residual.resize(P);
  out.count.resize(P);
  out.status.resize(P);
  out.condition.resize(P);
}

class CpuSolver final : public Solver {
 public:
  using Solver::solve;
  Backend backend() const override { return Backend::Cpu; }

  void solve(const Cube& cube, const Design& design, const IndexRange& range,
             const Options& options, Result& out, Progress* progress) override {
    validate(cube, design, options);
    const IndexRange rows = resolve(range, cube.height, "lsq: pixel rows");
    // A cube whose inf check was deferred (Cube::inf_unchecked): the solve's first pass refuses
    // an inf entry when it reads every row; otherwise the whole cube is checked here.
    bool scan_inf = !cube.inf_unchecked.empty();
    if (scan_inf && (rows.begin != 0 || rows.end != cube.height)) {
      refuse_unchecked_inf(cube);
      scan_inf = false;
    }
    // The solve then writes a fresh result, moved into `out` once solved: `out` stays untouched
    // when the cube is refused.
    Result fresh;
    Result& res = scan_inf ? fresh : out;
    const auto t0 = Clock::now();
    shape_result(res, cube, design, rows, options.float32_solution);
    const SharedSvd shared = shared_svd(design, options.lambda);
    const bool dd = options.method == Method::Downdate || options.method == Method::Auto;
    const DowndateOps ops =
        make_downdate_ops(design, options.lambda, fallback_condition(Precision::Fp64), dd,
                          options.method == Method::Auto && design.m > 0);
    if (options.precision == Precision::Fp32)
      run<float, kLanesFp32>(cube, design, options, shared, ops, res, progress, scan_inf);
    else
      run<double, kLanesFp64>(cube, design, options, shared, ops, res, progress, scan_inf);
    res.shared_rank = shared.rank;
    res.shared_pixels = 0;
    for (std::size_t p = 0; p < res.count.size(); ++p)
      res.shared_pixels += std::size_t(res.count[p]) == cube.m;
    count_statuses(res);
    res.host_inf[1] = 0;
    for (const float r : res.residual) res.host_inf[1] += std::isinf(r);
    res.host_inf_counted = true;
    res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (scan_inf) out = std::move(fresh);
  }
};

}  // namespace
SIMSCOPE_ISA_END
}  // namespace cpu

// The level's entry; lsq_cpu_dispatch.cpp calls the active level's.
namespace SIMSCOPE_ISA_NS {
std::unique_ptr<Solver> make_cpu_solver() { return std::make_unique<cpu::CpuSolver>(); }
}  // namespace SIMSCOPE_ISA_NS

}  // namespace simscope::lsq::detail
