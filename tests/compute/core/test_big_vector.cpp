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

}  // namespace
}  // namespace simscope
