// The CUDA field evaluator against the CPU one (the reference back end). Every test skips with
// the CUDA runtime's reason where no device is usable (CPU-only machines, CPU-only builds).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <thread>

#include "core/backend.hpp"
#include "test_cuda_skip.hpp"
#include "test_field_util.hpp"

#ifdef SIMSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace simscope::field {
namespace {

/// Copies n floats from device memory; returns the cudaError_t (or -1 without CUDA).
int copy_from_device(float* dst, const float* src, std::size_t n) {
#ifdef SIMSCOPE_HAVE_CUDA
  return int(cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDeviceToHost));
#else
  (void)dst, (void)src, (void)n;
  return -1;
#endif
}

using test::random_sources;
using test::result_error;

/// True when compute-sanitizer (tests/gpu/run.sh: memcheck, racecheck) instruments this process:
/// its kernels then run many times slower, so wall-clock bounds do not apply and the largest
/// cases shrink. SIMSCOPE_TEST_SANITIZER=1 forces it; otherwise the tool's injection libraries are
/// looked for in the environment and in /proc/self/maps (call after the CUDA runtime started).
bool under_compute_sanitizer() {
  if (const char* e = std::getenv("SIMSCOPE_TEST_SANITIZER")) return std::strcmp(e, "1") == 0;
  auto names_tool = [](const std::string& s) {
    return s.find("compute-sanitizer") != std::string::npos ||
           s.find("libsanitizer-") != std::string::npos ||
           s.find("TreeLauncher") != std::string::npos;
  };
  for (const char* v : {"CUDA_INJECTION64_PATH", "LD_PRELOAD"})
    if (const char* e = std::getenv(v); e && names_tool(e)) return true;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (names_tool(line)) return true;
  return false;
}

// Tolerances of CUDA fp32 results. With random-sign strengths (random_sources' default q in
// [-1, 1]) the field and above all the potential are small residuals of larger terms, and each
// back end's fp32 result is up to ~1.2e-6 (relative to the plane's maximum) off float64: the CPU
// from its SIMD-lane sums, the GPU from its 32-term sub-tile sums and rsqrt.approx (relative
// error up to 2^-22.9). An exact CPU emulation of the kernel's arithmetic on these tests' inputs
// differs from the CPU back end by up to 1.8e-6 (planes outside the sources; 0.9e-6 through
// them). kFp32Tol leaves room over that and still fails on any real bug (a lost tile or a wrong
// sign is an O(1e-2..1) error). With positive strengths the sums are well conditioned and 1e-6
// holds (emulated: 1.2e-7 for the million-source cases below).
constexpr double kFp32Tol = 5e-6;
constexpr double kTol = 1e-6;  // fp64, and fp32 with positive strengths

Options opts(Precision p, double eps = 0, double k = 1) {
  Options o;
  o.precision = p, o.eps = eps, o.k = k;
  return o;
}

Result eval(Evaluator& ev, const Sources& s, const Targets& t, const Options& o,
            Progress* pr = nullptr) {
  Result r;
  ev.evaluate(s, t, o, r, pr);
  return r;
}

Sources stamped(Sources s) {  // a nonzero generation, as generate/load_sources give
  static std::uint64_t g = 1u << 30;
  s.generation = ++g;
  return s;
}

TEST(FieldCuda, MakeEvaluatorWithoutDevice) {
  if (cuda_status().usable) GTEST_SKIP() << "a CUDA device is usable here";
  EXPECT_THROW(make_evaluator(Backend::Cuda), Error);
}

struct Case {
  Precision precision;
  double eps;
  friend std::ostream& operator<<(std::ostream& o, const Case& c) {
    return o << (c.precision == Precision::Fp32 ? "fp32" : "fp64") << ", eps " << c.eps;
  }
};
class CudaVsCpu : public ::testing::TestWithParam<Case> {};

