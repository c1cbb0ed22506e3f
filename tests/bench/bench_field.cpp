// simscope-bench field: pairs per second of the direct field evaluation (compute/field).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "bench.hpp"
#include "core/backend.hpp"
#include "field/field.hpp"

namespace simscope::bench {
namespace {

using field::Precision;

/// T targets on the planes z = -1000 and z = +1000, n x n samples over [-995, 995]^2 each
/// (n = ceil(sqrt(T/2))), truncated to T: T = 80000 is the original question's 2 x 200 x 200.
field::Targets bench_targets(std::size_t T) {
  const std::size_t n = std::max<std::size_t>(2, std::size_t(std::ceil(std::sqrt(T / 2.0))));
  field::Targets t;
  for (double z : {-1000.0, 1000.0})
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n && t.size() < T; ++j) {
        t.x.push_back(-995.0 + 1990.0 * double(i) / double(n - 1));
        t.y.push_back(-995.0 + 1990.0 * double(j) / double(n - 1));
        t.z.push_back(z);
      }
  return t;
}

/// Every stride-th target (at most `count` of them).
field::Targets sample(const field::Targets& t, std::size_t count, std::vector<std::size_t>& idx) {
  field::Targets s;
  const std::size_t stride = std::max<std::size_t>(1, t.size() / count);
  for (std::size_t i = 0; i < t.size() && s.size() < count; i += stride) {
    idx.push_back(i);
    s.x.push_back(t.x[i]), s.y.push_back(t.y[i]), s.z.push_back(t.z[i]);
  }
  return s;
}

double max_rel(const std::vector<float>& v, const std::vector<std::size_t>& idx,
               const std::vector<float>& ref) {
  double m = 0;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const double r = ref[k];
    const double e =
        r != 0 ? std::fabs(double(v[idx[k]]) - r) / std::fabs(r) : std::fabs(double(v[idx[k]]));
    m = std::max(m, std::isfinite(e) ? e : INFINITY);
  }
  return m;
}

