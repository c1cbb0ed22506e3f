#pragma once
/// @file Work ranges: a half-open range [begin, end) of indices along a workload's independent
/// axis (the field's targets, lsq's pixel rows), so that a run can be split across chunks,
/// devices or ranks and the parts merged (each workload's merge function).
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace simscope {

struct IndexRange {
  /// `end` meaning "to the end of the axis", whatever its length.
  static constexpr std::size_t kToEnd = std::numeric_limits<std::size_t>::max();
  std::size_t begin = 0;
  std::size_t end = kToEnd;  ///< one past the last index; kToEnd: the axis' length
  /// The default range: everything.
  static IndexRange all() { return {}; }
};

/// `r` on an axis of length n: kToEnd becomes n. Throws simscope::Error "<what>: range [b, e) is
/// not within [0, n)" (the numbers given) unless begin <= end <= n.
IndexRange resolve(const IndexRange& r, std::size_t n, const std::string& what);

/// [0, n) cut into `parts` consecutive ranges whose lengths differ by at most one (the first
/// n % parts are one longer); parts > n gives some empty ranges. Throws simscope::Error when
/// parts is 0.
std::vector<IndexRange> split_evenly(std::size_t n, std::size_t parts);

}  // namespace simscope
