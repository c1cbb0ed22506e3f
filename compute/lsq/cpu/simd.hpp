#pragma once
/// @file SIMD helpers of the CPU lsq solver: 64-byte aligned buffers and GCC vector types of V
/// lanes. Internal to compute/lsq/cpu/; compiled with this library's flags only.
#include "core/isa.hpp"
#include "core/register_lanes.hpp"
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

namespace simscope::lsq::detail::cpu {
SIMSCOPE_ISA_BEGIN

/// Pixels per group, one SIMD lane each: one register of doubles at the level this file is
/// compiled for (8 at x86-64-v4, 4 at v3, 2 at v2; wider GCC vectors are split through the stack
/// and stall on store forwarding). Measurements: tests/bench/NOTES.md, lsq.
constexpr int kLanesFp64 = kRegisterDoubles, kLanesFp32 = kRegisterDoubles;

/// Allocator of 64-byte aligned blocks, one cache line or AVX-512 vector.
/// Vector loads from SoA buffers never split a cache line.
template <class E>
struct Aligned64 {
  using value_type = E;
  Aligned64() = default;
  template <class U>
  Aligned64(const Aligned64<U>&) {}
  E* allocate(std::size_t n) {
    return static_cast<E*>(::operator new(n * sizeof(E), std::align_val_t(64)));
  }
  void deallocate(E* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const Aligned64<U>&) const {
    return true;
  }
};
template <class E>
using AVec = std::vector<E, Aligned64<E>>;

/// GCC vector type of V lanes of E, kept in registers; several registers when wider than the
/// hardware's vectors.
template <class E, int V>
struct VecOf {
  typedef E type __attribute__((vector_size(V * sizeof(E))));
};

/// Vector load and store at any alignment.
template <class Vt, class E>
inline Vt vload(const E* p) {
  Vt v;
  std::memcpy(&v, p, sizeof(Vt));
  return v;
}
template <class Vt, class E>
inline void vstore(E* p, const Vt& v) {
  std::memcpy(p, &v, sizeof(Vt));
}

/// Lanes of a vector of T converted to a vector of U. A no-op when T == U.
template <class Vu, class Vt>
inline Vu vconvert(const Vt& v) {
  if constexpr (std::is_same_v<Vu, Vt>)
    return v;
  else
    return __builtin_convertvector(v, Vu);
}

/// Sum of a vector's 8 doubles, halves added pairwise in 3 adds.
template <class D8>
inline double hsum(const D8& v) {
  const auto h4 =
      __builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7);
  const auto h2 = __builtin_shufflevector(h4, h4, 0, 1) + __builtin_shufflevector(h4, h4, 2, 3);
  return h2[0] + h2[1];
}

SIMSCOPE_ISA_END
}  // namespace simscope::lsq::detail::cpu