// Planes through and outside the sources, a box, sizes that are not multiples of the tile or the
// block's targets, one target and a million sources (sources split over blocks and chunks).
TEST_P(CudaVsCpu, SameResults) {
  SKIP_WITHOUT_CUDA();
  const Case c = GetParam();
  auto gpu = make_evaluator(Backend::Cuda);
  auto cpu = make_evaluator(Backend::Cpu);
  EXPECT_EQ(gpu->backend(), Backend::Cuda);
  const Options o = opts(c.precision, c.eps, 1.5);
  const Sources s = stamped(random_sources(3001, 1.0, 4));
  const double tol = c.precision == Precision::Fp32 ? kFp32Tol : kTol;
  for (PlaneKind kind : {PlaneKind::XY, PlaneKind::YZ, PlaneKind::Box})
    for (double offset : {0.05, 1.6}) {
      Grid g;
      g.kind = kind, g.offset = offset, g.size = 37, g.half_width = 1.3;
      const Targets t = make_targets(g);
      const Result rg = eval(*gpu, s, t, o), rc = eval(*cpu, s, t, o);
      EXPECT_LE(result_error(rg, rc), tol) << int(kind) << " " << offset;
      EXPECT_EQ(rg.skipped_coincidences, rc.skipped_coincidences);
      EXPECT_TRUE(test::all_finite(rg));
    }
  // Positive strengths (well conditioned): 1e-6 in both precisions. Under compute-sanitizer
  // smaller (the sources are still split over blocks; 4e10 instrumented pairs could take minutes).
  const bool small = under_compute_sanitizer();
  Targets one;
  one.x = {0.2}, one.y = {0.1}, one.z = {0.4};
  const Sources big = stamped(random_sources(small ? 100000 : 1000000, 1.0, 8, 0.5, 1.5));
  EXPECT_LE(result_error(eval(*gpu, big, one, o), eval(*cpu, big, one, o)), kTol);
  Grid g;
  g.size = small ? 50 : 200, g.offset = 1.5;
  const Targets t = make_targets(g);
  // The whole plane on the GPU (in fp64 several chunks), every 37th target on the CPU: the CPU's
  // 4e10 fp64 pairs would take over a minute with the other tests running beside (ctest -j).
  const Result rg = eval(*gpu, big, t, o);
  Targets few;
  Result sub;
  for (std::size_t i = 0; i < t.size(); i += 37) {
    few.x.push_back(t.x[i]), few.y.push_back(t.y[i]), few.z.push_back(t.z[i]);
    sub.magnitude.push_back(rg.magnitude[i]), sub.potential.push_back(rg.potential[i]);
    sub.ex.push_back(rg.ex[i]), sub.ey.push_back(rg.ey[i]), sub.ez.push_back(rg.ez[i]);
  }
  EXPECT_LE(result_error(sub, eval(*cpu, big, few, o)), kTol);
}

INSTANTIATE_TEST_SUITE_P(Field, CudaVsCpu,
                         ::testing::Values(Case{Precision::Fp32, 0}, Case{Precision::Fp64, 0},
                                           Case{Precision::Fp32, 0.05},
                                           Case{Precision::Fp64, 0.05}),
                         [](const auto& info) {
                           return std::string(info.param.precision == Precision::Fp32 ? "fp32"
                                                                                      : "fp64") +
                                  (info.param.eps > 0 ? "_eps" : "_noeps");
                         });

TEST(FieldCuda, CoincidencesSkippedAndCounted) {
  SKIP_WITHOUT_CUDA();
  Sources s = random_sources(3000, 1.0, 5);
  s.x[17] = 0.5f, s.y[17] = 0.0f, s.z[17] = 0.0f;
  s.x[1500] = -1.0f, s.y[1500] = 1.0f, s.z[1500] = 0.0f;
  s.x[2999] = 0.5f, s.y[2999] = 0.0f, s.z[2999] = 0.0f, s.q[2999] = 0.0f;
  s = stamped(s);
  Grid g;
  g.size = 5, g.half_width = 1;
  const Targets t = make_targets(g);
  auto gpu = make_evaluator(Backend::Cuda);
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    const Result rg = eval(*gpu, s, t, opts(p));
    Result ref;
    evaluate_reference(s, t, opts(p), ref);
    EXPECT_EQ(rg.skipped_coincidences, 3u);
    EXPECT_TRUE(test::all_finite(rg));
    EXPECT_LE(result_error(rg, ref), p == Precision::Fp32 ? kFp32Tol : kTol);
  }
}

