#pragma once
/// @file Missing-row patterns shared by many pixels: each solved with one operator for all of
/// them, as the pixels without gaps share the SVD of A. Internal to compute/lsq/cpu/.
#include "core/isa.hpp"
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "lsq/cpu/simd.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// Pixels of one band of cube pixels that must share a pattern for it to get its operator.
/// Bands are the cube's pixels [256 k, 256 (k + 1)) (solver.cpp's kBlockPixels): fixed by the
/// cube alone, so which pixels take a pattern's operator does not depend on how the solve is
/// split into threads, row ranges or MPI ranks.
constexpr std::size_t kPatternPixels = 16;

/// One pattern of observed rows (0 < m < M): x = op b for every pixel that has it.
struct Pattern {
  std::vector<std::uint64_t> mask;  ///< observed row i is bit i % 64 of word i / 64; rest zero
  PixelOutcome outcome;             ///< rows_svd's status and exact condition
  std::vector<int> rows;            ///< the m observed rows, increasing
  AVec<double> opc;                 ///< ld8 x m: rows_svd's operator, zero padded to ld8 rows
  AVec<double> ac;                  ///< m x ld8: A's observed rows
  std::vector<double> rop;          ///< SharedSvd::residual_op of A's observed rows
  int rop_rows = -1;                ///< ... its rows; -1: residuals from A x
};

/// The patterns of one solve, each made once (rows_svd of A, the pattern and lambda alone, so
/// the same bits whichever thread makes it) and shared by the threads.
class PatternCache {
 public:
  PatternCache(const Design& design, double lambda, int ld8)
      : design_(design), lambda_(lambda), ld8_(ld8) {}
  /// The pattern of `mask` (M bits in (M + 63) / 64 words), made on first use.
  const Pattern* get(const std::vector<std::uint64_t>& mask);
  /// Patterns made so far.
  std::size_t size() const;

 private:
  const Design& design_;
  double lambda_;
  int ld8_;
  mutable std::mutex mu_;
  std::map<std::vector<std::uint64_t>, std::unique_ptr<Pattern>> made_;
};

/// Counts of observed rows of the cube pixels [c0, c0 + n), and with `hashes` non-null a 64-bit
/// hash of each one's observed rows (the XOR of a fixed key per observed row). One pass over
/// the cube's rows. With `inf` non-null, sets *inf when one of the entries read is +-inf.
void scan_pixels(const Cube& cube, int M, std::size_t c0, std::size_t n, std::vector<int>& counts,
                 std::vector<std::uint64_t>* hashes, bool* inf = nullptr);

/// The patterns of the cube pixels [c0, c0 + n) from scan_pixels' counts and hashes: pixels
/// with gaps whose hash at least kPatternPixels of them share (only their hashes are read).
/// pid[j] indexes `pats` for pixel c0 + j, -1 for none. A pattern's rows are those of its first
/// pixel; a pixel whose hash collides with another mask must be checked against Pattern::mask
/// before use.
void find_patterns(const Cube& cube, int M, std::size_t c0, std::size_t n,
                   const std::vector<int>& counts, const std::vector<std::uint64_t>& hashes,
                   PatternCache& cache, std::vector<int>& pid, std::vector<const Pattern*>& pats);

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
