#pragma once
/// @file Per-pixel Gram matrices of the rows of A: the Gram path's one per-pixel O(m N^2) step.
/// Internal to compute/lsq/cpu/.

namespace simscope::lsq::detail::cpu {

/// The lower triangle of G = sum_q a_q a_q^T over the `nrows` rows a_q = rows[q] of A (Sub =
/// false), or G = full - sum_q a_q a_q^T (Sub = true: A^T A minus the missing rows' terms), into
/// `out`, row-major with leading dimension ld. Rows of A and of `full` are ld >= n long and
/// zero padded to a multiple of 64 bytes; `full` and `out` hold n rounded up to 4 rows. Each
/// block of 4 rows times 64 bytes of columns is summed in registers over all listed rows, so
/// segments may run past the diagonal into the unused upper part.
template <class T, bool Sub>
void gram_rows(const T* const* rows, int nrows, int n, int ld, const T* full, T* out);

}  // namespace simscope::lsq::detail::cpu