// Coincidences on targets in the last, partial block of targets (1024 targets per block at the
// default 4 per thread) and on sources at both ends of the blocks' source ranges (on an H200:
// [0, 1536) and [1536, 3001)) and in the last, partial tile; exact grid coordinates
// (u = -2 + i/8), so that fp32 and fp64 see the same coincidences.
TEST(FieldCuda, CoincidencesInTails) {
  SKIP_WITHOUT_CUDA();
  Grid g;
  g.size = 33, g.half_width = 2, g.offset = 0.25;  // 1089 targets
  const Targets t = make_targets(g);
  Sources s = random_sources(3001, 2.0, 6);
  const std::size_t src[] = {0, 1535, 1536, 2999, 3000};
  const std::size_t tgt[] = {1088, 1030, 0, 1088, 700};
  for (int k = 0; k < 5; ++k)
    s.x[src[k]] = float(t.x[tgt[k]]), s.y[src[k]] = float(t.y[tgt[k]]),
    s.z[src[k]] = float(t.z[tgt[k]]);
  s = stamped(s);
  auto gpu = make_evaluator(Backend::Cuda);
  auto cpu = make_evaluator(Backend::Cpu);
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    const Result rg = eval(*gpu, s, t, opts(p)), rc = eval(*cpu, s, t, opts(p));
    EXPECT_EQ(rg.skipped_coincidences, 5u);
    EXPECT_EQ(rc.skipped_coincidences, 5u);
    EXPECT_TRUE(test::all_finite(rg));
    EXPECT_LE(result_error(rg, rc), p == Precision::Fp32 ? kFp32Tol : kTol);
  }
}

// issue #10, section 4, on the GPU: the kernel works relative to the same local origin as the
// CPU (the sources shifted as they fill shared memory, the cached upload untouched). The single
// source at x = 1e6 with targets 0.01 away: 1e-5 of float64 (the centre's |E| is 1e4); the
// cluster at (1e6, -2e6, 5e5): 1e-5 RMS relative of float64, with and without a real
// coincidence (skipped and counted); both against the CPU back end too. The same Sources
// evaluated before on a plane near 0 (another origin) checks that the cache is not shifted.
TEST(FieldCuda, LargeCoordinates) {
  SKIP_WITHOUT_CUDA();
  auto gpu = make_evaluator(Backend::Cuda);
  auto cpu = make_evaluator(Backend::Cpu);
  const auto one = test::far_single_source();
  const Sources s1 = stamped(one.sources);
  Result ref;
  evaluate_reference(s1, one.targets, opts(Precision::Fp64), ref);
  for (Precision p : {Precision::Fp32, Precision::Fp64}) {
    const Result rg = eval(*gpu, s1, one.targets, opts(p));
    EXPECT_EQ(rg.skipped_coincidences, 0u);
    EXPECT_NEAR(rg.magnitude[40], 1e4, 1e-5 * 1e4);
    EXPECT_LE(result_error(rg, ref), 1e-5);
    EXPECT_LE(result_error(rg, eval(*cpu, s1, one.targets, opts(p))), 1e-5);
  }
  for (bool coincide : {false, true}) {
    const auto c = test::far_cluster(coincide);
    const Sources s = stamped(c.sources);
    Grid near0;
    near0.size = 9, near0.offset = 0.5;
    eval(*gpu, s, make_targets(near0), opts(Precision::Fp32));  // origin 0 first, same cache
    evaluate_reference(s, c.targets, opts(Precision::Fp64), ref);
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
      const Result rg = eval(*gpu, s, c.targets, opts(p));
      EXPECT_LE(test::rms_relative(rg, ref), p == Precision::Fp32 ? 1e-5 : 1e-7) << coincide;
      EXPECT_LE(test::rms_relative(rg, eval(*cpu, s, c.targets, opts(p))), 1e-5) << coincide;
      EXPECT_EQ(rg.skipped_coincidences, coincide ? 1u : 0u);
      EXPECT_TRUE(test::all_finite(rg));
    }
  }
}

