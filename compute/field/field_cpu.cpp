// The CPU field evaluator with OpenMP: the reference back end of field.hpp's Evaluator.
// Compiled once per instruction-set level (core/isa.hpp); field_cpu_dispatch.cpp picks one.
//
// Work items are a block of kBlock targets times a range of sources. An item walks its sources
// in tiles of kTile: 16 KiB of fp32 SoA, kept in L1 while every target of the block passes.
// Per tile and target, the inner loop of field_cpu_tiles.hpp sums fp32 terms in SIMD lanes;
// each tile's partial sums go into fp64 accumulators. With too few target blocks to keep every
// thread busy, the sources are split too and the partial fp64 sums are added at the end.
// In fp32, targets and sources are relative to one origin per evaluation (detail::local_origin
// in origin.cpp); each source tile is shifted as it is read.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <vector>

#include "field/field_cpu_tiles.hpp"
#include "field/field_internal.hpp"

namespace simscope::field {

namespace {

constexpr std::size_t kTile = 1024;      // sources per tile
constexpr std::size_t kBlock = 16;       // targets per block
constexpr std::size_t kCheckTiles = 16;  // tiles between cancellation checks

struct Plan {
  std::size_t blocks = 0;  // target blocks
  std::size_t splits = 1;  // source ranges
  std::size_t chunk = 0;   // sources per range (a multiple of kTile)
};

Plan make_plan(std::size_t T, std::size_t P, int threads) {
  Plan p;
  p.blocks = (T + kBlock - 1) / kBlock;
  const std::size_t want = 4 * std::size_t(threads);       // items wanted for dynamic balance
  if (p.blocks > 0 && p.blocks < want && P > 2 * kTile) {  // (no targets: nothing to split)
    const std::size_t max_splits = std::max<std::size_t>(1, P / (2 * kTile));
    p.splits = std::min(max_splits, (want + p.blocks - 1) / p.blocks);
  }
  const std::size_t per = (P + p.splits - 1) / p.splits;
  p.chunk = std::max<std::size_t>(kTile, (per + kTile - 1) / kTile * kTile);
  p.splits = std::max<std::size_t>(1, (P + p.chunk - 1) / p.chunk);
  return p;
}

/// A tile's source positions relative to the evaluation's origin: fp32(double(y_j) - o).
/// The difference is taken in fp64, then rounded, so fp32 positions keep the data's detail.
struct ShiftedTile {
  alignas(64) float x[kTile], y[kTile], z[kTile];
  cpu::Tile shift(const cpu::Tile& s, const detail::Origin& o) {
    for (int j = 0; j < s.n; ++j) {
      x[j] = float(double(s.x[j]) - o.x);
      y[j] = float(double(s.y[j]) - o.y);
      z[j] = float(double(s.z[j]) - o.z);
    }
    return {x, y, z, s.q, s.n};
  }
};

/// Sums over sources [j0, j1) for targets tb + [i0, i1) into acc[(i - i0) * 4 + c], relative
/// to `origin` (detail::local_origin; zero in fp64). Returns false when cancellation was seen;
/// acc is then incomplete.
bool run_item(const Sources& s, const Targets& t, std::size_t tb, const Options& o,
              const detail::Origin& origin, std::size_t i0, std::size_t i1, std::size_t j0,
              std::size_t j1, double* acc, std::uint64_t& skipped, const Progress* progress) {
  const double eps2 = o.eps * o.eps;
  const float eps2f = float(eps2);
  const bool fp32 = o.precision == Precision::Fp32;
  const bool shifted = fp32 && !origin.is_zero();
  ShiftedTile local;
  std::size_t tiles = 0;
  for (std::size_t jt = j0; jt < j1; jt += kTile) {
    if (progress && ++tiles % kCheckTiles == 0 && progress->cancel.load(std::memory_order_relaxed))
      return false;
    const int n = int(std::min(kTile, j1 - jt));
    const cpu::Tile tile{s.x.data() + jt, s.y.data() + jt, s.z.data() + jt, s.q.data() + jt, n};
    const cpu::Tile fast = shifted ? local.shift(tile, origin) : tile;
    for (std::size_t i = i0; i < i1; ++i) {
      double* a = acc + (i - i0) * 4;
      const double tx = t.x[tb + i], ty = t.y[tb + i], tz = t.z[tb + i];
      double sums[4];
      if (fp32) {
        // The target relative to the origin, in fp64, then rounded to fp32 like the sources.
        float f[4];
        cpu::tile_fp32(fast, float(tx - origin.x), float(ty - origin.y), float(tz - origin.z),
                       eps2f, f);
        for (int c = 0; c < 4; ++c) sums[c] = f[c];
      } else {
        cpu::tile_fp64(tile, tx, ty, tz, eps2, sums);
      }
      if (std::isfinite(sums[0] + sums[1] + sums[2] + sums[3])) {
        for (int c = 0; c < 4; ++c) a[c] += sums[c];
      } else {
        // A coincidence in fp32, or an overflow, in this tile: redo it in fp64 at the exact
        // positions (target as given, fp32 sources). Skip and count only r2 == 0 there, as
        // evaluate_reference does; fp32 rounding never makes a coincidence.
        cpu::tile_checked(tile, tx, ty, tz, eps2, a, skipped);
      }
    }
  }
  return true;
}

class CpuEvaluator final : public Evaluator {
 public:
  using Evaluator::evaluate;
  Backend backend() const override { return Backend::Cpu; }

