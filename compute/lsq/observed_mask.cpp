// A mask of observed entries for an lsq cube (observed_mask.hpp).
#include "lsq/observed_mask.hpp"

#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "core/shape_text.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::lsq {

namespace {

std::string index_text(const std::vector<std::size_t>& shape, std::size_t flat) {
  std::vector<std::size_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) idx[d] = flat % shape[d], flat /= shape[d];
  std::string s = "[";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

/// Entry k of the mask as 0/1, or -1 for another value.
template <class T>
int bit(const std::uint8_t* data, std::size_t k) {
  T v;
  std::memcpy(&v, data + k * sizeof(T), sizeof(T));
  return v == T(0) ? 0 : v == T(1) ? 1 : -1;
}

template <class V>
void clear(Cube& c, const std::vector<int>& missing) {
  V* v = reinterpret_cast<V*>(c.bytes.data());
  for (std::size_t k = 0; k < missing.size(); ++k)
    if (missing[k]) v[k] = std::numeric_limits<V>::quiet_NaN();
}

}  // namespace

void apply_observed_mask(Cube& cube, const io::NpyArray& mask, const std::string& name) {
  const std::vector<std::size_t> want = {cube.m, cube.height, cube.width};
  if (mask.shape != want)
    throw Error(name + ": shape " + shape_text(mask.shape) + "; expected the cube's (M, H, W) = " +
                shape_text(want) + ", true (1) where observed");
  int (*read)(const std::uint8_t*, std::size_t) = nullptr;
  switch (mask.dtype) {
    case io::DType::UInt8: read = bit<std::uint8_t>; break;
    case io::DType::Int32: read = bit<std::int32_t>; break;
    case io::DType::Int64: read = bit<std::int64_t>; break;
    default:
      throw Error(name + ": dtype " + io::to_string(mask.dtype) +
                  "; expected bool (or uint8, int32, int64 of 0 and 1), true where observed");
  }
  const std::size_t n = mask.size();
  std::vector<int> missing(n);
  for (std::size_t k = 0; k < n; ++k) {
    const int b = read(mask.data.data(), k);
    if (b < 0)
      throw Error(name + ": entry " + index_text(want, k) +
                  " is neither 0 nor 1; expected true (1) where observed, false (0) where missing");
    missing[k] = 1 - b;
  }
  if (cube.borrowed) {  // the owner's memory stays as it is
    cube.bytes.assign(cube.data(), cube.data() + cube.stored_bytes());
    cube.borrowed = nullptr;
  }
  if (cube.dtype == io::DType::Float32)
    clear<float>(cube, missing);
  else
    clear<double>(cube, missing);
  cube.generation = detail::next_generation();
}

}  // namespace simscope::lsq
