// The field's run.json statistics (field_stats.hpp).
#include "field_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace simscope::app {

namespace {

struct CountField {
  const char* name;
  double FieldStats::*member;
};

struct OptionalField {
  const char* name;
  std::optional<double> FieldStats::*member;
};

// Every stat once: its run.json name and its member.
constexpr CountField kCounts[] = {
    {"sources", &FieldStats::sources},
    {"targets", &FieldStats::targets},
    {"skipped_coincidences", &FieldStats::skipped_coincidences},
    {"peak_device_bytes", &FieldStats::peak_device_bytes},
};

constexpr OptionalField kOptional[] = {
    {"method_tree", &FieldStats::method_tree},
    {"pairs", &FieldStats::pairs},
    {"pairs_per_s", &FieldStats::pairs_per_s},
    {"tree_build_seconds", &FieldStats::tree_build_seconds},
    {"tree_eval_seconds", &FieldStats::tree_eval_seconds},
    {"tree_error_seconds", &FieldStats::tree_error_seconds},
    {"tree_order", &FieldStats::tree_order},
    {"tree_theta", &FieldStats::tree_theta},
    {"tree_preview_build_seconds", &FieldStats::tree_preview_build_seconds},
    {"error_samples", &FieldStats::error_samples},
    {"rms_rel_error", &FieldStats::rms_rel_error},
    {"max_rel_error", &FieldStats::max_rel_error},
    {"tolerance_met", &FieldStats::tolerance_met},
    {"error_pending", &FieldStats::error_pending},
    {"error_grid", &FieldStats::error_grid},
    {"sources_read_whole", &FieldStats::sources_read_whole},
};

// The tree's settings of the first source share that has them (FieldStats::merged_shares).
constexpr std::optional<double> FieldStats::*kTreeSettings[] = {
    &FieldStats::tree_build_seconds, &FieldStats::tree_eval_seconds,
    &FieldStats::tree_error_seconds, &FieldStats::tree_order,
    &FieldStats::tree_theta,         &FieldStats::tree_preview_build_seconds,
};

constexpr const char* kMethodText = "method";

}  // namespace

void FieldStats::set_method(const field::Result& fr, const ParamSet& params,
                            std::vector<std::string>& warnings) {
  method_tree = fr.method == field::Method::Tree ? 1 : 0;
  method = field::to_string(fr.method);  // the method that ran: auto resolved
  if (fr.method != field::Method::Tree) return;
  const field::TreeStats& t = fr.tree;
  tree_build_seconds = t.build_seconds;
  tree_eval_seconds = t.eval_seconds;
  tree_error_seconds = t.error_seconds;
  tree_order = t.order;
  tree_theta = t.theta;
  error_samples = double(t.error_samples);
  // The window's frame before its deferred measurement (Options::defer_error): the follow-up
  // result drops this stat and carries the measured error.
  if (t.error_deferred) error_pending = 1;
  if (t.error_samples > 0) {
    rms_rel_error = t.rms_rel_error;
    max_rel_error = t.max_rel_error;
    // The ladder's own measure (tree_evaluator.cpp): the larger of E's and the potential's.
    const double measured = std::max(t.rms_rel_error, t.rms_rel_error_potential);
    const double tol = params.get_double("tree.tolerance");
    const bool met = measured <= tol;
    tolerance_met = met ? 1 : 0;
    if (!met) {
      const bool fp32 = params.get_string("precision") == "fp32";
      char buf[400];
      std::snprintf(buf, sizeof buf,
                    "tree: the measured RMS errors (E %.3g, potential %.3g) exceed tree.tolerance "
                    "%.3g at order %d, theta %.3g, as far as the tree refines: these outputs are "
                    "its best; %smethod=direct gives the exact sums",
                    t.rms_rel_error, t.rms_rel_error_potential, tol, t.order, t.theta,
                    fp32 ? "precision=fp64 sums the near field in float64, " : "");
      warnings.push_back(buf);
    }
  }
}