// Edge sizes and buffer reuse: no targets, no sources, and target counts that shrink below and
// grow past the allocated capacity (the device arrays are laid out by the current count).
TEST(FieldCuda, EmptyInputsAndTargetBufferReuse) {
  SKIP_WITHOUT_CUDA();
  auto gpu = make_evaluator(Backend::Cuda);
  auto cpu = make_evaluator(Backend::Cpu);
  const Sources s = stamped(random_sources(700, 1.0, 12, 0.5, 1.5));
  Result r = eval(*gpu, s, Targets{}, opts(Precision::Fp32));
  EXPECT_TRUE(r.magnitude.empty() && r.potential.empty());
  EXPECT_EQ(r.skipped_coincidences, 0u);
  Grid g;
  g.size = 9, g.offset = 0.3;
  const Targets t9 = make_targets(g);
  r = eval(*gpu, stamped(Sources{}), t9, opts(Precision::Fp64));
  ASSERT_EQ(r.magnitude.size(), t9.size());
  for (const auto& name : output_names())
    for (float v : output(r, name)) EXPECT_EQ(v, 0.0f) << name;
  for (int size : {37, 5, 2, 23, 41}) {
    g.size = size, g.kind = size == 23 ? PlaneKind::Box : PlaneKind::XZ;
    const Targets t = make_targets(g);
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
      Progress pr;
      const Result rg = eval(*gpu, s, t, opts(p, 0.01), &pr), rc = eval(*cpu, s, t, opts(p, 0.01));
      EXPECT_LE(result_error(rg, rc), p == Precision::Fp32 ? kFp32Tol : kTol) << size;
      EXPECT_EQ(pr.fraction.load(), 1.0);
      std::vector<float> host(t.size());
      ASSERT_EQ(copy_from_device(host.data(), gpu->device_output("ez").get(), host.size()), 0);
      EXPECT_EQ(host, rg.ez) << size;
    }
  }
  // Same generation but other sources of another size: the cache key includes the size, so
  // this re-uploads (the last 300 sources, so that a stale upload would give other values).
  Sources fewer = s;
  for (auto* v : {&fewer.x, &fewer.y, &fewer.z, &fewer.q}) v->erase(v->begin(), v->begin() + 400);
  const Targets t = make_targets(g);
  EXPECT_LE(result_error(eval(*gpu, fewer, t, opts(Precision::Fp64)),
                         eval(*cpu, fewer, t, opts(Precision::Fp64))),
            kTol);
}

// The cached sources follow Sources::generation; generation 0 is re-uploaded every time.
TEST(FieldCuda, SourceCacheAndDeviceOutputs) {
  SKIP_WITHOUT_CUDA();
  auto gpu = make_evaluator(Backend::Cuda);
  auto cpu = make_evaluator(Backend::Cpu);
  Grid g;
  g.size = 33, g.offset = 1.2;
  const Targets t = make_targets(g);
  EXPECT_EQ(gpu->device_output("magnitude"), nullptr);
  Sources a = random_sources(5000, 1, 1), b = random_sources(5000, 1, 2);  // generation 0
  for (const Sources* s : {&a, &b, &a})  // random signs: kFp32Tol (a stale upload: O(1))
    EXPECT_LE(result_error(eval(*gpu, *s, t, opts(Precision::Fp32)),
                           eval(*cpu, *s, t, opts(Precision::Fp32))),
              kFp32Tol);
  const Sources c = generate_sources("gaussian", 7000, 1, 3);
  const Sources d = generate_sources("gaussian", 7000, 1, 4);  // same size, new generation
  for (const Sources* s : {&c, &d, &c})                        // q = 1
    EXPECT_LE(result_error(eval(*gpu, *s, t, opts(Precision::Fp32)),
                           eval(*cpu, *s, t, opts(Precision::Fp32))),
              kTol);
  const Result r = eval(*gpu, d, t, opts(Precision::Fp32));
  for (const auto& name : output_names()) {
    const std::shared_ptr<const float> p = gpu->device_output(name);
    ASSERT_NE(p, nullptr) << name;
    std::vector<float> host(t.size());
    ASSERT_EQ(copy_from_device(host.data(), p.get(), host.size()), 0);
    EXPECT_EQ(host, output(r, name)) << name;
  }
  EXPECT_EQ(gpu->device_output("nonsense"), nullptr);
  EXPECT_GE(gpu->peak_device_bytes(), 7000.0 * 16 + t.size() * (24 + 32 + 20));
}

