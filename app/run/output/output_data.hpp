#pragma once
/// @file The values of one output or view image in one dtype-tagged buffer: float32, float64,
/// int32 or uint8, in host memory, or in device memory with a host copy made on first use.
/// Shared ownership: copies of an OutputData, e.g. in an OutputArray or a RunResult, share the
/// same values and host copy. Device memory stays allocated and unchanged while any copy lives.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <type_traits>
#include <variant>
#include <vector>

#include "io/npy.hpp"

namespace simscope::app {

class OutputData {
 public:
  /// Copies `count` values of dtype() from the device memory the data was made with into host
  /// memory `dst`. Throws simscope::Error on a device failure; host reads then throw it and try
  /// again on a later read.
  using Download = std::function<void(void* dst, std::size_t count)>;

  /// No values: size() 0, float32, on the host.
  OutputData() = default;
  /// Host values, moved in. Implicit: `output.data = std::vector<double>{...}`.
  OutputData(std::vector<float> host);          // NOLINT(google-explicit-constructor)
  OutputData(std::vector<double> host);         // NOLINT(google-explicit-constructor)
  OutputData(std::vector<std::int32_t> host);   // NOLINT(google-explicit-constructor)
  OutputData(std::vector<std::uint8_t> host);   // NOLINT(google-explicit-constructor)
  OutputData(std::initializer_list<float> host);
  /// `count` values of `dtype` (Float32, Float64, Int32 or UInt8) in device memory at `device`,
  /// held while this data or a copy lives. `download` copies them to the host on the first host
  /// read. Throws simscope::Error for a null `device` or `download` with count > 0, or for
  /// another dtype.
  static OutputData on_device(std::shared_ptr<const void> device, io::DType dtype,
                              std::size_t count, Download download);
  /// `count` values of `dtype` in host memory at `values`, held by `owner` (e.g. a solver's
  /// BigVector, which its writers filled without zeroing it first) while this data or a copy
  /// lives; never written while held. held_values() and the Python module read them in place;
  /// values() and the other readers of a std::vector get a copy made on the first such read.
  /// Throws simscope::Error for a null `values` with count > 0, or for another dtype.
  static OutputData held(std::shared_ptr<const void> owner, const void* values, io::DType dtype,
                         std::size_t count);

  std::size_t size() const { return s_ ? s_->count : 0; }
  bool empty() const { return size() == 0; }
  /// The dtype the values are held in; Float32 for no values.
  io::DType dtype() const { return s_ ? s_->dtype : io::DType::Float32; }
  /// The device memory holding the values, or null for host values. Valid while this data or a
  /// copy lives. Never written while held.
  const void* device_bytes() const { return s_ ? s_->device.get() : nullptr; }
  /// device_bytes() as floats when dtype() is Float32, else null. The view uploads from it.
  const float* device() const {
    return dtype() == io::DType::Float32 ? static_cast<const float*>(device_bytes()) : nullptr;
  }
  /// Whether the host values exist: host values, or device values already downloaded.
  bool host_ready() const {
    return !s_ || s_->held || s_->ready.load(std::memory_order_acquire);
  }
  /// Host values readable in place without a copy: those of held(), or host values held as a
  /// std::vector (made or downloaded). Null when there are none yet (device values not
  /// downloaded) or no values.
  const void* held_values() const;
  /// The owner of held()'s values; null for other data. A reader that keeps held_values()
  /// beyond this data's life keeps a copy of it.
  std::shared_ptr<const void> held_owner() const { return s_ ? s_->owner : nullptr; }

  /// The values in host memory as held, C order. T must be dtype()'s type: float, double,
  /// int32_t or uint8_t. Device values are downloaded once, on the first host read by whichever
  /// thread comes first, while others wait; the copy is kept for every copy of this data.
  /// Throws simscope::Error for another T, and what the download throws.
  template <class T>
  const std::vector<T>& values() const;
  /// The values as float32: values<float>() for float32 data. For other dtypes, a converted
  /// copy made once and kept; the views read it. Throws what values() throws.
  const std::vector<float>& host() const;
  /// Value `i` converted to double. Throws what values() throws.
  double at(std::size_t i) const;
  /// A copy of all values converted to `T`. Throws what values() throws.
  template <class T>
  std::vector<T> converted() const;
  /// Calls f(values<T>()) for the T the values are held in, downloading first. Throws what
  /// values() throws.
  template <class F>
  decltype(auto) visit(F&& f) const {
    static const std::vector<float> none;
    if (!s_) return f(none);
    return std::visit(std::forward<F>(f), host_values());
  }
  /// The host values moved out without a copy when this is their only holder and T is
  /// dtype()'s type, else converted(). This data is empty afterwards. Throws what values()
  /// throws.
  template <class T>
  std::vector<T> take();

 private:
  using Host = std::variant<std::vector<float>, std::vector<double>, std::vector<std::int32_t>,
                            std::vector<std::uint8_t>>;
  struct State {
    std::size_t count = 0;
    io::DType dtype = io::DType::Float32;
    std::shared_ptr<const void> device;
    Download download;
    const void* held = nullptr;        ///< held(): the values in host memory
    std::shared_ptr<const void> owner;  ///< held(): keeps them
    Host host;
    std::once_flag once;
    std::atomic<bool> ready{false};
    std::vector<float> as_float;  ///< host() of non-float32 values
    std::once_flag float_once;
  };
  template <class T>
  static std::shared_ptr<State> host_state(std::vector<T> v);
  const Host& host_values() const;
  [[noreturn]] void throw_dtype_mismatch() const;
  std::shared_ptr<State> s_;
};

template <class T>
const std::vector<T>& OutputData::values() const {
  static const std::vector<T> none;
  if (!s_) return none;
  const auto* v = std::get_if<std::vector<T>>(&host_values());
  if (!v) throw_dtype_mismatch();
  return *v;
}

template <class T>
std::vector<T> OutputData::converted() const {
  if (!s_) return {};
  return std::visit([](const auto& v) { return std::vector<T>(v.begin(), v.end()); },
                    host_values());
}

template <class T>
std::vector<T> OutputData::take() {
  std::vector<T> out;
  if (!s_) return out;
  std::vector<T>* held = nullptr;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint8_t>)
    held = std::get_if<std::vector<T>>(&const_cast<Host&>(host_values()));
  out = held && s_.use_count() == 1 ? std::move(*held) : converted<T>();
  s_.reset();
  return out;
}

}  // namespace simscope::app
