// lsq's RunResult from one solve (lsq_result.hpp).
#include "lsq_result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "lsq_workload.hpp"

namespace simscope::app {

namespace {

/// How a stat of row ranges becomes the whole run's.
enum class Merge { Sum, Max, Same, Derived };

struct StatField {
  const char* name;
  double LsqStats::*member;
  Merge merge;
};

// Every stat once: its run.json name, its member and its merge rule.
constexpr StatField kFields[] = {
    {"pixels", &LsqStats::pixels, Merge::Sum},
    {"observations", &LsqStats::observations, Merge::Same},
    {"unknowns", &LsqStats::unknowns, Merge::Same},
    {"status_ok", &LsqStats::status_ok, Merge::Sum},
    {"status_underdetermined", &LsqStats::status_underdetermined, Merge::Sum},
    {"status_rank_deficient", &LsqStats::status_rank_deficient, Merge::Sum},
    {"status_all_missing", &LsqStats::status_all_missing, Merge::Sum},
    {"fallback_pixels", &LsqStats::fallback_pixels, Merge::Sum},
    {"gap_free_pixels", &LsqStats::gap_free_pixels, Merge::Sum},
    {"downdate_pixels", &LsqStats::downdate_pixels, Merge::Sum},
    {"minnorm_pixels", &LsqStats::minnorm_pixels, Merge::Sum},
    {"pattern_pixels", &LsqStats::pattern_pixels, Merge::Sum},
    {"host_pixels", &LsqStats::host_pixels, Merge::Sum},
    {"design_rank", &LsqStats::design_rank, Merge::Max},
    {"peak_device_bytes", &LsqStats::peak_device_bytes, Merge::Max},
    {"method_on_host", &LsqStats::method_on_host, Merge::Max},
    {"pixels_per_s", &LsqStats::pixels_per_s, Merge::Derived},
};

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

LsqStats LsqStats::of(const lsq::Result& res, const lsq::Options& options, Backend backend,
                      std::size_t observations, double peak_device_bytes) {
  const auto& sc = res.status_counts;
  LsqStats s;
  s.pixels = double(res.pixels());
  s.observations = double(observations);
  s.unknowns = double(res.n);
  s.status_ok = double(sc[lsq::kOk]);
  s.status_underdetermined = double(sc[lsq::kUnderdetermined]);
  s.status_rank_deficient = double(sc[lsq::kRankDeficient]);
  s.status_all_missing = double(sc[lsq::kAllMissing]);
  s.fallback_pixels = double(res.fallback_pixels);
  s.gap_free_pixels = double(res.shared_pixels);
  s.downdate_pixels = double(res.downdate_pixels);
  s.minnorm_pixels = double(res.minnorm_pixels);
  s.pattern_pixels = double(res.pattern_pixels);
  s.host_pixels = double(res.host_pixels);
  s.design_rank = double(res.shared_rank);
  s.peak_device_bytes = peak_device_bytes;
  // qr/svd solve their pixels with gaps on the host even on the CUDA back end.
  s.method_on_host =
      backend == Backend::Cuda && lsq::method_runs_on(options.method, backend) == Backend::Cpu;
  s.pixels_per_s = res.seconds > 0 ? s.pixels / res.seconds : 0;
  return s;
}

std::map<std::string, double> LsqStats::to_map() const {
  std::map<std::string, double> m;
  for (const StatField& f : kFields) m[f.name] = this->*f.member;
  return m;
}

LsqStats LsqStats::from_map(const std::map<std::string, double>& stats) {
  LsqStats s;
  for (const StatField& f : kFields) {
    const auto it = stats.find(f.name);
    if (it == stats.end()) throw Error(std::string("lsq: the result has no stat '") + f.name + "'");
    s.*f.member = it->second;
  }
  return s;
}

LsqStats LsqStats::merged(const std::vector<LsqStats>& parts, double compute_seconds) {
  LsqStats s = parts.empty() ? LsqStats() : parts.front();
  for (const StatField& f : kFields) {
    if (f.merge == Merge::Sum) s.*f.member = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const double v = parts[k].*f.member;
      if (f.merge == Merge::Sum) s.*f.member += v;
      if (f.merge == Merge::Max) s.*f.member = std::max(s.*f.member, v);
    }
  }
  s.pixels_per_s = compute_seconds > 0 ? s.pixels / compute_seconds : 0;
  return s;
}

void fill_lsq_result(RunResult& r, lsq::Result& res, const lsq::Options& options,
                     std::size_t observations, double peak_device_bytes,
                     const lsq::Solver* solver, const std::shared_ptr<const LsqDeviceOps>& ops) {
  const std::size_t N = res.n, H = res.height, W = res.width;
  const WorkloadDescriptor& desc = workload_descriptor("lsq");
  auto add = [&](const char* name, std::vector<std::size_t> shape, OutputData data) {
    OutputArray o = desc.make_output(name);
    o.shape = std::move(shape);
    o.data = std::move(data);
    return o;
  };
  if (!res.device_note.empty()) std::fprintf(stderr, "simscope: %s\n", res.device_note.c_str());
  if (!res.on_host) {  // the solver's device maps, shared with it; downloaded on first host read
    if (!solver || !ops)
      throw Error("lsq: the maps are in device memory, but no solver holds them");
    const io::DType sol = options.precision == Precision::Fp64 ? io::DType::Float64
                                                               : io::DType::Float32;
    auto dev = [&](const char* name, io::DType dtype, std::size_t count) {
      return lsq_device_data(solver->device_output(name), dtype, count, ops);
    };
    OutputArray solution = add("solution", {N, H, W}, dev("solution", sol, N * H * W));
    solution.dtype = sol;
    r.outputs.push_back(std::move(solution));
    r.outputs.push_back(add("residual", {H, W}, dev("residual", io::DType::Float32, H * W)));
    r.outputs.push_back(add("count", {H, W}, dev("count", io::DType::Int32, H * W)));
    r.outputs.push_back(add("status", {H, W}, dev("status", io::DType::UInt8, H * W)));
    r.outputs.push_back(add("condition", {H, W}, dev("condition", io::DType::Float32, H * W)));
    auto pl = std::make_shared<LsqPayload>();
    pl->options = options, pl->backend = r.backend;
    pl->device_ops = ops, pl->device_inf = res.device_inf;
    r.payload = pl;
  } else {
  // The solution as the solver wrote it, held in place (no copy, never zeroed): float64, or
  // float32 when it wrote solution32 (Options::float32_solution); a float64 solution of an fp32
  // run (the CUDA solver's) is rounded here.
  auto held = [](auto&& v, io::DType dtype) {
    using V = std::decay_t<decltype(v)>;
    auto owner = std::make_shared<const V>(std::move(v));
    const void* values = owner->data();
    const std::size_t count = owner->size();
    return OutputData::held(std::move(owner), values, dtype, count);
  };
  OutputArray solution = add("solution", {N, H, W}, OutputData());
  if (!res.solution32.empty() || (res.solution.empty() && options.precision != Precision::Fp64)) {
    solution.data = held(std::move(res.solution32), io::DType::Float32);
    solution.dtype = io::DType::Float32;
  } else if (options.precision == Precision::Fp64) {  // fp64 runs export all their digits
    solution.data = held(std::move(res.solution), io::DType::Float64);
  } else {
    solution.data = std::vector<float>(res.solution.begin(), res.solution.end());
    solution.dtype = io::DType::Float32;
  }
  res.solution = {}, res.solution32 = {};
  r.outputs.push_back(std::move(solution));
  r.outputs.push_back(add("residual", {H, W}, std::move(res.residual)));
  r.outputs.push_back(add("count", {H, W}, std::move(res.count)));
  r.outputs.push_back(add("status", {H, W}, std::move(res.status)));
  r.outputs.push_back(add("condition", {H, W}, std::move(res.condition)));
  res.residual = {}, res.count = {}, res.status = {}, res.condition = {};
  }
  for (const auto& [k, v] :
       LsqStats::of(res, options, r.backend, observations, peak_device_bytes).to_map())
    r.stats[k] = v;
  r.compute_seconds = res.seconds;
}

void add_lsq_result_warnings(RunResult& r, const lsq::Result* counted) {
  const auto count = [&](const char* k) { return std::uint64_t(r.stats.at(k)); };
  std::size_t inf[2] = {0, 0};
  const char* names[2] = {"solution", "residual"};
  const LsqPayload* pl = r.payload_as<LsqPayload>();
  for (int k = 0; k < 2; ++k)
    if (const OutputArray* o = r.find(names[k])) {
      if (counted && counted->host_inf_counted && !device_only(o->data)) {  // by the solver
        inf[k] = std::size_t(counted->host_inf[std::size_t(k)]);
        continue;
      }
      if (device_only(o->data) && pl && pl->device_inf) {  // counted on the device
        inf[k] = std::size_t((*pl->device_inf)[std::size_t(k)]);
        continue;
      }
      const auto count_inf = [](const auto* v, std::size_t n) {
        return std::size_t(std::count_if(v, v + n, [](auto x) { return std::isinf(float(x)); }));
      };
      const void* held = o->data.held_owner() ? o->data.held_values() : nullptr;
      if (held && o->data.dtype() == io::DType::Float64)  // read in place, no vector copy
        inf[k] = count_inf(static_cast<const double*>(held), o->data.size());
      else if (held && o->data.dtype() == io::DType::Float32)
        inf[k] = count_inf(static_cast<const float*>(held), o->data.size());
      else
        inf[k] = o->data.visit([&](const auto& v) { return count_inf(v.data(), v.size()); });
    }
  for (std::string& w :
       lsq_result_warnings(count("status_underdetermined"), count("status_rank_deficient"),
                           count("status_all_missing"), count("unknowns"),
                           r.params.get_double("lambda"), inf[0], inf[1]))
    r.warnings.push_back(std::move(w));
}

std::vector<std::string> lsq_result_warnings(std::uint64_t under, std::uint64_t rank,
                                             std::uint64_t missing, std::uint64_t N, double lambda,
                                             std::size_t solution_inf, std::size_t residual_inf) {
  std::vector<std::string> w;
  const auto their = [](std::uint64_t n) {
    return n == 1 ? "its solution is" : "their solutions are";
  };
  if (under > 0)
    w.push_back(plural(under, "pixel is", "pixels are") +
                " underdetermined (status 1: fewer than N = " + std::to_string(N) +
                " observed rows): " + their(under) +
                (lambda > 0 ? " the Tikhonov (lambda > 0) one, fixed by the regularisation rather "
                              "than the data"
                            : " the minimum-norm one, not determined by the data"));
  if (rank > 0)
    w.push_back(plural(rank, "pixel is", "pixels are") +
                " rank-deficient (status 2: dependent columns among the observed rows of A): " +
                their(rank) + " the minimum-norm one");
  if (missing > 0)
    w.push_back(plural(missing, "pixel has", "pixels have") +
                " no observation (status 3): solution, residual and condition are NaN");
  const std::size_t inf[2] = {solution_inf, residual_inf};
  for (int k = 0; k < 2; ++k)
    if (inf[k] > 0)
      w.push_back(std::string(k == 0 ? "solution" : "residual") + ": " + std::to_string(inf[k]) +
                  " values overflow float32 (inf) in the exported file");
  return w;
}

LsqMaps lsq_maps(const RunResult& r) {
  auto need = [&](const char* name) -> const OutputArray& {
    const OutputArray* o = r.find(name);
    if (!o) throw Error(std::string("lsq: the result has no output '") + name + "'");
    return *o;
  };
  const OutputArray& s = need("solution");
  if (s.shape.size() != 3) throw Error("lsq: the solution is not (N, H, W)");
  LsqMaps m;
  m.n = s.shape[0], m.height = s.shape[1], m.width = s.shape[2];
  m.solution = &s.data;
  const std::pair<const OutputData**, std::pair<const char*, io::DType>> maps[] = {
      {&m.residual, {"residual", io::DType::Float32}},
      {&m.condition, {"condition", io::DType::Float32}},
      {&m.count, {"count", io::DType::Int32}},
      {&m.status, {"status", io::DType::UInt8}}};
  for (const auto& [member, what] : maps) {
    const OutputData& d = need(what.first).data;
    if (d.dtype() != what.second)
      throw Error(std::string("lsq: the output '") + what.first + "' has another dtype");
    *member = &d;
  }
  if (const auto* pl = r.payload_as<LsqPayload>()) m.ops = pl->device_ops;
  return m;
}

double LsqMaps::at(const OutputData& map, std::size_t i) const {
  if (!ops || !device_only(map)) return map.at(i);
  if (i >= map.size()) throw Error("lsq: map index out of range");
  const auto* base = static_cast<const unsigned char*>(map.device_bytes());
  switch (map.dtype()) {  // one value down, no host copy of the map
    case io::DType::Float64: {
      double v = 0;
      ops->download(&v, base + i * 8, 8);
      return v;
    }
    case io::DType::Int32: {
      std::int32_t v = 0;
      ops->download(&v, base + i * 4, 4);
      return double(v);
    }
    case io::DType::UInt8: {
      std::uint8_t v = 0;
      ops->download(&v, base + i, 1);
      return double(v);
    }
    default: {
      float v = 0;
      ops->download(&v, base + i * 4, 4);
      return double(v);
    }
  }
}

}  // namespace simscope::app
