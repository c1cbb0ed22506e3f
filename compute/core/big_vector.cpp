// BigVector's blocks (big_vector.hpp): aligned allocation, and the freed huge blocks kept for
// the next allocation of their size.
#include "core/big_vector.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace simscope::detail {

namespace {

/// At most this many freed blocks are kept.
constexpr std::size_t kKeptBlocks = 16;

/// Bytes kept at most: an eighth of physical memory, at most 4 GiB.
std::size_t kept_cap() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const std::size_t phys = pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : 0;
  return std::min(phys / 8, std::size_t(4) << 30);
}

/// Freed blocks of kHuge-rounded sizes, newest last. Their pages are marked MADV_FREE: the
/// kernel may take them back under memory pressure (a later touch then maps zero pages);
/// until it does, reusing them costs no page fault and no zeroing.
class KeptBlocks {
 public:
  static KeptBlocks& instance() {
    static KeptBlocks* k = new KeptBlocks;  // never destroyed: frees may come after exit starts
    return *k;
  }

  /// A kept block of exactly `bytes`, else the smallest kept one of at most 2 `bytes` (lent:
  /// freed later as the block it is, `bytes` or not; an fp32 run after an fp64 one takes the
  /// fp64 solution's block), or null. Without one, the kept blocks are released first, so a
  /// call of other sizes does not hold memory beside its own.
  void* take(std::size_t bytes) {
    std::vector<Block> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::size_t best = blocks_.size();
      for (std::size_t i = blocks_.size(); i-- > 0;)
        if (blocks_[i].bytes >= bytes && blocks_[i].bytes / 2 <= bytes &&
            (best == blocks_.size() || blocks_[i].bytes < blocks_[best].bytes))
          best = i;
      if (best < blocks_.size()) {
        const Block b = blocks_[best];
        kept_ -= b.bytes;
        blocks_.erase(blocks_.begin() + std::ptrdiff_t(best));
        if (b.bytes != bytes) lent_.push_back(b);
        return b.p;
      }
      drop.swap(blocks_);
      kept_ = 0;
    }
    for (const Block& b : drop) std::free(b.p);
    return nullptr;
  }

  /// The bytes of block p freed as `bytes`: a lent block's own size.
  std::size_t block_bytes(void* p, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t i = 0; i < lent_.size(); ++i)
      if (lent_[i].p == p) {
        bytes = lent_[i].bytes;
        lent_.erase(lent_.begin() + std::ptrdiff_t(i));
        break;
      }
    return bytes;
  }

  /// Keeps the freed block p of `bytes` (a kHuge multiple), or frees it when it exceeds the
  /// cap; the oldest blocks are released to make room.
  void keep(void* p, std::size_t bytes) {
    bytes = block_bytes(p, bytes);
    if (bytes > cap_) return std::free(p);
#ifdef MADV_FREE
    madvise(p, bytes, MADV_FREE);
#endif
    std::vector<Block> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      while (!blocks_.empty() && (kept_ + bytes > cap_ || blocks_.size() >= kKeptBlocks)) {
        drop.push_back(blocks_.front());
        kept_ -= blocks_.front().bytes;
        blocks_.erase(blocks_.begin());
      }
      blocks_.push_back({p, bytes});
      kept_ += bytes;
    }
    for (const Block& b : drop) std::free(b.p);
  }

 private:
  struct Block {
    void* p;
    std::size_t bytes;
  };
  std::mutex mu_;
  std::vector<Block> blocks_;
  std::vector<Block> lent_;  // kept blocks taken for a smaller size
  std::size_t kept_ = 0;
  const std::size_t cap_ = kept_cap();
};

std::size_t huge_bytes(std::size_t bytes) { return (bytes + kHuge - 1) / kHuge * kHuge; }

}  // namespace

void* big_allocate(std::size_t bytes) {
  void* p = nullptr;
  if (bytes >= kHuge) {
    const std::size_t hb = huge_bytes(bytes);
    if ((p = KeptBlocks::instance().take(hb))) return p;
    p = std::aligned_alloc(kHuge, hb);
    if (p) madvise(p, hb, MADV_HUGEPAGE);
  } else {
    p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + (bytes ? 0 : 64));
  }
  if (!p) throw std::bad_alloc();
  return p;
}

void big_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes >= kHuge)
    KeptBlocks::instance().keep(p, huge_bytes(bytes));
  else
    std::free(p);
}

}  // namespace simscope::detail
