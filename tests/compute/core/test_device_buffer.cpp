// core/device_memory.hpp on the CPU: DeviceAllocator's accounting (current and peak bytes per
// owner), its one out-of-memory message, DeviceBuffer's RAII and move semantics, and the shared
// ownership the field's outputs use, over a fake RawDeviceMemory (host memory with a capacity).
// Also core/bytes.hpp's format_bytes and core/range.hpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <thread>

#include "core/bytes.hpp"
#include "core/device_memory.hpp"
#include "core/range.hpp"
#include "test_support.hpp"

namespace simscope {
namespace {

using test::error_of;

/// Host memory posing as a device of `capacity` bytes; records every live block.
class FakeMemory final : public RawDeviceMemory {
 public:
  explicit FakeMemory(std::size_t capacity) : capacity_(capacity) {}
  ~FakeMemory() override {
    for (auto& [p, n] : live_) std::free(p);
  }
  void* allocate(std::size_t bytes, std::string& error) noexcept override {
    ++calls_;
    if (used_ + bytes > capacity_) {
      error = "out of memory";
      return nullptr;
    }
    void* p = std::malloc(bytes);
    live_[p] = bytes;
    used_ += bytes;
    return p;
  }
  void release(void* p) noexcept override {
    auto it = live_.find(p);
    if (it == live_.end()) {
      ++bad_frees_;
      return;
    }
    used_ -= it->second;
    live_.erase(it);
    std::free(p);
  }
  std::pair<std::size_t, std::size_t> info() noexcept override {
    return {capacity_ - used_, capacity_};
  }
  std::size_t used() const { return used_; }
  std::size_t live() const { return live_.size(); }
  int bad_frees() const { return bad_frees_; }
  int calls() const { return calls_; }

