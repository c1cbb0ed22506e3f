#pragma once
/// @file Read-only data of one CPU lsq solve, shared by the threads' group solvers.
/// Internal to compute/lsq/cpu/.
#include "core/isa.hpp"
#include <cstddef>

#include "lsq/cpu/simd.hpp"
#include "lsq/lsq_downdate.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// Rows of A in T (Problem::apad, gfull) are padded to a multiple of this many columns.
constexpr int kRowPad = 16;
/// Rows per pass of the SoA matrix-vector products A x, A^T r and B b. Each loaded vector serves
/// kProdRows FMAs into register accumulators. The float64 copies a8, op8, bop8 and bt8 are zero
/// padded to a multiple of it.
constexpr int kProdRows = 8;

/// Read-only data of one solve in precision T.
template <class T>
struct Problem {
  const Cube& cube;
  const Design& design;
  const Options& options;
  const SharedSvd& shared;
  const DowndateOps& ops;
  int M = 0, N = 0, ldA = 0;
  std::size_t P = 0;     ///< the cube's pixels (its stride between observations)
  std::size_t pbeg = 0;  ///< the cube pixel of the result's pixel 0 (a row range's first)
  AVec<T> apad;          ///< M x ldA: A in T, zero padded to ldA columns
  AVec<T> gfull;         ///< (N + 3) x ldA: A^T A (lower triangle) in T, summed in float64
  int ld8 = 0;
  AVec<double> a8;       ///< M x ld8: A in float64, zero padded to a multiple of kProdRows
  AVec<double> op8;      ///< ld8 x M: the shared SVD's operator, zero padded to ld8 rows
  AVec<double> bop8;     ///< ld8 x M: B = G^-1 A^T of the downdate, zero padded to ld8 rows
  AVec<double> bt8;      ///< M x ld8: B^T, zero padded to ld8 columns
  double threshold = 0;  ///< estimated cond(G) above which Auto falls back to the SVD
  double singular = 0;   ///< ... and Normal: numerically singular, 0.1 / eps

  /// `pbeg` is the cube pixel of the result's first pixel.
  Problem(const Cube& c, const Design& d, const Options& o, const SharedSvd& s,
          const DowndateOps& dd, std::size_t pbeg);
};

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