// Issue 11 item 3: keep_outputs_on_device(true) copies nothing into the Result: the values stay
// in device_output() (the same as a downloading evaluation's), with their non-finite counts.
TEST(FieldCuda, OutputsKeptOnTheDevice) {
  SKIP_WITHOUT_CUDA();
  auto gpu = make_evaluator(Backend::Cuda);
  Grid g;
  g.size = 41, g.offset = 0.3;
  const Targets t = make_targets(g);
  const Sources s = generate_sources("uniform", 3000, 1, 9);
  const Result host = eval(*gpu, s, t, opts(Precision::Fp32));
  ASSERT_TRUE(host.on_host);
  ASSERT_TRUE(gpu->keep_outputs_on_device(true));
  Result kept;
  gpu->evaluate(s, t, opts(Precision::Fp32), kept);
  EXPECT_FALSE(kept.on_host);
  EXPECT_EQ(kept.size(), t.size());
  EXPECT_TRUE(kept.magnitude.empty() && kept.ex.empty() && kept.potential.empty());
  EXPECT_EQ(kept.skipped_coincidences, host.skipped_coincidences);
  const auto& names = output_names();
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::vector<float> v(t.size());
    ASSERT_EQ(copy_from_device(v.data(), gpu->device_output(names[k]).get(), v.size()), 0);
    // The same fp32 tile sums added into fp64 atomics in no fixed order, then rounded to
    // float32: equal, or one float32 ulp apart where a sum lies on a rounding boundary.
    EXPECT_LE(test::plane_error(v, output(host, names[k])), 2.4e-7) << names[k];
    EXPECT_EQ(kept.device_nonfinite[k], 0u) << names[k];
  }
  // k = 1e38 overflows float32 everywhere except where the sum is 0: counted per output as the
  // host vectors would count them.
  const Options big = opts(Precision::Fp32, 0, 1e38);
  gpu->keep_outputs_on_device(false);
  const Result big_host = eval(*gpu, s, t, big);
  gpu->keep_outputs_on_device(true);
  gpu->evaluate(s, t, big, kept);
  for (std::size_t k = 0; k < names.size(); ++k) {
    const auto& v = output(big_host, names[k]);
    const auto bad =
        std::uint64_t(std::count_if(v.begin(), v.end(), [](float x) { return !std::isfinite(x); }));
    EXPECT_GT(bad, 0u) << names[k];
    EXPECT_EQ(kept.device_nonfinite[k], bad) << names[k];  // counted on the device, exactly
  }
}

TEST(FieldCuda, InvalidOptionsAndCancellation) {
  SKIP_WITHOUT_CUDA();
  auto gpu = make_evaluator(Backend::Cuda);
  const Sources s = stamped(random_sources(4000000, 1, 9));
  Grid g;
  g.size = 512;
  const Targets t = make_targets(g);
  Result r;
  EXPECT_THROW(gpu->evaluate(s, t, opts(Precision::Fp32, -1), r), Error);
  Progress before;
  before.cancel = true;
  EXPECT_THROW(gpu->evaluate(s, t, opts(Precision::Fp64), r, &before), Cancelled);
  // 4e6 x 262144 pairs in fp64: seconds on any GPU; cancelled after 20 ms.
  Progress pr;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pr.cancel = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(gpu->evaluate(s, t, opts(Precision::Fp64), r, &pr), Cancelled);
  canceller.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // It stopped after a few chunks (each ~50 ms of work at the first guess of the speed), not
  // at the end. Under compute-sanitizer those chunks run many times slower: no wall-clock bound.
  EXPECT_LT(pr.fraction.load(), 0.5);
  if (!under_compute_sanitizer()) EXPECT_LT(seconds, 1.0);
  EXPECT_EQ(gpu->device_output("magnitude"), nullptr);  // no result after a cancel
  // The evaluator still works afterwards.
  Targets one;
  one.x = {0}, one.y = {0}, one.z = {3};
  Result ok = eval(*gpu, s, one, opts(Precision::Fp32)), ref;
  make_evaluator(Backend::Cpu)->evaluate(s, one, opts(Precision::Fp32), ref);
  EXPECT_LE(result_error(ok, ref), kFp32Tol);  // random signs (emulated: 2.3e-7)
}

