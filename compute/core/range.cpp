#include "core/range.hpp"

#include "core/error.hpp"

namespace simscope {

IndexRange resolve(const IndexRange& r, std::size_t n, const std::string& what) {
  IndexRange out{r.begin, r.end == IndexRange::kToEnd ? n : r.end};
  if (out.begin > out.end || out.end > n)
    throw Error(what + ": range [" + std::to_string(r.begin) + ", " +
                (r.end == IndexRange::kToEnd ? std::string("end") : std::to_string(r.end)) +
                ") is not within [0, " + std::to_string(n) + ")");
  return out;
}

std::vector<IndexRange> split_evenly(std::size_t n, std::size_t parts) {
  if (parts == 0) throw Error("split_evenly: the number of parts must be at least 1");
  std::vector<IndexRange> out(parts);
  const std::size_t base = n / parts, extra = n % parts;
  std::size_t at = 0;
  for (std::size_t k = 0; k < parts; ++k) {
    const std::size_t len = base + (k < extra ? 1 : 0);
    out[k] = {at, at + len};
    at += len;
  }
  return out;
}

}  // namespace simscope
