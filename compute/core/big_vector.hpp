#pragma once
/// @file BigVector: large arrays that their writers fill (the tree method's, lsq's solution). A
/// std::vector whose resize() leaves new elements default-initialised, so the OpenMP loop that
/// writes them first places their pages on its own thread, and nothing zeroes them first: a new
/// array's values are unspecified until written. Data is 64-byte aligned. Blocks of 2 MiB or more
/// are 2 MiB-aligned and marked for transparent huge pages: one page fault per 2 MiB, not 4 KiB.
/// Freed blocks of 2 MiB or more are kept (at most 16, an eighth of physical memory, 4 GiB) for
/// the next allocation of the same rounded size, or of up to half a kept block's size (the block
/// is then lent whole, and kept whole when freed), which then takes no page fault and no kernel
/// zeroing; an allocation that none fits releases them first. Kept pages are MADV_FREE, so
/// the kernel can reclaim them under memory pressure.
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace simscope {

/// Bytes of a huge page; arrays at least this large are aligned to it.
constexpr std::size_t kHuge = std::size_t(2) << 20;

namespace detail {
/// `bytes` of 64-byte aligned memory, or a kHuge-aligned (possibly kept) block when bytes >= kHuge.
/// Throws std::bad_alloc.
void* big_allocate(std::size_t bytes);
/// Frees (or keeps) a block of big_allocate(bytes).
void big_free(void* p, std::size_t bytes) noexcept;
}  // namespace detail

template <typename T>
struct BigAllocator {
  using value_type = T;
  BigAllocator() = default;
  template <typename U>
  BigAllocator(const BigAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(detail::big_allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { detail::big_free(p, n * sizeof(T)); }
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