// Issue 16 item 1: a held device_output() stays valid and unchanged while later evaluations
// reallocate (more targets) or would overwrite it (the same count): they write a new buffer.
TEST(FieldCuda, HeldDeviceOutputOutlivesLaterEvaluations) {
  SKIP_WITHOUT_CUDA();
  auto gpu = make_evaluator(Backend::Cuda);
  const Sources s = stamped(random_sources(2000, 1.0, 11));
  Grid g;
  g.size = 16, g.offset = 1.4;
  const Targets small = make_targets(g);
  const Result first = eval(*gpu, s, small, opts(Precision::Fp32));
  const std::shared_ptr<const float> held = gpu->device_output("ex");
  ASSERT_NE(held, nullptr);
  g.size = 64;  // the full run after a preview: a bigger target set
  const Targets big = make_targets(g);
  eval(*gpu, s, big, opts(Precision::Fp32));
  g.size = 16, g.offset = -0.7;  // the same count again, other values
  const Result third = eval(*gpu, s, make_targets(g), opts(Precision::Fp32));
  ASSERT_NE(third.ex, first.ex);
  std::vector<float> host(small.size());
  ASSERT_EQ(copy_from_device(host.data(), held.get(), host.size()), 0);
  EXPECT_EQ(host, first.ex);
  ASSERT_EQ(copy_from_device(host.data(), gpu->device_output("ex").get(), host.size()), 0);
  EXPECT_EQ(host, third.ex);
  gpu.reset();  // the evaluator goes first: the held buffer still lives
  ASSERT_EQ(copy_from_device(host.data(), held.get(), host.size()), 0);
  EXPECT_EQ(host, first.ex);
}

// Issue 16 item 8: the kernels with 2, 4 and 8 targets per thread (SIMSCOPE_FIELD_CUDA_RB, read
// once per process: tests/gpu/run.sh runs the field's CUDA tests again with 2 and with 8) on
// target counts just below, at and above multiples of a block's targets for each of them (256
// threads x RB), so every variant meets partial blocks and partial threads.
TEST(FieldCuda, TargetsPerThreadTails) {
  SKIP_WITHOUT_CUDA();
  const char* rb = std::getenv("SIMSCOPE_FIELD_CUDA_RB");
  RecordProperty("SIMSCOPE_FIELD_CUDA_RB", rb ? rb : "default (4)");
  auto gpu = make_evaluator(Backend::Cuda);
  auto cpu = make_evaluator(Backend::Cpu);
  const Sources s = stamped(random_sources(1500, 1.0, 12, 0.5, 1.5));  // positive: kTol
  std::mt19937 gen(13);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (std::size_t T : {1, 3, 511, 513, 1023, 1025, 2047, 2049, 3 * 2048 + 17}) {
    Targets t;
    for (std::size_t i = 0; i < T; ++i)
      t.x.push_back(u(gen)), t.y.push_back(u(gen)), t.z.push_back(u(gen) + 4);
    for (Precision p : {Precision::Fp32, Precision::Fp64})
      EXPECT_LE(result_error(eval(*gpu, s, t, opts(p, 0.01)), eval(*cpu, s, t, opts(p, 0.01))),
                kTol)
          << T << (p == Precision::Fp32 ? " fp32" : " fp64");
  }
}

}  // namespace
}  // namespace simscope::field
