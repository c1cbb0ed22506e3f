#pragma once
/// @file BigVector: large arrays that their writers fill (the tree method's, lsq's solution). A
/// std::vector whose resize() leaves new elements default-initialised, so the OpenMP loop that
/// writes them first places their pages on its own thread, and nothing zeroes them first. Data is 64-byte aligned. Blocks of 2 MiB or more are
/// 2 MiB-aligned and marked for transparent huge pages: one page fault per 2 MiB, not 4 KiB.
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>
#include <vector>

namespace simscope {

/// Bytes of a huge page; arrays at least this large are aligned to it.
constexpr std::size_t kHuge = std::size_t(2) << 20;

template <typename T>
struct BigAllocator {
  using value_type = T;
  BigAllocator() = default;
  template <typename U>
  BigAllocator(const BigAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    void* p = nullptr;
    if (bytes >= kHuge) {
      p = std::aligned_alloc(kHuge, (bytes + kHuge - 1) / kHuge * kHuge);
      if (p) madvise(p, (bytes + kHuge - 1) / kHuge * kHuge, MADV_HUGEPAGE);
    } else {
      p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + (bytes ? 0 : 64));
    }
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  template <typename U>
  bool operator==(const BigAllocator<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const BigAllocator<U>&) const noexcept {
    return false;
  }
};

template <typename T>
using BigVector = std::vector<T, BigAllocator<T>>;

}  // namespace simscope
