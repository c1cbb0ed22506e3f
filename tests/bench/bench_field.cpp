// simscope-bench field: pairs per second of the direct field evaluation (compute/field).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <omp.h>
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

/// T targets on the planes z = -Z and z = +Z (n x n each over [-995, 995]^2, n = ceil(sqrt(T/2)),
/// truncated to T), or on the one plane z = 0 when Z = 0 (n = ceil(sqrt(T))).
field::Targets bench_planes(std::size_t T, double Z) {
  if (Z != 0) {
    field::Targets t = bench_targets(T);
    for (double& z : t.z) z = z < 0 ? -Z : Z;
    return t;
  }
  const std::size_t n = std::max<std::size_t>(2, std::size_t(std::ceil(std::sqrt(double(T)))));
  field::Targets t;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n && t.size() < T; ++j) {
      t.x.push_back(-995.0 + 1990.0 * double(i) / double(n - 1));
      t.y.push_back(-995.0 + 1990.0 * double(j) / double(n - 1));
      t.z.push_back(0);
    }
  return t;
}

/// |E| relative RMS and max error of `v` at the sampled targets idx against `ref` (vectors).
void field_errors(const field::Result& v, const std::vector<std::size_t>& idx,
                  const field::Result& ref, double& rms, double& mx) {
  double num = 0, den = 0;
  mx = 0;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const std::size_t i = idx[k];
    const double d[3] = {double(v.ex[i]) - ref.ex[k], double(v.ey[i]) - ref.ey[k],
                         double(v.ez[i]) - ref.ez[k]};
    const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const double e2 = double(ref.ex[k]) * ref.ex[k] + double(ref.ey[k]) * ref.ey[k] +
                      double(ref.ez[k]) * ref.ez[k];
    num += d2, den += e2;
    if (e2 > 0) mx = std::max(mx, std::sqrt(d2 / e2));
  }
  rms = den > 0 ? std::sqrt(num / den) : 0;
}

