// Accounting half of core/device_memory.hpp. Pure C++; the CUDA half is device_memory_cuda.cu.
#include "core/device_memory.hpp"

#include <algorithm>

#include "core/bytes.hpp"
#include "core/error.hpp"

namespace simscope {

DeviceAllocator::DeviceAllocator(std::string owner, std::shared_ptr<RawDeviceMemory> raw,
                                 std::string hint)
    : owner_(std::move(owner)), hint_(std::move(hint)), raw_(std::move(raw)) {}

std::shared_ptr<DeviceAllocator> DeviceAllocator::make(std::string owner,
                                                       std::shared_ptr<RawDeviceMemory> raw,
                                                       std::string hint) {
  if (!raw) throw Error(owner + ": no device memory to allocate from");
  return std::shared_ptr<DeviceAllocator>(
      new DeviceAllocator(std::move(owner), std::move(raw), std::move(hint)));
}

std::shared_ptr<DeviceAllocator> DeviceAllocator::cuda(std::string owner, int device,
                                                       std::string hint) {
  return make(std::move(owner), cuda_device_memory(device), std::move(hint));
}

void* DeviceAllocator::allocate(std::size_t bytes, const std::string& what) {
  const std::size_t asked = std::max<std::size_t>(bytes, 1);
  std::string reason;
  void* p = raw_->allocate(asked, reason);
  if (!p) {
    const auto [free_b, total_b] = raw_->info();
    std::string msg = owner_ + " (CUDA): cannot allocate " + format_bytes(double(asked)) +
                      " of device memory for " + what + " (" + format_bytes(double(free_b)) +
                      " free of " + format_bytes(double(total_b)) +
                      (reason.empty() ? std::string() : "; " + reason) + ")";
    if (!hint_.empty()) msg += ": " + hint_;
    throw Error(msg);
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  current_ += asked;
  peak_ = std::max(peak_, current_);
  return p;
}

void DeviceAllocator::release(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  raw_->release(p);
  const std::size_t held = std::max<std::size_t>(bytes, 1);
  const std::lock_guard<std::mutex> lock(mutex_);
  current_ -= std::min(current_, held);
}

std::size_t DeviceAllocator::current_bytes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return current_;
}

std::size_t DeviceAllocator::peak_bytes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return peak_;
}

#ifndef SIMSCOPE_HAVE_CUDA
std::shared_ptr<RawDeviceMemory> cuda_device_memory(int /*device*/) {
  throw Error("device memory: this build has no CUDA back end");
}
void copy_device_to_host(void* /*dst*/, const void* /*src*/, std::size_t /*bytes*/,
                         int /*device*/) {
  throw Error("device memory: this build has no CUDA back end");
}
#endif

}  // namespace simscope
