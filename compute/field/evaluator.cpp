// Back-end-independent parts of the field workload (field.hpp: make_evaluator, output_names,
// output_unit, output) and the option checks shared by every evaluator.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "field/field_internal.hpp"
#include "field/tree/tree_internal.hpp"

namespace simscope::field {

namespace detail {

void validate(const Options& o) {
  if (!std::isfinite(o.k)) throw Error("field: k must be a finite number");
  if (!std::isfinite(o.eps) || o.eps < 0)
    throw Error("field: eps must be a finite number >= 0, got " + std::to_string(o.eps));
}

IndexRange checked_range(const Options& o, const Targets& t, const IndexRange& range) {
  validate(o);
  return resolve(range, t.size(), "field: targets");
}

void finalize(const double* acc, double k, Result& out, std::size_t i) {
  // acc holds sum q (x - y) / r^3; field.hpp's E is k sum q (y - x) / r^3.
  const double ex = -k * acc[0], ey = -k * acc[1], ez = -k * acc[2];
  out.ex[i] = float(ex), out.ey[i] = float(ey), out.ez[i] = float(ez);
  out.magnitude[i] = float(std::sqrt(ex * ex + ey * ey + ez * ez));
  out.potential[i] = float(k * acc[3]);
  if (!out.sums64.empty())  // Options::keep_sums64 (runs split by sources add these in fp64)
    out.sums64[4 * i] = ex, out.sums64[4 * i + 1] = ey, out.sums64[4 * i + 2] = ez,
                   out.sums64[4 * i + 3] = k * acc[3];
}

void resize_outputs(Result& out, std::size_t n) {
  for (auto* v : {&out.magnitude, &out.ex, &out.ey, &out.ez, &out.potential}) v->resize(n);
  out.on_host = true, out.device_count = 0, out.device_nonfinite = {};
  out.method = Method::Direct;
  out.tree = TreeStats{};
  out.sums64.clear();
  out.target_errors.clear();
}

#ifndef SIMSCOPE_HAVE_CUDA
std::unique_ptr<Evaluator> make_cuda_evaluator() {
  throw Error("field: the CUDA back end is not available (" + cuda_status().reason + ")");
}
#endif

}  // namespace detail

void Evaluator::evaluate_device(const Sources&, const Targets&, const DeviceView*,
                                const DeviceView*, const Options&, Result&, Progress*) {
  throw Error(
      "field: inputs in CUDA device memory need the direct CUDA evaluator (method=direct, "
      "backend=cuda)");
}

const std::vector<io::OutputSpec>& outputs() {
  static const std::string e = "k*q/length^2";
  static const std::vector<io::OutputSpec> all = {{"magnitude", "|E|", e},
                                                  {"ex", "Ex", e},
                                                  {"ey", "Ey", e},
                                                  {"ez", "Ez", e},
                                                  {"potential", "phi", "k*q/length"}};
  return all;
}

const std::vector<std::string>& output_names() {
  static const std::vector<std::string> names = io::output_names_of(outputs());
  return names;
}

const char* output_unit(const std::string& name) {
  for (const io::OutputSpec& o : outputs())
    if (o.name == name) return o.unit.c_str();
  throw Error("unknown field output '" + name + "' (known: " + io::joined_names(outputs()) + ")");
}

const std::vector<float>& output(const Result& r, const std::string& name) {
  if (name == "magnitude") return r.magnitude;
  if (name == "ex") return r.ex;
  if (name == "ey") return r.ey;
  if (name == "ez") return r.ez;
  if (name == "potential") return r.potential;
  throw Error("unknown field output '" + name + "' (known: " + io::joined_names(outputs()) + ")");
}

const char* to_string(Method m) {
  switch (m) {
    case Method::Direct:
      return "direct";
    case Method::Tree:
      return "tree";
    case Method::Auto:
      return "auto";
  }
  return "unknown";
}

Method method_from_string(const std::string& name) {
  if (name == "direct") return Method::Direct;
  if (name == "tree") return Method::Tree;
  if (name == "auto") return Method::Auto;
  throw Error("field: unknown method '" + name + "' (known: direct, tree, auto)");
}

namespace {
/// Every evaluator: (method, back end, factory). A new method adds its rows here.
struct EvaluatorEntry {
  Method method;
  Backend backend;
  std::unique_ptr<Evaluator> (*make)();
};
std::unique_ptr<Evaluator> make_auto_cpu() { return tree::make_auto_evaluator(Backend::Cpu); }
std::unique_ptr<Evaluator> make_auto_cuda() { return tree::make_auto_evaluator(Backend::Cuda); }
const EvaluatorEntry kEvaluators[] = {
    {Method::Direct, Backend::Cpu, detail::make_cpu_evaluator},
    {Method::Direct, Backend::Cuda, detail::make_cuda_evaluator},
    {Method::Tree, Backend::Cpu, tree::make_cpu_tree_evaluator},
    {Method::Tree, Backend::Cuda, tree::make_cuda_tree_evaluator},
    {Method::Auto, Backend::Cpu, make_auto_cpu},
    {Method::Auto, Backend::Cuda, make_auto_cuda},
};
}  // namespace

std::vector<std::pair<Method, Backend>> available_evaluators() {
  std::vector<std::pair<Method, Backend>> out;
  for (const auto& e : kEvaluators) out.emplace_back(e.method, e.backend);
  return out;
}

std::unique_ptr<Evaluator> make_evaluator(Method method, Backend backend) {
  for (const auto& e : kEvaluators) {
    if (e.method != method || e.backend != backend) continue;
    if (backend == Backend::Cuda) {
      const CudaStatus& s = cuda_status();
      if (!s.usable) throw Error("field: the CUDA back end cannot run (" + s.reason + ")");
    }
    return e.make();
  }
  std::string known;
  for (const auto& e : kEvaluators)
    known += std::string(known.empty() ? "" : ", ") + to_string(e.method) + " on " +
             to_string(e.backend);
  throw Error(std::string("field: no evaluator for method '") + to_string(method) + "' on the " +
              to_string(backend) + " back end (available: " + known + ")");
}

std::unique_ptr<Evaluator> make_evaluator(Backend backend) {
  return make_evaluator(Method::Direct, backend);
}

Result merge_target_ranges(const std::vector<Result>& parts) {
  if (parts.empty()) throw Error("field: merge_target_ranges needs at least one part");
  Result out;
  out.target_begin = parts.front().target_begin;
  std::size_t n = 0;
  for (const Result& r : parts) {
    if (r.target_begin != out.target_begin + n)
      throw Error("field: merge_target_ranges: a part starts at target " +
                  std::to_string(r.target_begin) + ", expected " +
                  std::to_string(out.target_begin + n) + " (parts must be consecutive)");
    if (!r.on_host)
      throw Error(
          "field: merge_target_ranges: a part's outputs are in device memory "
          "(evaluate without keep_outputs_on_device to merge)");
    n += r.size();
  }
  for (auto* v : {&out.magnitude, &out.ex, &out.ey, &out.ez, &out.potential}) v->reserve(n);
  out.method = parts.front().method;
  double rms2 = 0, prms2 = 0;
  for (const Result& r : parts) {
    TreeStats& t = out.tree;
    const TreeStats& p = r.tree;
    t.build_seconds += p.build_seconds, t.eval_seconds += p.eval_seconds;
    t.error_seconds += p.error_seconds, t.m2l += p.m2l, t.p2p_pairs += p.p2p_pairs;
    t.order = std::max(t.order, p.order), t.theta = std::max(t.theta, p.theta);
    t.tree_bytes = std::max(t.tree_bytes, p.tree_bytes);
    t.tree_kept = &r == &parts.front() ? p.tree_kept : t.tree_kept && p.tree_kept;
    if (p.error_samples > 0) {
      t.error_samples += p.error_samples;
      rms2 += double(p.error_samples) * p.rms_rel_error * p.rms_rel_error;
      prms2 += double(p.error_samples) * p.rms_rel_error_potential * p.rms_rel_error_potential;
      t.max_rel_error = std::isnan(t.max_rel_error) ? p.max_rel_error
                                                    : std::max(t.max_rel_error, p.max_rel_error);
    }
  }
  if (out.tree.error_samples > 0) {
    out.tree.rms_rel_error = std::sqrt(rms2 / double(out.tree.error_samples));
    out.tree.rms_rel_error_potential = std::sqrt(prms2 / double(out.tree.error_samples));
  }
  for (const Result& r : parts) {
    out.magnitude.insert(out.magnitude.end(), r.magnitude.begin(), r.magnitude.end());
    out.ex.insert(out.ex.end(), r.ex.begin(), r.ex.end());
    out.ey.insert(out.ey.end(), r.ey.begin(), r.ey.end());
    out.ez.insert(out.ez.end(), r.ez.begin(), r.ez.end());
    out.potential.insert(out.potential.end(), r.potential.begin(), r.potential.end());
    out.target_errors.insert(out.target_errors.end(), r.target_errors.begin(),
                             r.target_errors.end());
    out.skipped_coincidences += r.skipped_coincidences;
    out.seconds += r.seconds;
  }
  return out;
}

}  // namespace simscope::field
