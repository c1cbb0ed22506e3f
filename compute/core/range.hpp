#pragma once
/// @file Work ranges: half-open index ranges [begin, end) along a workload's independent axis,
/// e.g. the field's targets or lsq's pixel rows. A run can be split into chunks, devices or ranks
/// and the parts merged by each workload's merge function.
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace simscope {

struct IndexRange {
  /// `end` value meaning "to the end of the axis", whatever its length. (An enumerator, not a
  /// static constexpr member: that would be an inline variable, which the kernels' per-level
  /// units, built with -fno-weak, would each copy; cmake/SimscopeIsa.cmake.)
  enum : std::size_t { kToEnd = std::numeric_limits<std::size_t>::max() };
  std::size_t begin = 0;
  std::size_t end = kToEnd;  ///< one past the last index; kToEnd: the axis' length
  /// The default range: everything.
  static IndexRange all() { return {}; }
};

/// Returns `r` on an axis of length n, with kToEnd replaced by n. Throws simscope::Error
/// "<what>: range [b, e) is not within [0, n)" unless begin <= end <= n.
IndexRange resolve(const IndexRange& r, std::size_t n, const std::string& what);

/// Cuts [0, n) into `parts` consecutive ranges whose lengths differ by at most one.
/// The first n % parts ranges are the longer ones. parts > n gives some empty ranges.
/// Throws simscope::Error when parts is 0.
std::vector<IndexRange> split_evenly(std::size_t n, std::size_t parts);

}  // namespace simscope
