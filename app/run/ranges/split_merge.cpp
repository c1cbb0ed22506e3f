// Work ranges of whole runs: the split, the checks and the concatenation (split_merge.hpp).
#include "ranges/split_merge.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "core/error.hpp"
#include "core/range_cuts.hpp"
#include "ranges/progress_relay.hpp"

namespace simscope::app {

RunResult Workload::merge_ranges(std::vector<RunResult> /*parts*/) const {
  throw Error(name() + ": runs cannot be split into work ranges");
}

WorkAxis Workload::split_axis(const ParamSet& params, const std::string& axis) {
  WorkAxis a = work_axis(params);
  if (axis.empty() || axis == a.name) return a;
  throw Error(name() + ": runs cannot be split by " + axis +
              (a.name.empty() ? std::string() : " (only by " + a.name + ")"));
}

std::vector<IndexRange> split_work(const WorkAxis& axis, std::size_t parts) {
  if (parts == 0) throw Error("split_work: the number of ranges must be at least 1");
  if (axis.length == 0) throw Error("split_work: this run has no axis to split");
  const std::size_t g = std::max<std::size_t>(1, axis.granule);
  const std::size_t granules = (axis.length + g - 1) / g;
  // More ranges than granules: split at the finer cuts where the axis has them.
  if (parts > granules && !axis.cuts.empty()) {
    if (axis.cuts.back() != axis.length)
      throw Error("split_work: the axis' cuts do not end at its length");
    return split_at_cuts(axis.cuts, parts);
  }
  std::vector<IndexRange> out = split_evenly(granules, parts);
  for (IndexRange& r : out)
    r = {std::min(axis.length, r.begin * g), std::min(axis.length, r.end * g)};
  return out;
}

std::size_t check_parts(const std::vector<RunResult>& parts, const std::string& axis) {
  if (parts.empty()) throw Error("cannot merge work ranges: no parts");
  const std::string who = parts.front().workload;
  std::size_t next = 0, length = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const RunResult& p = parts[k];
    if (!p.part || p.part->axis != axis || p.workload != who)
      throw Error(who + ": cannot merge work ranges: part " + std::to_string(k) +
                  " is not a range of the " + axis + " of a " + who + " run");
    if (k == 0) length = p.part->length;
    if (p.part->begin != next || p.part->end < p.part->begin || p.part->length != length)
      throw Error(who + ": cannot merge work ranges: part " + std::to_string(k) + " covers [" +
                  std::to_string(p.part->begin) + ", " + std::to_string(p.part->end) + ") of " +
                  std::to_string(p.part->length) + " " + axis + ", expected a range from " +
                  std::to_string(next) + " of " + std::to_string(length));
    next = p.part->end;
  }
  if (next != length)
    throw Error(who + ": cannot merge work ranges: the parts end at " + std::to_string(next) +
                " of " + std::to_string(length) + " " + axis);
  return length;
}

namespace {

std::size_t product(const std::vector<std::size_t>& v, std::size_t from, std::size_t to) {
  std::size_t n = 1;
  for (std::size_t i = from; i < to && i < v.size(); ++i) n *= v[i];
  return n;
}

/// Appends `len` values of `src` from `at` to `dst`. The only reader of the parts' data.
template <class T>
void append(std::vector<T>& dst, const std::vector<T>& src, std::size_t at, std::size_t len) {
  dst.insert(dst.end(), src.begin() + std::ptrdiff_t(at), src.begin() + std::ptrdiff_t(at + len));
}

}  // namespace

std::vector<std::size_t> concat_shape(const std::vector<const OutputArray*>& os,
                                      const std::string& name, std::size_t dim) {
  const OutputArray& first = *os.front();
  std::vector<std::size_t> shape = first.shape;
  shape[dim] = 0;
  for (std::size_t k = 0; k < os.size(); ++k) {
    const OutputArray& o = *os[k];
    bool fits = o.shape.size() == first.shape.size() && o.data.dtype() == first.data.dtype();
    for (std::size_t d = 0; fits && d < o.shape.size(); ++d)
      if (d != dim && o.shape[d] != first.shape[d]) fits = false;
    if (fits && o.data.size() != product(o.shape, 0, o.shape.size())) fits = false;
    if (!fits)
      throw Error("cannot merge work ranges: output " + name + " of part " + std::to_string(k) +
                  " does not fit the others' shape");
    shape[dim] += o.shape[dim];
  }
  return shape;
}

OutputArray concat_outputs(const std::vector<RunResult>& parts, const std::string& name,
                           std::size_t dim) {
  std::vector<const OutputArray*> os;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const OutputArray* o = parts[k].find(name);
    if (!o) throw Error("cannot merge work ranges: part " + std::to_string(k) + " has no " + name);
    os.push_back(o);
  }
  if (os.empty()) throw Error("cannot merge work ranges: no parts");
  const OutputArray& first = *os.front();
  if (dim >= first.shape.size())
    throw Error("cannot merge work ranges: output " + name + " has no dimension " +
                std::to_string(dim));
  OutputArray out = first;
  out.shape = concat_shape(os, name, dim);
  const std::size_t outer = product(first.shape, 0, dim);
  const std::size_t inner = product(first.shape, dim + 1, first.shape.size());
  // For each outer index, the parts' slabs along `dim` in order, in the parts' dtype.
  first.data.visit([&](const auto& tag) {
    std::decay_t<decltype(tag)> data;
    for (std::size_t a = 0; a < outer; ++a)
      for (const OutputArray* o : os) {
        const std::size_t len = o->shape[dim] * inner, at = a * len;
        append(data, o->data.values<typename std::decay_t<decltype(tag)>::value_type>(), at, len);
      }
    out.data = std::move(data);
  });
  return out;
}

const std::vector<double>& part_sums(const RunResult& p, const std::string& name) {
  if (!p.part) throw Error("cannot merge work ranges: a result is not a work range's");
  const auto it = p.part->sums.find(name);
  if (it == p.part->sums.end())
    throw Error("cannot merge work ranges: a part lacks its sums '" + name + "'");
  return it->second;
}

std::vector<double> added_sums(const std::vector<RunResult>& parts, const std::string& name) {
  std::vector<double> out;
  bool any = false;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k].part) continue;
    const auto it = parts[k].part->sums.find(name);
    if (it == parts[k].part->sums.end()) continue;
    if (!any) {
      out = it->second, any = true;
      continue;
    }
    if (it->second.size() != out.size())
      throw Error("cannot merge work ranges: part " + std::to_string(k) + " has " +
                  std::to_string(it->second.size()) + " sums '" + name + "', expected " +
                  std::to_string(out.size()));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += it->second[i];
  }
  if (!any) throw Error("cannot merge work ranges: no part has the sums '" + name + "'");
  return out;
}

RunResult run_split(Workload& w, const ParamSet& params, Backend backend, std::size_t parts,
                    Progress* progress, const std::string& axis_name) {
  const WorkAxis axis = w.split_axis(params, axis_name);
  const std::vector<IndexRange> ranges = split_work(axis, parts);
  std::vector<RunResult> results;
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    progress_check(progress);
    // An empty range runs nothing, unless the parts' sums are added.
    if (ranges[k].end == ranges[k].begin && !axis.reduced) continue;
    RunRequest request;
    request.range = ranges[k];
    request.axis = axis_name;
    // Each range's progress mapped into its share of the axis.
    ProgressRelay relay(progress, double(ranges[k].begin) / double(axis.length),
                        double(ranges[k].end) / double(axis.length));
    results.push_back(w.run(params, backend, request, relay.inner()));
  }
  return w.merge_ranges(std::move(results));
}

}  // namespace simscope::app