int run_field_tree(const Args& a, const BackendChoice& choice, std::size_t P, std::size_t T,
                   int repeat, std::size_t seed, const field::Options& base, std::size_t check) {
  const std::string dist =
      a.choice("distribution", "uniform", {"uniform", "gaussian", "dipoles", "lattice", "point"});
  const double Z = a.number("plane-offset", 1000, -1e12, 1e12);
  field::Options o = base;
  o.tolerance = a.number("tolerance", 1e-5, 1e-7, 1e-3);
  const std::size_t direct_targets = std::size_t(a.count("direct-targets", 256));
  // point: every source at (1, 1, 1) with q = 1, the seed's torch.ones positions and charges.
  field::Sources s;
  if (dist == "point")
    s.x.assign(P, 1.0f), s.y.assign(P, 1.0f), s.z.assign(P, 1.0f), s.q.assign(P, 1.0f);
  else
    s = field::generate_sources(dist, P, 750.0, seed);
  s.generation = 1;
  const field::Targets t = bench_planes(T, Z);
  auto ev = field::make_evaluator(field::Method::Tree, choice.backend);

  field::Result first;
  const double cpu0 = process_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  ev->evaluate(s, t, o, first);  // builds the tree
  const double first_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double first_cpu = process_cpu_seconds() - cpu0;
  const double cpu1 = process_cpu_seconds();
  std::vector<double> evals, walls, measured_rms, measured_max;
  field::Result r = first;
  for (int k = 0; k < repeat; ++k) {
    const auto t1 = std::chrono::steady_clock::now();
    ev->evaluate(s, t, o, r);  // the tree kept: evaluation only
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
    evals.push_back(r.tree.eval_seconds);
    measured_rms.push_back(r.tree.rms_rel_error);
    measured_max.push_back(r.tree.max_rel_error);
  }
  const double eval_cpu = repeat > 0 ? (process_cpu_seconds() - cpu1) / repeat : 0;
  // Direct on a subset of the targets (the bench's back end, fp32 as the GUI's default), scaled
  // by T / subset: direct is linear in the targets.
  std::vector<std::size_t> didx;
  const field::Targets dt = sample(t, direct_targets, didx);
  auto direct = field::make_evaluator(field::Method::Direct, choice.backend);
  field::Options dop = base;
  field::Result dr;
  direct->evaluate(s, dt, dop, dr);  // warm-up (CUDA upload)
  const auto t2 = std::chrono::steady_clock::now();
  direct->evaluate(s, dt, dop, dr);
  const double direct_sub =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count();
  const double direct_estimate = direct_sub * double(T) / double(dt.size());
  // Independent check: the CPU fp64 direct evaluator at `check` sampled targets.
  std::vector<std::size_t> cidx;
  const field::Targets ct = sample(t, check, cidx);
  field::Options ro = base;
  ro.precision = Precision::Fp64;
  field::Result ref;
  field::make_evaluator(field::Method::Direct, Backend::Cpu)->evaluate(s, ct, ro, ref);
  double rms = 0, mx = 0;
  field_errors(r, cidx, ref, rms, mx);

  // --new-planes: the window's path over the kept tree. The multipoles completed as in the
  // window's idle time (Evaluator::complete_cache), then one plane at each z, each evaluated
  // once as the window's frame (Options::defer_error: the tree evaluation only, timed with its
  // CPU time), then its error measured (measure_deferred, which may redo it a rung tighter).
  std::string np_z, np_eval, np_cpu, np_rms, np_measured, np_redone, np_m2l, np_p2p;
  std::vector<double> np_evals;
  if (const std::string list = a.str("new-planes", ""); !list.empty()) {
    ev->complete_cache();
    const std::size_t n =
        std::max<std::size_t>(2, std::size_t(std::ceil(std::sqrt(double(T)))));
    std::size_t at = 0;
    auto join = [](std::string& s, const std::string& v) { s += (s.empty() ? "" : ",") + v; };
    auto num = [](double v) {
      char b[32];
      std::snprintf(b, sizeof b, "%.4g", v);
      return std::string(b);
    };
    while (at <= list.size()) {
      const std::size_t comma = std::min(list.find(',', at), list.size());
      const std::string word = list.substr(at, comma - at);
      at = comma + 1;
      char* end = nullptr;
      const double z = std::strtod(word.c_str(), &end);
      if (word.empty() || *end || !std::isfinite(z))
        throw UsageError("--new-planes: expected numbers separated by commas, got '" + word +
                         "'");
      field::Targets pt = bench_planes(n * n, 0);  // the n x n plane z = 0, moved to z
      pt.z.assign(pt.size(), z);
      field::Options po = o;
      po.defer_error = true;
      field::Result pr;
      const double c0 = process_cpu_seconds();
      ev->evaluate(s, pt, po, pr);
      const double cpu = process_cpu_seconds() - c0;
      const double eval1 = pr.tree.eval_seconds;
      const std::uint64_t m2l1 = pr.tree.m2l;
      const double p2p1 = pr.tree.p2p_pairs;
      const bool redone = ev->measure_deferred(pr);
      std::vector<std::size_t> pidx;
      const field::Targets pct = sample(pt, check, pidx);
      field::Result pref;
      field::make_evaluator(field::Method::Direct, Backend::Cpu)->evaluate(s, pct, ro, pref);
      double prms = 0, pmx = 0;
      field_errors(pr, pidx, pref, prms, pmx);
      join(np_z, num(z)), join(np_eval, num(eval1)), join(np_cpu, num(cpu));
      join(np_rms, num(prms)), join(np_measured, num(pr.tree.rms_rel_error));
      join(np_redone, std::to_string(redone ? pr.tree.refinements : 0));
      join(np_m2l, std::to_string(m2l1)), join(np_p2p, num(p2p1));
      np_evals.push_back(eval1);
    }
  }

  const double build = first.tree.build_seconds, eval = median(evals);
  Json j;
  j.add("workload", "field")
      .add("method", "tree")
      .add("backend", to_string(choice.backend))
      .add("device", choice.backend == Backend::Cuda ? cuda_status().device : cpu_description())
      .add("distribution", dist)
      .add("sources", std::int64_t(P))
      .add("targets", std::int64_t(T))
      .add("plane_offset", Z)
      .add("eps", o.eps)
      .add("tolerance", o.tolerance)
      .add("order", std::int64_t(r.tree.order))
      .add("theta", r.tree.theta)
      .add("refinements_first", std::int64_t(first.tree.refinements))
      .add("build_seconds", build)
      .add("first_eval_seconds", first.tree.eval_seconds)
      .add("first_seconds", first_seconds)
      .add("first_cpu_seconds", first_cpu)
      .add("eval_cpu_seconds", eval_cpu)
      .add("eval_seconds", eval)
      .add("eval_wall_seconds", median(walls))
      .add("error_seconds", r.tree.error_seconds)
      .add("repeat", std::int64_t(repeat))
      .add("rms_rel_error", rms)
      .add("max_rel_error", mx)
      .add("error_check_targets", std::int64_t(cidx.size()))
      .add("measured_rms_rel_error", median(measured_rms))
      .add("measured_max_rel_error", median(measured_max))
      .add("measured_error_samples", std::uint64_t(r.tree.error_samples))
      .add("direct_seconds_estimate", direct_estimate)
      .add("direct_targets_timed", std::int64_t(dt.size()))
      .add("speedup_build_and_eval", direct_estimate / (build + first.tree.eval_seconds))
      .add("speedup_eval", direct_estimate / eval)
      .add("m2l", std::uint64_t(r.tree.m2l))
      .add("p2p_pairs", r.tree.p2p_pairs)
      .add("tree_bytes", r.tree.tree_bytes)
      .add("tree_bytes_per_source", r.tree.tree_bytes / double(P))
      .add("skipped", r.skipped_coincidences);
  if (!np_z.empty())
    j.add("new_plane_z", np_z)
        .add("new_plane_eval_seconds", np_eval)
        .add("new_plane_cpu_seconds", np_cpu)
        .add("new_plane_eval_median_seconds", median(np_evals))
        .add("new_plane_eval_max_seconds", *std::max_element(np_evals.begin(), np_evals.end()))
        .add("new_plane_m2l", np_m2l)
        .add("new_plane_p2p_pairs", np_p2p)
        .add("new_plane_rms_rel_error", np_rms)
        .add("new_plane_measured_rms_rel_error", np_measured)
        .add("new_plane_refinements", np_redone);
  j.add("peak_rss_bytes", peak_rss_bytes())
      .add("setup", "sources '" + dist +
                        (dist == "point" ? "' at (1,1,1), q = 1" : "' in [-750,750]^3") +
                        ", seed " + std::to_string(seed) +
                        "; targets on z=-Z and z=+Z (one plane z=0 when Z=0), n x n over "
                        "[-995,995]^2");
  std::printf("%s\n", j.str().c_str());
  return 0;
}

