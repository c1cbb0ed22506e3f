#include "output/output_data.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace simscope::app {

namespace {

template <class T>
constexpr io::DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return io::DType::Float32;
  if constexpr (std::is_same_v<T, double>) return io::DType::Float64;
  if constexpr (std::is_same_v<T, std::int32_t>) return io::DType::Int32;
  return io::DType::UInt8;
}

}  // namespace

template <class T>
std::shared_ptr<OutputData::State> OutputData::host_state(std::vector<T> v) {
  auto s = std::make_shared<State>();
  s->count = v.size();
  s->dtype = dtype_of<T>();
  s->host = std::move(v);
  s->ready.store(true, std::memory_order_release);
  return s;
}

OutputData::OutputData(std::vector<float> host) : s_(host_state(std::move(host))) {}
OutputData::OutputData(std::vector<double> host) : s_(host_state(std::move(host))) {}
OutputData::OutputData(std::vector<std::int32_t> host) : s_(host_state(std::move(host))) {}
OutputData::OutputData(std::vector<std::uint8_t> host) : s_(host_state(std::move(host))) {}
OutputData::OutputData(std::initializer_list<float> host) : OutputData(std::vector<float>(host)) {}

OutputData OutputData::on_device(std::shared_ptr<const void> device, io::DType dtype,
                                 std::size_t count, Download download) {
  if (!device && count > 0) throw Error("device output: no device memory for its values");
  if (!download && count > 0) throw Error("device output: no way to copy its values to the host");
  OutputData d;
  d.s_ = std::make_shared<State>();
  d.s_->count = count;
  d.s_->dtype = dtype;
  switch (dtype) {  // the host variant's alternative, filled by the download
    case io::DType::Float32: d.s_->host = std::vector<float>(); break;
    case io::DType::Float64: d.s_->host = std::vector<double>(); break;
    case io::DType::Int32: d.s_->host = std::vector<std::int32_t>(); break;
    case io::DType::UInt8: d.s_->host = std::vector<std::uint8_t>(); break;
    default: throw Error("device output: dtype must be float32, float64, int32 or uint8");
  }
  d.s_->device = std::move(device);
  d.s_->download = std::move(download);
  return d;
}

OutputData OutputData::held(std::shared_ptr<const void> owner, const void* values,
                             io::DType dtype, std::size_t count) {
  if (!values && count > 0) throw Error("held output: no host memory for its values");
  const std::size_t item = dtype == io::DType::Float64 ? 8 : dtype == io::DType::UInt8 ? 1 : 4;
  // A vector copy for the readers of std::vector, made on the first such read.
  OutputData d = on_device(std::shared_ptr<const void>(owner, values), dtype, count,
                           [values, item](void* dst, std::size_t n) {
                             if (n > 0) std::memcpy(dst, values, n * item);
                           });
  d.s_->device = nullptr;
  d.s_->held = values;
  d.s_->owner = std::move(owner);
  return d;
}

const void* OutputData::held_values() const {
  if (!s_) return nullptr;
  if (s_->held) return s_->held;
  if (!s_->ready.load(std::memory_order_acquire)) return nullptr;
  return std::visit([](const auto& v) -> const void* { return v.data(); }, s_->host);
}

const OutputData::Host& OutputData::host_values() const {
  if (s_->ready.load(std::memory_order_acquire)) return s_->host;
  // call_once: a throwing download leaves the flag unset, so a later call tries again.
  std::call_once(s_->once, [s = s_.get()] {
    std::visit(
        [s](auto& v) {
          std::decay_t<decltype(v)> h(s->count);
          if (s->count > 0) s->download(h.data(), s->count);
          v = std::move(h);
        },
        s->host);
    s->ready.store(true, std::memory_order_release);
  });
  return s_->host;
}

void OutputData::throw_dtype_mismatch() const {
  throw Error(std::string("output values are held as ") + io::to_string(dtype()) +
              ", not the type asked for");
}

const std::vector<float>& OutputData::host() const {
  static const std::vector<float> none;
  if (!s_) return none;
  const Host& h = host_values();
  if (const auto* f = std::get_if<std::vector<float>>(&h)) return *f;
  std::call_once(s_->float_once, [this] { s_->as_float = converted<float>(); });
  return s_->as_float;
}

double OutputData::at(std::size_t i) const {
  return std::visit([i](const auto& v) { return double(v.at(i)); }, host_values());
}

}  // namespace simscope::app