std::map<std::string, double> FieldStats::to_map() const {
  std::map<std::string, double> m;
  for (const CountField& f : kCounts) m[f.name] = this->*f.member;
  for (const OptionalField& f : kOptional)
    if (this->*f.member) m[f.name] = *(this->*f.member);
  return m;
}

std::map<std::string, std::string> FieldStats::text_map() const {
  std::map<std::string, std::string> m;
  if (!method.empty()) m[kMethodText] = method;
  return m;
}

FieldStats FieldStats::from(const RunResult& r) {
  FieldStats s;
  for (const CountField& f : kCounts) {
    const auto it = r.stats.find(f.name);
    if (it == r.stats.end())
      throw Error(std::string("field: the result has no stat '") + f.name + "'");
    s.*f.member = it->second;
  }
  for (const OptionalField& f : kOptional) {
    const auto it = r.stats.find(f.name);
    if (it != r.stats.end()) s.*f.member = it->second;
  }
  const auto it = r.stat_texts.find(kMethodText);
  if (it != r.stat_texts.end()) s.method = it->second;
  return s;
}

void FieldStats::store(RunResult& r) const {
  for (auto& [k, v] : to_map()) r.stats[k] = v;
  for (auto& [k, v] : text_map()) r.stat_texts[k] = v;
}

void FieldStats::erase_pending(RunResult& r) { r.stats.erase("error_pending"); }

void FieldStats::merge_tree(const std::vector<FieldStats>& parts) {
  if (!tree_order) return;
  for (std::optional<double> FieldStats::*m :
       {&FieldStats::tree_build_seconds, &FieldStats::tree_eval_seconds,
        &FieldStats::tree_error_seconds}) {
    double sum = 0;
    for (const FieldStats& p : parts) sum += (p.*m).value_or(0);
    this->*m = sum;
  }
  double samples = 0, rms2 = 0, mx = 0;
  for (const FieldStats& p : parts) {
    if (!p.rms_rel_error) continue;
    const double n = p.error_samples.value_or(0);
    samples += n, rms2 += n * *p.rms_rel_error * *p.rms_rel_error;
    mx = std::max(mx, p.max_rel_error.value_or(0));
  }
  error_samples = samples;
  if (samples > 0) {
    rms_rel_error = std::sqrt(rms2 / samples);
    max_rel_error = mx;
  }
  double met = 1;  // every part within the tolerance (each part's warning says which did not)
  bool any = false;
  for (const FieldStats& p : parts)
    if (p.tolerance_met) met = std::min(met, *p.tolerance_met), any = true;
  if (any) tolerance_met = met;
}

void FieldStats::merge_counts(const std::vector<FieldStats>& parts) {
  double skipped = 0, peak = 0;
  for (const FieldStats& p : parts) {
    skipped += p.skipped_coincidences;
    peak = std::max(peak, p.peak_device_bytes);
  }
  skipped_coincidences = skipped;
  peak_device_bytes = peak;
  merge_tree(parts);
}

FieldStats FieldStats::merged_ranges(const std::vector<FieldStats>& parts, double targets) {
  FieldStats s = parts.empty() ? FieldStats() : parts.front();
  s.targets = targets;
  s.merge_counts(parts);
  return s;
}

FieldStats FieldStats::merged_shares(const std::vector<FieldStats>& parts, double targets) {
  FieldStats s;
  double sources = 0;
  for (const FieldStats& p : parts) {
    sources += p.sources;
    for (std::optional<double> FieldStats::*m : kTreeSettings)
      if (p.*m && !(s.*m)) s.*m = p.*m;
    if (p.method_tree && !s.method_tree) s.method_tree = p.method_tree;
    if (!p.method.empty() && s.method.empty()) s.method = p.method;
  }
  s.sources = sources;
  s.targets = targets;
  s.merge_counts(parts);
  return s;
}

void add_tree_stats(const field::Result& fr, RunResult& r) {
  FieldStats s = FieldStats::from(r);
  s.set_method(fr, r.params, r.warnings);
  s.store(r);
}

}  // namespace simscope::app
