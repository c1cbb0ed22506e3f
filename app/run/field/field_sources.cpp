// The field workload's source set, kept between runs (field_sources.hpp).
#include "field/field_sources.hpp"

#include <utility>

#include "job/cache_key.hpp"
#include "field/sources.hpp"

namespace simscope::app {
namespace {

/// The key of the source set `p` asks for (its file's size and modification time included:
/// cache_key).
std::string sources_key(const ParamSet& p) {
  return cache_key(p, {"sources.file", "sources.distribution", "sources.count", "sources.seed",
                       "sources.half_width"});
}

/// Whether the source set is read whole even for a share: a file whose rows cannot be read alone
/// (a .csv file: field::source_rows_readable).
bool read_whole(const field::Settings& s) {
  const std::string& file = s.sources.file;
  return !file.empty() && !field::source_rows_readable(file);
}

}  // namespace

const field::Sources& FieldSourceCache::sources(const ParamSet& p, const field::Settings& s) {
  const std::string key = sources_key(p);
  if (key != key_) {
    field::Sources loaded = field::make_sources(s);
    loaded.generation = ++generation_;
    sources_ = std::move(loaded);
    key_ = key;
  }
  return sources_;
}

std::size_t FieldSourceCache::total(const ParamSet& p, const field::Settings& s) {
  if (sources_key(p) == key_) return sources_.size();
  if (read_whole(s)) return sources(p, s).size();
  return field::source_count(s);
}

field::Sources FieldSourceCache::share(const ParamSet& p, const field::Settings& s,
                                       const IndexRange& share, bool& read_all) {
  const bool whole = read_whole(s);
  if (sources_key(p) != key_ && !whole) return field::make_source_rows(s, share);
  const field::Sources& all = sources(p, s);
  field::Sources mine;
  for (auto [dst, src] :
       {std::pair{&mine.x, &all.x}, {&mine.y, &all.y}, {&mine.z, &all.z}, {&mine.q, &all.q}})
    dst->assign(src->begin() + std::ptrdiff_t(share.begin),
                src->begin() + std::ptrdiff_t(share.end));
  read_all = whole;
  return mine;
}

}  // namespace simscope::app