int run_field(const std::vector<std::string>& words) {
  const Args a(words,
               {"backend", "sources", "targets", "precision", "repeat", "seed", "eps", "check",
                "method", "tolerance", "distribution", "plane-offset", "direct-targets",
                "threads", "new-planes"});
  if (const std::int64_t n = a.count("threads", 0); n > 0) omp_set_num_threads(int(n));
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
  if (a.choice("method", "direct", {"direct", "tree"}) == "tree")
    return run_field_tree(a, choice, P, T, repeat, seed, o, check);
  for (const char* f : {"tolerance", "distribution", "plane-offset", "direct-targets", "new-planes"})
    if (!a.str(f, "").empty())
      throw UsageError(std::string("--") + f + " applies to --method tree only");
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
    "[--eps E] [--seed S] [--check N] [--threads N] [--method direct|tree [--tolerance T] [--distribution "
    "uniform|gaussian|dipoles|lattice|point] [--plane-offset Z] [--direct-targets N] "
    "[--new-planes Z1,Z2,...]]",
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
    "  --threads N OpenMP threads of the whole run, tree and direct alike (default: OpenMP's,\n"
    "              OMP_NUM_THREADS or every core); the count shows in `device`\n"
    "  JSON keys: workload, backend, device, precision, sources, targets, eps, pairs_per_s,\n"
    "  seconds, repeat, max_rel_error (magnitude; max over the sample of |v - ref| / |ref|),\n"
    "  max_rel_error_potential, error_metric, error_reference (the CPU fp64 evaluator, or\n"
    "  for cpu fp64 runs the float64 brute-force reference), skipped (coincidences),\n"
    "  peak_rss_bytes (getrusage ru_maxrss * 1024), peak_device_bytes (CUDA evaluator's\n"
    "  peak allocation; 0 on cpu), setup.\n"
    "  --method tree: the tree method (compute/field/tree) to --tolerance (default 1e-5) on\n"
    "  sources --distribution (default uniform) in [-750,750]^3 (point: all P at (1, 1, 1)\n"
    "  with q = 1, the seed's torch.ones), targets on z = -Z and +Z\n"
    "  (--plane-offset Z, default 1000; 0: one plane z = 0 through the sources). The first\n"
    "  evaluation builds the tree (build_seconds, first_eval_seconds), then R evaluations keep\n"
    "  it (eval_seconds: the median of their traversal + expansions + near field;\n"
    "  eval_wall_seconds with the measured-error sample). rms_rel_error / max_rel_error: |E|\n"
    "  vector error at --check sampled targets against the CPU fp64 direct evaluator;\n"
    "  measured_*: the evaluator's own sampled error. direct_seconds_estimate: direct on the\n"
    "  same back end timed on --direct-targets targets (default 256) and scaled to T.\n"
    "  first_cpu_seconds / eval_cpu_seconds: CPU time (all threads) of the first evaluation\n"
    "  and of one kept-tree evaluation; tree_bytes_per_source: the tree's memory (sorted\n"
    "  sources, cells, multipoles) per source, beside the input's 16 bytes.\n"
    "  --new-planes Z1,Z2,...: then the window's path over the kept tree: the multipoles\n"
    "  completed (Evaluator::complete_cache, the window's idle time), then one n x n plane\n"
    "  (n = ceil(sqrt(T)), over [-995,995]^2) at each z = Zi, never visited before, evaluated\n"
    "  once as the window's frame (deferred error) and its error measured after. Keys, one\n"
    "  comma-separated value per plane: new_plane_z, new_plane_eval_seconds (the tree's\n"
    "  evaluation), new_plane_cpu_seconds (CPU time of all threads during it), new_plane_m2l,\n"
    "  new_plane_p2p_pairs, new_plane_rms_rel_error (against the CPU fp64 direct evaluator at\n"
    "  --check targets, after the measurement), new_plane_measured_rms_rel_error,\n"
    "  new_plane_refinements (evaluations redone by the measured error); and\n"
    "  new_plane_eval_median_seconds, new_plane_eval_max_seconds.\n",
    run_field}};

}  // namespace
}  // namespace simscope::bench
