#include "view/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "output/export.hpp"

namespace simscope::app {

const std::vector<std::string>& compare_mode_names() {
  static const std::vector<std::string> names = {"B (current)", "A (pinned)", "B - A",
                                                 "(B - A) / |A|"};
  return names;
}

std::vector<double> output_values(const OutputArray& o) {
  if (o.dtype == io::DType::Float64) return o.data.converted<double>();
  const std::vector<float>& v = o.data.host();  // the exported float32 values
  return std::vector<double>(v.begin(), v.end());
}

bool is_angle(const std::string& unit) { return unit == "rad"; }

double difference(double a, double b, bool angle) {
  if (!angle) return b - a;
  const double d = std::remainder(b - a, 2 * M_PI);  // [-pi, pi]
  return d <= -M_PI ? d + 2 * M_PI : d;
}

DiffStats diff_stats(const std::vector<float>& a, const std::vector<float>& b, bool relative,
                     bool angle) {
  DiffStats s;
  double sum2 = 0;
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t k = 0; k < n; ++k) {
    const double x = a[k], y = b[k];
    if (!std::isfinite(x) || !std::isfinite(y) || (relative && x == 0)) {
      ++s.skipped;
      continue;
    }
    const double d = difference(x, y, angle) / (relative ? std::fabs(x) : 1.0);
    s.max_abs = std::max(s.max_abs, std::fabs(d));
    sum2 += d * d;
    ++s.compared;
  }
  s.skipped += std::max(a.size(), b.size()) - n;
  s.rms = s.compared ? std::sqrt(sum2 / double(s.compared)) : 0;
  return s;
}

ViewImage compare_image(const ViewImage& a, const ViewImage& b, CompareMode mode) {
  if (mode == CompareMode::Current) return b;
  if (a.rows != b.rows || a.cols != b.cols)
    throw Error("compare: the pinned result A has " + std::to_string(a.rows) + " x " +
                std::to_string(a.cols) + " samples, the current B " + std::to_string(b.rows) +
                " x " + std::to_string(b.cols) + ": no comparison (pin again)");
  if (mode == CompareMode::Pinned) return a;
  ViewImage d = b;
  const bool rel = mode == CompareMode::Relative, angle = is_angle(b.unit);
  const std::vector<float>&va = a.data.host(), &vb = b.data.host();
  std::vector<float> diff(vb.size());
  for (std::size_t k = 0; k < diff.size(); ++k) {
    const double x = va[k], y = vb[k], dd = difference(x, y, angle);
    diff[k] = rel ? (x == 0 ? NAN : float(dd / std::fabs(x))) : float(dd);
  }
  d.data = std::move(diff);  // on the host
  d.label = (rel ? "(B - A) / |A|: " : "B - A: ") + b.label;
  if (rel) d.unit.clear();
  d.colormap = "coolwarm";
  d.scale = "linear";
  d.range_lo = d.range_hi = 0;
  d.symmetric_range();
  if (!(d.range_lo < d.range_hi)) d.range_lo = -1, d.range_hi = 1;  // A == B: still centred
  return d;
}

PlaneSamples compare_samples(const PlaneSamples& a, const PlaneSamples& b, CompareMode mode) {
  if (mode == CompareMode::Current) return b;
  if (a.rows != b.rows || a.cols != b.cols)
    throw Error("compare: the pinned result A has " + std::to_string(a.rows) + " x " +
                std::to_string(a.cols) + " samples, the current B " + std::to_string(b.rows) +
                " x " + std::to_string(b.cols) + ": no comparison (pin again)");
  if (mode == CompareMode::Pinned) return a;
  const bool rel = mode == CompareMode::Relative;
  PlaneSamples d = b;
  d.columns.clear();
  for (const PlaneColumn& cb : b.columns) {
    const int k = a.column(cb.name);
    if (k < 0 || a.columns[std::size_t(k)].data.size() != cb.data.size()) continue;
    const std::vector<float>& va = a.columns[std::size_t(k)].data;
    PlaneColumn c{cb.name, (rel ? "(B - A) / |A|: " : "B - A: ") + cb.label, rel ? "" : cb.unit,
                  std::vector<float>(cb.data.size())};
    const bool angle = is_angle(cb.unit);
    for (std::size_t i = 0; i < c.data.size(); ++i) {
      const double x = va[i], y = cb.data[i], dd = difference(x, y, angle);
      c.data[i] = rel ? (x == 0 ? NAN : float(dd / std::fabs(x))) : float(dd);
    }
    d.columns.push_back(std::move(c));
  }
  return d;
}

std::vector<OutputArray> output_differences(const RunResult& a, const RunResult& b) {
  std::vector<OutputArray> out;
  for (const OutputArray& ob : b.outputs) {
    const OutputArray* oa = a.find(ob.name);
    if (!oa || oa->shape != ob.shape) continue;
    const std::vector<double> va = output_values(*oa), vb = output_values(ob);
    if (va.size() != vb.size()) continue;
    OutputArray d;
    d.name = ob.name, d.label = "B - A: " + ob.label, d.unit = ob.unit, d.shape = ob.shape;
    d.dtype = ob.dtype == io::DType::Float64 ? io::DType::Float64 : io::DType::Float32;
    const bool angle = is_angle(ob.unit);
    if (d.dtype == io::DType::Float64) {
      std::vector<double> diff(vb.size());
      for (std::size_t k = 0; k < vb.size(); ++k) diff[k] = difference(va[k], vb[k], angle);
      d.data = std::move(diff);
    } else {
      std::vector<float> diff(vb.size());
      for (std::size_t k = 0; k < vb.size(); ++k) diff[k] = float(difference(va[k], vb[k], angle));
      d.data = std::move(diff);
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> differing_params(const ParamSet& a, const ParamSet& b) {
  std::vector<std::string> out;
  if (!a.has_schema()) return out;
  for (const ParamSpec& spec : a.schema().specs()) {
    const auto ia = a.values().find(spec.name), ib = b.values().find(spec.name);
    if (ia == a.values().end()) continue;
    if (ib != b.values().end() && ia->second == ib->second) continue;
    out.push_back(spec.name + "=" + format_value(ia->second) + " (B: " +
                  (ib == b.values().end() ? std::string("-") : format_value(ib->second)) + ")");
  }
  return out;
}

std::vector<std::string> export_comparison(const RunResult& a, const RunResult& b,
                                           const std::string& dir, const Json& manifest_a) {
  const std::filesystem::path base(dir);
  const std::string pinned = (base / "pinned").string();
  std::vector<std::string> written = export_run(a, pinned, manifest_a, nullptr);
  const std::filesystem::path diff = base / "difference";
  std::error_code ec;
  std::filesystem::create_directories(diff, ec);
  if (!std::filesystem::is_directory(diff))
    throw Error("cannot create the folder " + diff.string() + " for the differences");
  for (const OutputArray& d : output_differences(a, b)) {
    const std::string path = (diff / (d.name + ".npy")).string();
    write_output_npy(path, d);
    written.push_back(path);
  }
  return written;
}

}  // namespace simscope::app
