// The field of added source shares (share_sums.hpp). Compiled with -ffp-contract=off: the
// roundings are those of an unsplit evaluation on every x86-64.
#include "share_sums.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace simscope::field {

std::vector<double> sums_of(Result& r) {
  const std::size_t T = r.size();
  if (r.sums64.size() == 4 * T) return std::move(r.sums64);
  std::vector<double> sums(4 * T);
  for (std::size_t i = 0; i < T; ++i)
    sums[4 * i] = r.ex[i], sums[4 * i + 1] = r.ey[i], sums[4 * i + 2] = r.ez[i],
             sums[4 * i + 3] = r.potential[i];
  return sums;
}

std::vector<double> direct_sums_at(const Sources& sources, const Targets& targets,
                                   const std::vector<std::size_t>& at, Options options) {
  Targets t;
  for (std::size_t i : at)
    t.x.push_back(targets.x[i]), t.y.push_back(targets.y[i]), t.z.push_back(targets.z[i]);
  if (sources.size() == 0 || t.size() == 0) return std::vector<double>(4 * t.size(), 0.0);
  options.precision = Precision::Fp64;
  options.keep_sums64 = true;
  Result r;
  make_evaluator(Method::Direct, Backend::Cpu)->evaluate(sources, t, options, r);
  return std::move(r.sums64);
}

Result result_from_sums(const std::vector<double>& sums) {
  const std::size_t T = sums.size() / 4;
  Result r;
  for (auto* v : {&r.magnitude, &r.ex, &r.ey, &r.ez, &r.potential}) v->resize(T);
  for (std::size_t i = 0; i < T; ++i) {
    const double ex = sums[4 * i], ey = sums[4 * i + 1], ez = sums[4 * i + 2];
    r.magnitude[i] = float(std::sqrt(ex * ex + ey * ey + ez * ez));
    r.ex[i] = float(ex), r.ey[i] = float(ey), r.ez[i] = float(ez);
    r.potential[i] = float(sums[4 * i + 3]);
  }
  return r;
}

void measure_added_error(const std::vector<double>& sums, const std::vector<double>& direct,
                         const std::vector<std::size_t>& at, Result& out) {
  const std::size_t S = at.size(), T = sums.size() / 4;
  if (direct.size() != 4 * S)
    throw Error("field: " + std::to_string(direct.size()) + " direct sums for an error sample of " +
                std::to_string(S) + " targets");
  double num = 0, all = 0, mx = 0;
  out.target_errors.clear();
  for (std::size_t k = 0; k < S; ++k) {
    if (at[k] >= T) throw Error("field: an error sample's target is beyond the sums");
    const double* a = &sums[4 * at[k]];
    const double* b = &direct[4 * k];
    const double d2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                      (a[2] - b[2]) * (a[2] - b[2]);
    const double e2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    num += d2;
    if (e2 > 0) mx = std::max(mx, std::sqrt(d2 / e2));
    out.target_errors.push_back(e2 > 0 ? float(std::sqrt(d2 / e2)) : (d2 > 0 ? INFINITY : 0.0f));
  }
  for (std::size_t i = 0; i < T; ++i)
    all += sums[4 * i] * sums[4 * i] + sums[4 * i + 1] * sums[4 * i + 1] +
           sums[4 * i + 2] * sums[4 * i + 2];
  const double den = all * double(S) / double(T);
  out.tree.error_samples = S;
  out.tree.rms_rel_error = den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0.0);
  out.tree.max_rel_error = mx;
}

}  // namespace simscope::field
