#pragma once
/// @file Gap-free pixels (all M rows observed) solved a band at a time: x = op b as one matrix
/// product of the shared SVD's operator with the band's right-hand sides, and each residual
/// from the shared residual operator (SharedSvd::residual_op) or else from A x. Internal to
/// compute/lsq/cpu/.
#include "core/isa.hpp"
#include <cstddef>
#include <cstdint>

#include "lsq/cpu/problem.hpp"
#include "lsq/cpu/simd.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// Pixels per SharedBlock::solve at most.
constexpr std::size_t kSharedBlockPixels = 256;

/// The operator of pixels that observe the same m rows: x = op b_rows, and the residual
/// |R b_rows| (rop_rows >= 0) or else |b_rows - A_rows x|.
struct SharedOperator {
  const int* rows = nullptr;     ///< the m observed rows, increasing; null: all M
  int m = 0;
  const double* op = nullptr;    ///< ld8 x m: zero rows beyond N
  const double* a = nullptr;     ///< m x ld8: A's observed rows
  const double* rop = nullptr;   ///< rop_rows x m
  int rop_rows = -1;
};

/// Solves up to kSharedBlockPixels gap-free pixels at a time, in float64 at either precision, as the
/// lane groups did: each x_k is the sum over i of op_ki b_i in increasing i. One instance per
/// thread.
class SharedBlock {
 public:
  template <class T>
  explicit SharedBlock(const Problem<T>& pb);

  /// Solves the result's pixels px[0..n) (n <= kSharedBlockPixels, increasing; cube pixel pbeg + px[j]),
  /// each observing all M rows: component k of pixel px[j]'s solution into
  /// x[k ldx + px[j] - x0], and its residual sum of squares into rss[j].
  /// With `streamed` non-null the pixels must be consecutive (one run) and the residuals must
  /// not read x (rop_rows >= 0): x is then written with streaming stores where a vector is
  /// aligned (x is the result's, not a stage in the cache), and the values that are inf once
  /// rounded to float32 are added to *streamed. With `x32` too, x is not written: the
  /// solutions go to x32 (the same indices) rounded to float32.
  /// In an fp32 solve whose solution is float32 (Problem<float>, Options::float32_solution: the
  /// run layer's fp32 runs) x = op b is summed from float32 products (each pixel's
  /// b and the operator scaled by powers of two into float32's range, the products of up to 32
  /// rows at a time summed in float32, those sums in float64); the residuals stay float64.
  void solve(const std::size_t* px, std::size_t n, double* x, std::size_t ldx, std::size_t x0,
             double* rss, std::uint64_t* streamed = nullptr, float* x32 = nullptr) {
    solve(gap_free_, !op32_.empty(), px, n, x, ldx, x0, rss, streamed, x32);
  }
  /// Whether the gap-free pixels' residuals come without reading x (solve()'s `streamed`).
  bool gap_free_streams() const { return gap_free_.rop_rows >= 0; }
  /// The same for pixels whose observed rows are exactly op.rows (a shared pattern's).
  void solve(const SharedOperator& op, const std::size_t* px, std::size_t n, double* x,
             std::size_t ldx, std::size_t x0, double* rss, std::uint64_t* streamed = nullptr,
             float* x32 = nullptr);
  /// Asks the next solve() to prefetch the M rows of cube pixels [c0, c0 + n) (the thread's next
  /// band) a few cache lines per tile, so that band's first pass reads them from the cache: its
  /// rows are M short runs far apart, which the hardware prefetchers do not fetch ahead. A
  /// solve() of no pixels drops the request.
  void prefetch(std::size_t c0, std::size_t n);

 private:
  const Cube& cube_;
  int N_ = 0, ld8_ = 0;
  std::size_t P_ = 0, pbeg_ = 0;
  SharedOperator gap_free_;  // all M rows: the shared SVD's
  AVec<double> panel_;  // m x kPanelStride: the pixels' right-hand sides, zero beyond n
  AVec<double> xb_;     // N x kPanelStride: solutions of pixels that are not one run
  // The rows prefetch() asked for, pf_total_ lines: pf_rows_ rows left of pf_lines_ lines
  // each, pf_stride_ bytes apart; the next line is pf_next_ of the row at pf_row_.
  const char* pf_row_ = nullptr;
  std::size_t pf_lines_ = 0, pf_rows_ = 0, pf_next_ = 0, pf_stride_ = 0, pf_total_ = 0;
  void prefetch_lines(std::size_t count);
  void solve(const SharedOperator& op, bool products32, const std::size_t* px, std::size_t n,
             double* x, std::size_t ldx, std::size_t x0, double* rss, std::uint64_t* streamed,
             float* x32);
  // fp32 solves: the gap-free operator in float32 (op32_ = op 2^-e, op_unscale_ = 2^e), the
  // pixels' scaled right-hand sides (panel32_) and each pixel's unscale factor.
  AVec<float> op32_;
  double op_unscale_ = 1;
  AVec<float> panel32_;
  AVec<double> unscale_;
};

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