 private:
  std::size_t capacity_, used_ = 0;
  std::map<void*, std::size_t> live_;
  int bad_frees_ = 0, calls_ = 0;
};

TEST(DeviceAllocator, TracksCurrentAndPeakBytes) {
  auto mem = std::make_shared<FakeMemory>(1 << 20);
  auto a = DeviceAllocator::make("field", mem);
  EXPECT_EQ(a->owner(), "field");
  EXPECT_EQ(a->current_bytes(), 0u);
  {
    DeviceBuffer<double> x(a, 100, "x");
    EXPECT_EQ(x.size(), 100u);
    EXPECT_EQ(x.bytes(), 800u);
    EXPECT_EQ(a->current_bytes(), 800u);
    DeviceBuffer<float> y(a, 50, "y");
    EXPECT_EQ(a->current_bytes(), 1000u);
    EXPECT_EQ(mem->used(), 1000u);
    y.reset();
    EXPECT_FALSE(y);
    EXPECT_EQ(a->current_bytes(), 800u);
    DeviceBuffer<char> z(a, 100, "z");
    EXPECT_EQ(a->current_bytes(), 900u);
  }
  EXPECT_EQ(a->current_bytes(), 0u);
  EXPECT_EQ(a->peak_bytes(), 1000u);  // x + y, before y was freed
  EXPECT_EQ(mem->live(), 0u);
  EXPECT_EQ(mem->bad_frees(), 0);
}

TEST(DeviceAllocator, OwnersAreAccountedSeparately) {
  auto mem = std::make_shared<FakeMemory>(1 << 20);
  auto field = DeviceAllocator::make("field", mem);
  auto lsq = DeviceAllocator::make("lsq", mem);
  DeviceBuffer<int> a(field, 10, "a");
  DeviceBuffer<int> b(lsq, 30, "b");
  DeviceBuffer<int> c(lsq, 5, "c");
  EXPECT_EQ(field->current_bytes(), 40u);
  EXPECT_EQ(lsq->current_bytes(), 140u);
  b.reset();
  EXPECT_EQ(lsq->current_bytes(), 20u);
  EXPECT_EQ(lsq->peak_bytes(), 140u);
  EXPECT_EQ(field->peak_bytes(), 40u);
  EXPECT_EQ(mem->used(), 60u);
}

TEST(DeviceAllocator, OutOfMemoryIsOneClearError) {
  const std::size_t cap = 3 << 20;  // 3 MiB
  auto mem = std::make_shared<FakeMemory>(cap);
  auto a = DeviceAllocator::make("oscillators", mem, "lower ensemble.size, or use --backend cpu");
  DeviceBuffer<unsigned char> held(a, 1 << 20, "the state x");  // 1 MiB held: 2 MiB free
  const std::size_t asked = std::size_t(5) << 20;
  const std::string msg =
      error_of([&] { DeviceBuffer<unsigned char> big(a, asked, "the samples of a chunk"); });
  EXPECT_EQ(msg, "oscillators (CUDA): cannot allocate " + format_bytes(double(asked)) +
                     " of device memory for the samples of a chunk (" +
                     format_bytes(double(cap - (1 << 20))) + " free of " +
                     format_bytes(double(cap)) +
                     "; out of memory): lower ensemble.size, or use --backend cpu");
  EXPECT_NE(msg.find("5.00 MiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2.00 MiB free of 3.00 MiB"), std::string::npos) << msg;
  // The failure changes no accounting.
  EXPECT_EQ(a->current_bytes(), std::size_t(1) << 20);
  EXPECT_EQ(a->peak_bytes(), std::size_t(1) << 20);
  // Without a hint the message ends after the parenthesis.
  auto b = DeviceAllocator::make("lsq", mem);
  const std::string m2 = error_of([&] { DeviceBuffer<double> big(b, asked, "a chunk"); });
  EXPECT_EQ(m2.back(), ')') << m2;
}

TEST(DeviceAllocator, SizeOverflowAndZeroCount) {
  auto mem = std::make_shared<FakeMemory>(1 << 20);
  auto a = DeviceAllocator::make("field", mem);
  const std::string msg =
      error_of([&] { DeviceBuffer<double> b(a, std::size_t(-1) / 4, "the targets"); });
  EXPECT_NE(msg.find("the targets"), std::string::npos) << msg;
  EXPECT_EQ(mem->calls(), 0);  // refused before asking the device
  DeviceBuffer<float> empty(a, 0, "nothing");
  EXPECT_TRUE(empty);  // never null: one byte is allocated
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(a->current_bytes(), 1u);
  empty.reset();
  EXPECT_EQ(a->current_bytes(), 0u);
  EXPECT_EQ(mem->live(), 0u);
  EXPECT_NE(error_of([] { DeviceAllocator::make("x", nullptr); }), "");
}

TEST(DeviceBuffer, MovesOwnershipAndFreesOnce) {
  auto mem = std::make_shared<FakeMemory>(1 << 20);
  auto a = DeviceAllocator::make("field", mem);
  DeviceBuffer<float> x(a, 64, "x");
  float* p = x.get();
  DeviceBuffer<float> y(std::move(x));
  EXPECT_EQ(y.get(), p);
  EXPECT_FALSE(x);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(x.size(), 0u);
  DeviceBuffer<float> z(a, 16, "z");
  z = std::move(y);  // frees z's old memory
  EXPECT_EQ(z.get(), p);
  EXPECT_EQ(mem->live(), 1u);
  EXPECT_EQ(a->current_bytes(), 256u);
  z = DeviceBuffer<float>();
  EXPECT_EQ(mem->live(), 0u);
  EXPECT_EQ(a->current_bytes(), 0u);
  EXPECT_EQ(mem->bad_frees(), 0);
  EXPECT_EQ(z.as<unsigned char>(), nullptr);
}

// The field evaluator's output rule: the buffer is shared with the results viewing it (aliasing
// shared_ptr<const float> into it); dropping the maker's hold does not free it, the last view
// does, and the accounting follows the memory, even after the maker and its allocator are gone.
TEST(DeviceBuffer, SharedOwnershipThroughAliasingViews) {
  auto mem = std::make_shared<FakeMemory>(1 << 20);
  std::shared_ptr<const float> view;
  std::weak_ptr<DeviceAllocator> weak;
  {
    auto a = DeviceAllocator::make("field", mem);
    weak = a;
    auto out = make_shared_buffer(DeviceBuffer<float>(a, 5 * 100, "the outputs"));
    view = std::shared_ptr<const float>(out, out->get() + 2 * 100);  // output 2
    EXPECT_EQ(out.use_count(), 2);
    out.reset();  // the maker lets go: a new buffer would be allocated now
    EXPECT_EQ(mem->live(), 1u);
    EXPECT_EQ(a->current_bytes(), 500 * sizeof(float));
  }
  EXPECT_FALSE(weak.expired());  // the buffer keeps its allocator
  EXPECT_EQ(mem->live(), 1u);
  std::thread([&] { view.reset(); }).join();  // the last holder may be on another thread
  EXPECT_EQ(mem->live(), 0u);
  EXPECT_TRUE(weak.expired());
  EXPECT_EQ(mem->bad_frees(), 0);
}

TEST(FormatBytes, BinaryUnitsThreeDigits) {
  EXPECT_EQ(format_bytes(0), "0 bytes");
  EXPECT_EQ(format_bytes(1023), "1023 bytes");
  EXPECT_EQ(format_bytes(1024), "1.00 KiB");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(12.3 * 1048576), "12.3 MiB");
  EXPECT_EQ(format_bytes(512.0 * 1048576), "512 MiB");
  EXPECT_EQ(format_bytes(1023.9 * 1048576), "1.00 GiB");  // not "1024 MiB"
  EXPECT_EQ(format_bytes(1.234 * 1073741824.0), "1.23 GiB");
  EXPECT_EQ(format_bytes(16.0 * 1099511627776.0), "16.0 TiB");
  EXPECT_EQ(format_bytes(-1), "? bytes");
}

TEST(IndexRange, ResolveAndSplit) {
  EXPECT_EQ(resolve({}, 10, "x").end, 10u);
  EXPECT_EQ(resolve({3, 7}, 10, "x").begin, 3u);
  EXPECT_EQ(resolve({10, 10}, 10, "x").end, 10u);  // empty at the end
  EXPECT_EQ(error_of([] {
              resolve({2, 11}, 10, "field targets");
            }),
            "field targets: range [2, 11) is not within [0, 10)");
  EXPECT_NE(error_of([] { resolve({5, 4}, 10, "x"); }), "");
  EXPECT_NE(error_of([] { resolve({11, IndexRange::kToEnd}, 10, "x"); }), "");
  for (std::size_t n : {0u, 1u, 10u, 17u})
    for (std::size_t parts : {1u, 2u, 3u, 7u}) {
      const auto r = split_evenly(n, parts);
      ASSERT_EQ(r.size(), parts);
      std::size_t at = 0, lo = n, hi = 0;
      for (const auto& x : r) {
        EXPECT_EQ(x.begin, at);
        at = x.end;
        lo = std::min(lo, x.end - x.begin), hi = std::max(hi, x.end - x.begin);
      }
      EXPECT_EQ(at, n);
      EXPECT_LE(hi - std::min(lo, hi), 1u);
    }
  EXPECT_NE(error_of([] { split_evenly(4, 0); }), "");
}

}  // namespace
}  // namespace simscope
