// gram_rows (gram.hpp).
#include "core/isa.hpp"
#include "lsq/cpu/gram.hpp"

#include <algorithm>

#include "lsq/cpu/simd.hpp"

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

template <class T, bool Sub>
void gram_rows(const T* const* rows, int nrows, int n, int ld, const T* full, T* out) {
  constexpr int W = 64 / int(sizeof(T));
  using Seg = typename VecOf<T, W>::type;
  const int N = n, nl = nrows;
  const T* const* rp = rows;
  for (int i0 = 0; i0 < N; i0 += 4) {
    const int last = std::min(i0 + 3, N - 1);  // segments reach past the diagonal of the
    for (int j0 = 0; j0 <= last; j0 += W) {    // block's upper rows: harmless (upper part)
      Seg c0, c1, c2, c3;
      if (Sub) {
        const T* g = &full[std::size_t(i0) * ld + j0];
        c0 = vload<Seg>(g);
        c1 = vload<Seg>(g + ld);
        c2 = vload<Seg>(g + 2 * ld);
        c3 = vload<Seg>(g + 3 * ld);
      } else {
        c0 = c1 = c2 = c3 = Seg{};
      }
      for (int q = 0; q < nl; ++q) {
        const T* a = rp[q];
        const Seg seg = vload<Seg>(a + j0);
        if (Sub) {
          c0 -= a[i0] * seg;
          c1 -= a[i0 + 1] * seg;
          c2 -= a[i0 + 2] * seg;
          c3 -= a[i0 + 3] * seg;
        } else {
          c0 += a[i0] * seg;
          c1 += a[i0 + 1] * seg;
          c2 += a[i0 + 2] * seg;
          c3 += a[i0 + 3] * seg;
        }
      }
      T* g = &out[std::size_t(i0) * ld + j0];
      vstore(g, c0);
      vstore(g + ld, c1);
      vstore(g + 2 * ld, c2);
      vstore(g + 3 * ld, c3);
    }
  }
}

template void gram_rows<float, false>(const float* const*, int, int, int, const float*, float*);
template void gram_rows<float, true>(const float* const*, int, int, int, const float*, float*);
template void gram_rows<double, false>(const double* const*, int, int, int, const double*, double*);
template void gram_rows<double, true>(const double* const*, int, int, int, const double*, double*);

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