int run_field(const std::vector<std::string>& words) {
  const Args a(words,
               {"backend", "sources", "targets", "precision", "repeat", "seed", "eps", "check"});
  const std::string backend_name = a.choice("backend", "cpu", {"cpu", "cuda", "auto"});
  const std::size_t P = std::size_t(a.count("sources", 200000));
  const std::size_t T = std::size_t(a.count("targets", 512));
  const std::string prec = a.choice("precision", "fp32", {"fp32", "fp64"});
  const int repeat = int(a.count("repeat", 3));
  const std::size_t seed = std::size_t(a.count("seed", 1));
  const std::size_t check = std::size_t(a.count("check", 64));
  field::Options o;
  o.precision = prec == "fp64" ? Precision::Fp64 : Precision::Fp32;
  {
    const std::string e = a.str("eps", "0");
    char* end = nullptr;
    o.eps = std::strtod(e.c_str(), &end);
    if (e.empty() || *end || !std::isfinite(o.eps) || o.eps < 0)
      throw UsageError("--eps: expected a number >= 0, got '" + e + "'");
  }

  const BackendChoice choice = choose_backend(backend_name);
  const field::Sources s = field::generate_sources("uniform", P, 750.0, seed);
  const field::Targets t = bench_targets(T);
  auto ev = field::make_evaluator(choice.backend);

  field::Result r;
  ev->evaluate(s, t, o, r);  // warm-up (and the CUDA upload of the sources)
  std::vector<double> secs;
  for (int k = 0; k < repeat; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    ev->evaluate(s, t, o, r);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double sec = median(secs);

  // Accuracy on a sample of targets: against the CPU fp64 evaluator for fp32 runs and CUDA fp64
  // runs, against the float64 brute-force reference for CPU fp64 runs.
  std::vector<std::size_t> idx;
  const bool brute = choice.backend == Backend::Cpu && o.precision == Precision::Fp64;
  const field::Targets st = sample(t, brute ? std::min<std::size_t>(check, 16) : check, idx);
  field::Result ref;
  field::Options ro = o;
  ro.precision = Precision::Fp64;
  std::string ref_name;
  if (brute) {
    field::evaluate_reference(s, st, ro, ref);
    ref_name = "float64 brute-force reference (evaluate_reference)";
  } else {
    field::make_evaluator(Backend::Cpu)->evaluate(s, st, ro, ref);
    ref_name = "CPU fp64 evaluator";
  }
  ref_name += " on " + std::to_string(idx.size()) + " sampled targets";

  Json j;
  j.add("workload", "field")
      .add("backend", to_string(choice.backend))
      .add("device", choice.backend == Backend::Cuda ? cuda_status().device : cpu_description())
      .add("precision", prec)
      .add("sources", std::int64_t(P))
      .add("targets", std::int64_t(T))
      .add("eps", o.eps)
      .add("pairs_per_s", double(P) * double(T) / sec)
      .add("seconds", sec)
      .add("repeat", std::int64_t(repeat))
      .add("max_rel_error", max_rel(r.magnitude, idx, ref.magnitude))
      .add("max_rel_error_potential", max_rel(r.potential, idx, ref.potential))
      .add("error_metric", "max over sampled targets of |value - ref| / |ref|, magnitude")
      .add("error_reference", ref_name)
      .add("skipped", r.skipped_coincidences)
      .add("peak_rss_bytes", peak_rss_bytes())
      .add("peak_device_bytes", ev->peak_device_bytes())
      .add("setup", "sources uniform in [-750,750]^3, q in [0.5,1.5], seed " +
                        std::to_string(seed) +
                        "; targets on z=-1000 and z=+1000, n x n over "
                        "[-995,995]^2, n=ceil(sqrt(T/2))");
  std::printf("%s\n", j.str().c_str());
  return 0;
}

const Registration reg{Bench{
    "field",
    "field --backend cpu|cuda [--sources P] [--targets T] [--precision fp32|fp64] [--repeat R] "
    "[--eps E] [--seed S] [--check N]",
    "  Direct evaluation of E and the potential of P point sources at T targets\n"
    "  (compute/field), all five outputs, pairs_per_s = P*T / seconds.\n"
    "  Sources: uniform in [-750,750]^3 with q in [0.5,1.5] (generator 'uniform', --seed,\n"
    "  default 1). Targets: two planes z = -1000 and z = +1000 with n x n samples over\n"
    "  [-995,995]^2, n = ceil(sqrt(T/2)), truncated to T (T = 80000 is the original 2x200x200).\n"
    "  --backend cpu|cuda|auto (default cpu; cuda is an error where no device is usable)\n"
    "  --sources P (default 200000)   --targets T (default 512)   --precision fp32|fp64\n"
    "  --repeat R  timed runs after one warm-up run; seconds is their median (default 3):\n"
    "              wall time of evaluate(), with the target upload and the download of the\n"
    "              five outputs on cuda (the sources stay cached on the device)\n"
    "  --eps E     softening length (default 0)\n"
    "  --check N   targets sampled for the error (default 64; 16 at most for cpu fp64)\n"
    "  JSON keys: workload, backend, device, precision, sources, targets, eps, pairs_per_s,\n"
    "  seconds, repeat, max_rel_error (magnitude; max over the sample of |v - ref| / |ref|),\n"
    "  max_rel_error_potential, error_metric, error_reference (the CPU fp64 evaluator, or\n"
    "  for cpu fp64 runs the float64 brute-force reference), skipped (coincidences),\n"
    "  peak_rss_bytes (getrusage ru_maxrss * 1024), peak_device_bytes (CUDA evaluator's\n"
    "  peak allocation; 0 on cpu), setup.\n",
    run_field}};

}  // namespace
}  // namespace simscope::bench
