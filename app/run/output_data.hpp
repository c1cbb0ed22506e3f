#pragma once
/// @file The values of one output (or view image), float32, where they live: host memory, or
/// device memory with a host copy made on first use. Shared ownership: copies of an OutputData
/// (of an OutputArray, a RunResult) share the same values and the same host copy, and the device
/// memory stays allocated and unchanged while any copy lives, whatever the workload runs or
/// frees afterwards.
#include <atomic>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <vector>

namespace simscope::app {

class OutputData {
 public:
  /// Copies `count` floats from the device memory the data was made with into host memory `dst`.
  /// Throws simscope::Error on a device failure (host() then throws it, and tries again later).
  using Download = std::function<void(float* dst, std::size_t count)>;

  /// No values (size() 0, on the host).
  OutputData() = default;
  /// Host values (implicit: `output.data = std::vector<float>{...}`).
  OutputData(std::vector<float> host);  // NOLINT(google-explicit-constructor)
  OutputData(std::initializer_list<float> host);
  /// `count` floats in device memory at `device` (shared ownership: held as long as this data or
  /// a copy lives), copied to the host by `download` the first time host() is called. `device`
  /// must not be null unless count is 0.
  static OutputData on_device(std::shared_ptr<const float> device, std::size_t count,
                              Download download);

  std::size_t size() const { return s_ ? s_->count : 0; }
  bool empty() const { return size() == 0; }
  /// The device memory holding the values, or null for host values. Valid while this data (or a
  /// copy) lives; never written while held.
  const float* device() const { return s_ ? s_->device.get() : nullptr; }
  /// Whether the host copy exists (host values, or device values already downloaded).
  bool host_ready() const { return !s_ || s_->ready.load(std::memory_order_acquire); }
  /// The values in host memory, size() floats, C order. Device values are downloaded on the
  /// first call (once, whichever thread calls first; concurrent callers wait for it), and the
  /// copy is kept for later calls and every copy of this data. Throws what the download throws.
  const std::vector<float>& host() const;
  /// The host values moved out (no copy) when this is their only holder, else a copy of host();
  /// this data is empty afterwards. For front ends that hand the values on (the Python module's
  /// arrays). Throws what host() throws.
  std::vector<float> take_host();

 private:
  struct State {
    std::size_t count = 0;
    std::shared_ptr<const float> device;
    Download download;
    std::vector<float> host;
    std::once_flag once;
    std::atomic<bool> ready{false};
  };
  std::shared_ptr<State> s_;
};

}  // namespace simscope::app
