#include "output_data.hpp"

#include <utility>

#include "core/error.hpp"

namespace simscope::app {

OutputData::OutputData(std::vector<float> host) : s_(std::make_shared<State>()) {
  s_->count = host.size();
  s_->host = std::move(host);
  s_->ready.store(true, std::memory_order_release);
}

OutputData::OutputData(std::initializer_list<float> host) : OutputData(std::vector<float>(host)) {}

OutputData OutputData::on_device(std::shared_ptr<const float> device, std::size_t count,
                                 Download download) {
  if (!device && count > 0) throw Error("device output: no device memory for its values");
  if (!download && count > 0) throw Error("device output: no way to copy its values to the host");
  OutputData d;
  d.s_ = std::make_shared<State>();
  d.s_->count = count;
  d.s_->device = std::move(device);
  d.s_->download = std::move(download);
  return d;
}

const std::vector<float>& OutputData::host() const {
  static const std::vector<float> none;
  if (!s_) return none;
  if (s_->ready.load(std::memory_order_acquire)) return s_->host;
  // call_once: a throwing download leaves the flag unset, so a later call tries again.
  std::call_once(s_->once, [s = s_.get()] {
    std::vector<float> h(s->count);
    if (s->count > 0) s->download(h.data(), s->count);
    s->host = std::move(h);
    s->ready.store(true, std::memory_order_release);
  });
  return s_->host;
}

std::vector<float> OutputData::take_host() {
  std::vector<float> out;
  if (!s_) return out;
  if (s_.use_count() == 1) {
    host();
    out = std::move(s_->host);
  } else {
    out = host();
  }
  s_.reset();
  return out;
}

}  // namespace simscope::app
