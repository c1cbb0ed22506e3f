// A RunResult as bytes (result_codec.hpp): length-prefixed fields in a fixed order.
#include "ranges/result_codec.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/error.hpp"

namespace simscope::app {
namespace {

constexpr std::uint32_t kMagic = 0x53535231;  // "SSR1"

struct Writer {
  std::string out;
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(const std::string& s) {
    pod(std::uint64_t(s.size()));
    out.append(s);
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    pod(std::uint64_t(v.size()));
    if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
};

struct Reader {
  const std::string& in;
  std::size_t at = 0;
  [[noreturn]] static void corrupt() {
    throw Error("a work range's result is truncated or corrupt");
  }
  void need(std::size_t n) {
    if (n > in.size() - at) corrupt();
  }
  template <class T>
  T pod() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string str() {
    const auto n = pod<std::uint64_t>();
    need(n);
    std::string s = in.substr(at, n);
    at += n;
    return s;
  }
  template <class T>
  std::vector<T> vec() {
    const auto n = pod<std::uint64_t>();
    if (n > (in.size() - at) / sizeof(T)) corrupt();
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), in.data() + at, n * sizeof(T));
    at += n * sizeof(T);
    return v;
  }
};

}  // namespace

std::string encode_result(const RunResult& r) {
  Writer w;
  w.pod(kMagic);
  w.str(r.workload);
  w.pod(std::int32_t(r.backend));
  w.pod(std::uint8_t(r.preview));
  w.pod(r.compute_seconds);
  w.pod(r.total_seconds);
  w.pod(std::uint64_t(r.outputs.size()));
  for (const OutputArray& o : r.outputs) {
    w.str(o.name);
    w.str(o.label);
    w.str(o.unit);
    w.pod(std::int32_t(o.dtype));
    w.vec(std::vector<std::uint64_t>(o.shape.begin(), o.shape.end()));
    w.pod(std::int32_t(o.data.dtype()));
    o.data.visit([&](const auto& v) { w.vec(v); });
  }
  w.pod(std::uint64_t(r.warnings.size()));
  for (const std::string& s : r.warnings) w.str(s);
  w.pod(std::uint64_t(r.stats.size()));
  for (const auto& [k, v] : r.stats) w.str(k), w.pod(v);
  w.pod(std::uint64_t(r.stat_texts.size()));
  for (const auto& [k, v] : r.stat_texts) w.str(k), w.str(v);
  w.pod(std::uint8_t(r.part.has_value()));
  if (r.part) {
    w.str(r.part->axis);
    w.pod(std::uint64_t(r.part->begin));
    w.pod(std::uint64_t(r.part->end));
    w.pod(std::uint64_t(r.part->length));
    w.pod(std::uint64_t(r.part->sums.size()));
    for (const auto& [k, v] : r.part->sums) w.str(k), w.vec(v);
  }
  w.pod(kMagic);
  return std::move(w.out);
}

RunResult decode_result(const std::string& bytes, const ParamSet& params) {
  Reader rd{bytes};
  if (rd.pod<std::uint32_t>() != kMagic) Reader::corrupt();
  RunResult r;
  r.params = params;
  r.workload = rd.str();
  r.backend = Backend(rd.pod<std::int32_t>());
  r.preview = rd.pod<std::uint8_t>() != 0;
  r.compute_seconds = rd.pod<double>();
  r.total_seconds = rd.pod<double>();
  const auto outputs = rd.pod<std::uint64_t>();
  for (std::uint64_t k = 0; k < outputs; ++k) {
    OutputArray o;
    o.name = rd.str();
    o.label = rd.str();
    o.unit = rd.str();
    o.dtype = io::DType(rd.pod<std::int32_t>());
    const auto shape = rd.vec<std::uint64_t>();
    o.shape.assign(shape.begin(), shape.end());
    switch (io::DType(rd.pod<std::int32_t>())) {
      case io::DType::Float32: o.data = rd.vec<float>(); break;
      case io::DType::Float64: o.data = rd.vec<double>(); break;
      case io::DType::Int32: o.data = rd.vec<std::int32_t>(); break;
      case io::DType::UInt8: o.data = rd.vec<std::uint8_t>(); break;
      default: Reader::corrupt();
    }
    r.outputs.push_back(std::move(o));
  }
  const auto warnings = rd.pod<std::uint64_t>();
  for (std::uint64_t k = 0; k < warnings; ++k) r.warnings.push_back(rd.str());
  const auto stats = rd.pod<std::uint64_t>();
  for (std::uint64_t k = 0; k < stats; ++k) {
    std::string key = rd.str();
    r.stats[key] = rd.pod<double>();
  }
  const auto texts = rd.pod<std::uint64_t>();
  for (std::uint64_t k = 0; k < texts; ++k) {
    std::string key = rd.str();
    r.stat_texts[key] = rd.str();
  }
  if (rd.pod<std::uint8_t>()) {
    RangePart p;
    p.axis = rd.str();
    p.begin = rd.pod<std::uint64_t>();
    p.end = rd.pod<std::uint64_t>();
    p.length = rd.pod<std::uint64_t>();
    const auto sums = rd.pod<std::uint64_t>();
    for (std::uint64_t k = 0; k < sums; ++k) {
      std::string key = rd.str();
      p.sums[key] = rd.vec<double>();
    }
    r.part = std::move(p);
  }
  if (rd.pod<std::uint32_t>() != kMagic || rd.at != bytes.size()) Reader::corrupt();
  return r;
}

}  // namespace simscope::app
