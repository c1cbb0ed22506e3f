// BigVector (core/big_vector.hpp): alignment, and freed huge blocks kept for the next
// allocation of their size, written over as a new array.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/big_vector.hpp"

namespace simscope {
namespace {

TEST(BigVector, AlignedSmallAndHuge) {
  BigVector<double> small(3), huge(kHuge / sizeof(double) + 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data()) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(huge.data()) % kHuge, 0u);
}

TEST(BigVector, FreedHugeBlockIsReusedForItsSize) {
  // A size no other test uses: 3 huge pages rounded up from 5 MiB + 24 bytes.
  const std::size_t n = ((std::size_t(5) << 20) + 24) / sizeof(double);
  const double* first = nullptr;
  {
    BigVector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = double(i);
    first = v.data();
  }
  BigVector<double> again(n);  // the same rounded size: the kept block
  EXPECT_EQ(again.data(), first);
  for (std::size_t i = 0; i < n; ++i) again[i] = -double(i);  // writable as a new array
  EXPECT_EQ(again[n - 1], -double(n - 1));
  // A vector of the same bytes but another element type takes the same block once freed.
  const double* second = again.data();
  again = BigVector<double>();
  BigVector<std::uint64_t> other(n);
  EXPECT_EQ(static_cast<const void*>(other.data()), static_cast<const void*>(second));
}

// A smaller allocation (half the bytes, as an fp32 solution after an fp64 one) takes a kept
// block of up to twice its size; freed, the block is kept whole, so the larger size takes it
// again. Sizes no other test uses: 7 and 4 huge pages.
TEST(BigVector, KeptBlockIsLentToUpToHalfItsSize) {
  const std::size_t big = 7 * kHuge / sizeof(double), half = (4 * kHuge - 8) / sizeof(float);
  const void* block = nullptr;
  {
    BigVector<double> v(big);
    v[big - 1] = 1;
    block = v.data();
  }
  {
    BigVector<float> f(half);  // 4 huge pages from a kept block of 7
    EXPECT_EQ(static_cast<const void*>(f.data()), block);
    for (std::size_t i = 0; i < half; ++i) f[i] = float(i);
    EXPECT_EQ(f[half - 1], float(half - 1));
  }
  BigVector<double> again(big);  // the whole block, kept whole
  EXPECT_EQ(static_cast<const void*>(again.data()), block);
  again[big - 1] = 2;
  EXPECT_EQ(again[big - 1], 2);
}

}  // namespace
}  // namespace simscope
