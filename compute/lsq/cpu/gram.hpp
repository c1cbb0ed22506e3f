#pragma once
/// @file Per-pixel Gram matrices of the rows of A: the Gram path's O(m N^2) per-pixel step.
/// Internal to compute/lsq/cpu/.

#include "core/isa.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// Writes the lower triangle of a Gram matrix to `out`, row-major with leading dimension ld.
/// Sub = false: G = sum_q a_q a_q^T over the `nrows` rows a_q = rows[q] of A.
/// Sub = true: G = full - sum_q a_q a_q^T, i.e. A^T A minus the missing rows' terms.
/// Rows of A and of `full` are ld >= n long, zero padded to a multiple of 64 bytes.
/// `full` and `out` hold n rounded up to 4 rows. Each block of 4 rows by 64 bytes of columns is
/// summed in registers, so blocks may extend past the diagonal into the unused upper part.
template <class T, bool Sub>
void gram_rows(const T* const* rows, int nrows, int n, int ld, const T* full, T* out);

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
