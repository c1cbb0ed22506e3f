// simscope-bench lsq: seconds per solve of the per-pixel least squares with gaps (compute/lsq).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench.hpp"
#include "core/backend.hpp"
#include "lsq/lsq.hpp"
#include "lsq/lsq_internal.hpp"

namespace simscope::bench {
namespace {

/// User + system CPU seconds of this process so far (all threads).
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

int run_lsq(const std::vector<std::string>& words) {
  const Args a(words,
               {"backend", "height", "width", "observations", "unknowns", "nan-fraction", "noise",
                "precision", "method", "lambda", "design", "repeat", "seed", "check"});
  const std::string backend_name = a.choice("backend", "cpu", {"cpu", "cuda", "auto"});
  lsq::SynthSpec s;
  s.height = std::size_t(a.count("height", 500));
  s.width = std::size_t(a.count("width", 500));
  s.m = std::size_t(a.count("observations", 100));
  s.n = std::size_t(a.count("unknowns", 50));
  s.nan_fraction = a.number("nan-fraction", 0.2, 0, 1);
  s.noise = a.number("noise", 0.01, 0, 1e12);
  s.seed = std::uint64_t(a.count("seed", 1));
  s.design = a.choice("design", "random", {"random", "polynomial", "gaussian_bands"});
  lsq::Options o;
  const std::string prec = a.choice("precision", "fp64", {"fp32", "fp64"});
  o.precision = prec == "fp32" ? lsq::Precision::Fp32 : lsq::Precision::Fp64;
  const std::string method =
      a.choice("method", "auto", {"auto", "normal", "qr", "svd", "downdate"});
  o.method = method == "normal"     ? lsq::Method::Normal
             : method == "qr"       ? lsq::Method::Qr
             : method == "svd"      ? lsq::Method::Svd
             : method == "downdate" ? lsq::Method::Downdate
                                    : lsq::Method::Auto;
  o.lambda = a.number("lambda", 0, 0, 1e12);
  const int repeat = int(a.count("repeat", 3));
  const std::size_t check = std::size_t(a.count("check", 64));

  const BackendChoice choice = choose_backend(backend_name);
  const lsq::Synth syn = lsq::generate(s);
  auto solver = lsq::make_solver(choice.backend);
  lsq::Result r;
  const auto w0 = std::chrono::steady_clock::now();
  solver->solve(syn.cube, syn.design, o, r);  // warm-up (first-touch of the outputs, CUDA set-up)
  const double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  std::vector<double> secs;
  const double cpu0 = cpu_seconds();
  for (int k = 0; k < repeat; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    solver->solve(syn.cube, syn.design, o, r);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double sec = median(secs);
  const double cpu_per_solve = (cpu_seconds() - cpu0) / repeat;

  // Error on a sample of pixels against a float64 SVD of each pixel's observed rows (the CPU
  // back end's fallback, JacobiSVD: accurate to ~eps cond(A_p)), as |x - ref| / |ref|.
  const std::size_t P = syn.cube.pixels();
  const std::size_t stride = std::max<std::size_t>(1, P / check);
  lsq::detail::PixelData px;
  std::vector<double> ref(s.n);
  double max_err = 0;
  std::int64_t sampled = 0;
  for (std::size_t p = 0; p < P && sampled < std::int64_t(check); p += stride) {
    lsq::detail::gather_pixel(syn.cube, p, px);
    if (px.rows.empty()) continue;
    lsq::detail::svd_pixel<double>(syn.design, px, o.lambda, ref.data());
    double num = 0, den = 0;
    for (std::size_t k = 0; k < s.n; ++k) {
      const double d = r.solution[k * P + p] - ref[k];
      num += d * d;
      den += ref[k] * ref[k];
    }
    max_err = std::max(max_err, den > 0 ? std::sqrt(num / den) : std::sqrt(num));
    ++sampled;
  }

  Json j;
  j.add("workload", "lsq")
      .add("backend", to_string(choice.backend))
      .add("device", choice.backend == Backend::Cuda ? cuda_status().device : cpu_description())
      .add("precision", prec)
      .add("method", method)
      .add("pixels", std::int64_t(P))
      .add("height", std::int64_t(s.height))
      .add("width", std::int64_t(s.width))
      .add("observations", std::int64_t(s.m))
      .add("unknowns", std::int64_t(s.n))
      .add("nan_fraction", s.nan_fraction)
      .add("lambda", o.lambda)
      .add("seconds", sec)
      .add("seconds_min", *std::min_element(secs.begin(), secs.end()))
      .add("first_seconds", first)
      .add("pixels_per_s", double(P) / sec)
      .add("cpu_seconds", cpu_per_solve)
      .add("repeat", std::int64_t(repeat))
      .add("max_rel_error", max_err)
      .add("error_metric", "max over sampled pixels of |x - ref|_2 / |ref|_2")
      .add("error_reference", "float64 JacobiSVD of each pixel's observed rows on " +
                                  std::to_string(sampled) + " sampled pixels")
      .add("status_ok", std::uint64_t(r.status_counts[lsq::kOk]))
      .add("status_underdetermined", std::uint64_t(r.status_counts[lsq::kUnderdetermined]))
      .add("status_rank_deficient", std::uint64_t(r.status_counts[lsq::kRankDeficient]))
      .add("status_all_missing", std::uint64_t(r.status_counts[lsq::kAllMissing]))
      .add("fallback_pixels", r.fallback_pixels)
      .add("downdate_pixels", r.downdate_pixels)
      .add("minnorm_pixels", r.minnorm_pixels)
      .add("gap_free_pixels", std::uint64_t(std::count(r.count.begin(), r.count.end(),
                                                       std::int32_t(s.m))))
      .add("peak_rss_bytes", peak_rss_bytes())
      .add("peak_device_bytes", solver->peak_device_bytes())
      .add("cube_bytes", std::int64_t(syn.cube.bytes.size()))
      .add("setup", "synthetic cube (float32, smooth maps, design '" + s.design + "', noise " +
                        std::to_string(s.noise) + ", seed " + std::to_string(s.seed) +
                        "), NaN at random");
  std::printf("%s\n", j.str().c_str());
  return 0;
}

const Registration reg{Bench{
    "lsq",
    "lsq [--backend cpu|cuda] [--height 500] [--width 500] [--observations 100] [--unknowns 50] "
    "[--nan-fraction 0.2] [--precision fp64|fp32] [--method auto|normal|qr|svd|downdate] "
    "[--lambda L] "
    "[--repeat R] [--design random|polynomial|gaussian_bands] [--noise S] [--seed S] [--check N]",
    "  Per-pixel least squares with gaps (compute/lsq): H x W pixels, M observations, N\n"
    "  unknowns, a fraction of the entries NaN at random (the defaults: 500 x 500, M = 100,\n"
    "  N = 50, 20 % NaN, the overdetermined case; the seeds' own A is 50 x 100, --observations\n"
    "  50 --unknowns 100, as the presets seed-lsq and seed-lsq-rank (--nan-fraction 0)).\n"
    "  Data: the synthetic generator (float32 cube).\n"
    "  --backend cpu|cuda|auto (default cpu)   --precision fp64 (default) | fp32\n"
    "  --method auto (default) | normal | qr | svd (qr/svd: per-pixel, slow) | downdate\n"
    "              (auto: per pixel the downdate, the Gram path or the minimum-norm path)\n"
    "  --repeat R  timed solves after one warm-up solve; seconds is their median (default 3):\n"
    "              wall time of Solver::solve() (cube already in host memory; on cuda with\n"
    "              the downloads of the outputs, and the upload of the cube in every solve\n"
    "              unless it fits one chunk: then it stays on the device after the warm-up,\n"
    "              as in the GUI). first_seconds: the warm-up solve (set-up, upload).\n"
    "  --check N   pixels sampled for the error (default 64)\n"
    "  JSON keys: workload, backend, device, precision, method, pixels, height, width,\n"
    "  observations, unknowns, nan_fraction, lambda, seconds, seconds_min, first_seconds,\n"
    "  pixels_per_s, cpu_seconds (user + system CPU time per timed solve, all threads: a\n"
    "  load-independent figure on a busy machine; seconds ~ cpu_seconds / threads when the\n"
    "  cores are free),\n"
    "  repeat, max_rel_error (max over the sample of |x - ref| / |ref| against a float64 SVD\n"
    "  of the pixel's observed rows, Tikhonov-filtered when lambda > 0), error_metric, "
    "error_reference,\n"
    "  status_ok, status_underdetermined, status_rank_deficient, status_all_missing,\n"
    "  fallback_pixels, downdate_pixels, minnorm_pixels (CPU paths), gap_free_pixels (all M\n"
    "  observed: the shared SVD's product), peak_rss_bytes (getrusage), "
    "peak_device_bytes (CUDA solver's peak\n"
    "  allocation; 0 on cpu), cube_bytes, setup.\n",
    run_lsq}};

}  // namespace
}  // namespace simscope::bench
