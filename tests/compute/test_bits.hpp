#pragma once
// Bit-for-bit comparison of arrays, for the tests that promise identical results (split runs,
// resumed studies, checkpoints read back, schedules).
#include <cstring>
#include <vector>

namespace simscope::test {

/// True when a and b have the same length and the same bytes (so NaNs of a frozen member and
/// signed zeros count too, which == would not say).
template <class T, class A, class B>
bool same_bits(const std::vector<T, A>& a, const std::vector<T, B>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace simscope::test