  void evaluate(const Sources& s, const Targets& t, const IndexRange& range, const Options& o,
                Result& out, Progress* progress) override {
    const IndexRange r = detail::checked_range(o, t, range);
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t T = r.end - r.begin, P = s.size(), tb = r.begin;
    detail::resize_outputs(out, T);
    if (o.keep_sums64) out.sums64.assign(4 * T, 0.0);
    out.target_begin = tb;
    out.skipped_coincidences = 0;
    progress_set(progress, 0);
    // The split of the sources comes from the whole target set, so a target's sums are added
    // in the same order whatever range it is evaluated in. Only the target blocks are the
    // range's.
    Plan plan = make_plan(t.size(), P, omp_get_max_threads());
    plan.blocks = (T + kBlock - 1) / kBlock;
    // The origin also comes from the whole target set (origin.cpp), not the range.
    const detail::Origin origin = detail::local_origin(t, o.precision);
    const std::size_t items = plan.blocks * plan.splits;
    // Partial sums per source range when the sources are split; T is small then.
    std::vector<double> partial(plan.splits > 1 ? plan.splits * T * 4 : 0, 0.0);
    std::atomic<bool> stop{false};
    std::atomic<std::size_t> done{0};
    std::uint64_t skipped = 0;

#pragma omp parallel for schedule(dynamic, 1) reduction(+ : skipped)
    for (std::size_t item = 0; item < items; ++item) {
      if (stop.load(std::memory_order_relaxed)) continue;
      const std::size_t b = item / plan.splits, r = item % plan.splits;
      const std::size_t i0 = b * kBlock, i1 = std::min(T, i0 + kBlock);
      const std::size_t j0 = std::min(P, r * plan.chunk), j1 = std::min(P, j0 + plan.chunk);
      double local[kBlock * 4] = {};
      double* acc = plan.splits > 1 ? &partial[(r * T + i0) * 4] : local;
      if (!run_item(s, t, tb, o, origin, i0, i1, j0, j1, acc, skipped, progress)) {
        stop.store(true);
        continue;
      }
      if (plan.splits == 1)
        for (std::size_t i = i0; i < i1; ++i) detail::finalize(local + (i - i0) * 4, o.k, out, i);
      const std::size_t d = done.fetch_add(1) + 1;
      if (progress) {
        progress->set(double(d) / double(items));
        if (progress->cancel.load(std::memory_order_relaxed)) stop.store(true);
      }
    }
    if (stop.load()) throw Cancelled();
    if (plan.splits > 1) {
      for (std::size_t i = 0; i < T; ++i) {
        double acc[4] = {0, 0, 0, 0};
        for (std::size_t r = 0; r < plan.splits; ++r)
          for (int c = 0; c < 4; ++c) acc[c] += partial[(r * T + i) * 4 + c];
        detail::finalize(acc, o.k, out, i);
      }
    }
    out.skipped_coincidences = skipped;
    progress_set(progress, 1);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

}  // namespace

namespace detail::SIMSCOPE_ISA_NS {
std::unique_ptr<Evaluator> make_cpu_evaluator() { return std::make_unique<CpuEvaluator>(); }
}  // namespace detail::SIMSCOPE_ISA_NS

}  // namespace simscope::field
