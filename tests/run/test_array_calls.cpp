// The workloads' entry points on a caller's arrays (app/run/*/<w>_arrays, app/run/arrays/), as
// the Python module calls them, on the CPU: host arrays read in place through their strides and
// from a caller's copy give the same sources, fields against a float64 direct sum, charges beside
// positions, a kept source set's tree, lsq's borrowed and copied cubes against a closed-form
// solve, a study from a given initial state; and the messages of bad arrays.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "arrays/array_input.hpp"
#include "arrays/call_settings.hpp"
#include "arrays/device_arrays.hpp"
#include "field/field_arrays.hpp"
#include "field/field_params.hpp"
#include "lsq/lsq_arrays.hpp"
#include "oscillators/oscillators_arrays.hpp"
#include "oscillators/oscillators_params.hpp"
#include "oscillators/oscillators_workload.hpp"

namespace simscope::app {
namespace {

/// A host array of doubles read in place: `values` with `shape` and element strides `steps`.
ArrayInput in_place(const std::vector<double>& values, std::vector<std::size_t> shape,
                    std::vector<std::ptrdiff_t> steps) {
  ArrayInput in;
  in.kind = ArrayInput::Kind::InPlace;
  in.data = values.data();
  in.dtype = DType::Float64;
  in.shape = std::move(shape);
  for (std::ptrdiff_t s : steps) in.strides.push_back(s * std::ptrdiff_t(sizeof(double)));
  return in;
}

/// A caller's C-order copy of `values` (float64) with `shape`.
ArrayInput copied(const std::vector<double>& values, std::vector<std::size_t> shape) {
  ArrayInput in;
  in.kind = ArrayInput::Kind::Copy;
  in.copy.dtype = DType::Float64;
  in.copy.shape = std::move(shape);
  in.copy.data.resize(values.size() * sizeof(double));
  std::memcpy(in.copy.data.data(), values.data(), in.copy.data.size());
  return in;
}

/// The field call's result on `sources` and `targets`, method=direct on the CPU.
RunResult field_of(const ArrayInput& sources, const ArrayInput& charges,
                   const ArrayInput& targets, const Settings& more = {}) {
  Settings s = {{"method", "direct"}, {"precision", "fp64"}};
  s.insert(s.end(), more.begin(), more.end());
  FieldArrays call(s, "cpu", false);
  call.take(sources, charges, nullptr, targets);
  EXPECT_EQ(call.route(), "host");
  call.evaluate(nullptr);
  return call.result();
}

const std::vector<float>& out(const RunResult& r, const std::string& name) {
  const OutputArray* o = r.find(name);
  EXPECT_NE(o, nullptr) << name;
  return o->host();
}

// P sources (x, y, z, q) and T targets, deterministic, away from each other.
constexpr std::size_t P = 37, T = 11;
std::vector<double> sources_pxq() {
  std::vector<double> v(P * 4);
  for (std::size_t i = 0; i < P; ++i) {
    v[4 * i] = std::sin(0.7 * double(i));
    v[4 * i + 1] = std::cos(1.3 * double(i));
    v[4 * i + 2] = 0.5 * std::sin(2.1 * double(i) + 1);
    v[4 * i + 3] = 0.25 + 0.01 * double(i % 7);
  }
  return v;
}
std::vector<double> targets_t3() {
  std::vector<double> v(T * 3);
  for (std::size_t t = 0; t < T; ++t)
    v[3 * t] = 3 + 0.1 * double(t), v[3 * t + 1] = -2 + 0.2 * double(t), v[3 * t + 2] = 1.5;
  return v;
}

TEST(ArrayCalls, FieldInPlaceAndCopyEqualTheDirectSum) {
  const std::vector<double> src = sources_pxq(), tg = targets_t3();
  // The same sources as a column-major (Fortran) array: read in place through its strides.
  std::vector<double> src_f(P * 4);
  for (std::size_t i = 0; i < P; ++i)
    for (std::size_t c = 0; c < 4; ++c) src_f[c * P + i] = src[4 * i + c];
  const RunResult a = field_of(in_place(src_f, {P, 4}, {1, std::ptrdiff_t(P)}), {},
                               in_place(tg, {T, 3}, {3, 1}));
  const RunResult b = field_of(copied(src, {P, 4}), {}, copied(tg, {T, 3}));
  EXPECT_EQ(a.stats.at("sources_conversions"), 1);
  EXPECT_EQ(a.stats.at("targets_conversions"), 1);
  EXPECT_EQ(b.stats.at("sources_conversions"), 2);
  EXPECT_EQ(b.stats.at("targets_conversions"), 2);
  EXPECT_EQ(a.stats.at("host_staging_bytes"), 0);
  for (const char* name : {"magnitude", "ex", "ey", "ez", "potential"})
    EXPECT_EQ(out(a, name), out(b, name)) << name;
  // float64 direct sum, k = 1, eps = 0, with the sources' float32 rounding.
  for (std::size_t t = 0; t < T; ++t) {
    double e[3] = {0, 0, 0}, phi = 0;
    for (std::size_t i = 0; i < P; ++i) {
      double d[3], r2 = 0;
      for (int c = 0; c < 3; ++c) {
        d[c] = double(float(src[4 * i + std::size_t(c)])) - tg[3 * t + std::size_t(c)];
        r2 += d[c] * d[c];
      }
      const double q = double(float(src[4 * i + 3]));
      for (int c = 0; c < 3; ++c) e[c] += q * d[c] / (r2 * std::sqrt(r2));
      phi += q / std::sqrt(r2);
    }
    const double mag = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    EXPECT_NEAR(out(a, "magnitude")[t], mag, 1e-6 * mag) << t;
    EXPECT_NEAR(out(a, "ex")[t], e[0], 1e-6 * mag) << t;
    EXPECT_NEAR(out(a, "potential")[t], phi, 1e-6 * std::fabs(phi)) << t;
  }
  // Settings that the arrays replace are warned about.
  const RunResult w = field_of(copied(src, {P, 4}), {}, copied(tg, {T, 3}),
                               {{"sources.count", "5"}, {"grid.size", "9"}});
  ASSERT_EQ(w.warnings.size(), 2u);
  EXPECT_EQ(w.warnings[0], "sources are given as an array, so sources.count is not used");
  EXPECT_EQ(w.warnings[1], "targets are given as an array, so grid.size is not used");
}

TEST(ArrayCalls, FieldChargesBesidePositions) {
  const std::vector<double> src = sources_pxq(), tg = targets_t3();
  std::vector<double> pos(P * 3), q(P);
  for (std::size_t i = 0; i < P; ++i) {
    for (std::size_t c = 0; c < 3; ++c) pos[3 * i + c] = src[4 * i + c];
    q[i] = src[4 * i + 3];
  }
  const ArrayInput targets = in_place(tg, {T, 3}, {3, 1});
  const RunResult whole = field_of(in_place(src, {P, 4}, {4, 1}), {}, targets);
  const RunResult beside =
      field_of(in_place(pos, {P, 3}, {3, 1}), in_place(q, {P}, {1}), targets);
  EXPECT_EQ(out(whole, "magnitude"), out(beside, "magnitude"));
  EXPECT_EQ(out(whole, "potential"), out(beside, "potential"));
  try {
    field_of(in_place(src, {P, 4}, {4, 1}), in_place(q, {P}, {1}), targets);
    FAIL() << "(P,4) with charges taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("sources: a (P,4) array holds the charges", 0), 0u)
        << e.what();
  }
  try {
    field_of(in_place(pos, {P, 3}, {3, 1}), in_place(q, {P - 1}, {1}), targets);
    FAIL() << "charges of another length taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "charges: expected (P,) = (37,), got (36,)");
  }
}

TEST(ArrayCalls, KeptSourcesKeepTheTreeAndEqualANewCall) {
  const std::vector<double> src = sources_pxq(), tg = targets_t3();
  KeptSources kept(in_place(src, {P, 4}, {4, 1}), {});
  EXPECT_EQ(kept.size(), P);
  EXPECT_EQ(kept.conversions(), 1);
  EXPECT_FLOAT_EQ(kept.positions()[3], float(src[4]));
  EXPECT_FLOAT_EQ(kept.charges()[2], float(src[11]));
  const Settings s = {{"method", "tree"}};
  auto call = [&](KeptSources* held) {
    FieldArrays c(s, "cpu", false);
    c.take(held ? ArrayInput{} : in_place(src, {P, 4}, {4, 1}), {}, held,
           in_place(tg, {T, 3}, {3, 1}));
    c.evaluate(nullptr);
    return c.result();
  };
  const RunResult first = call(&kept), second = call(&kept), fresh = call(nullptr);
  EXPECT_EQ(first.stats.at("tree_kept"), 0);
  EXPECT_EQ(second.stats.at("tree_kept"), 1);
  EXPECT_EQ(second.stats.at("sources_conversions"), 0);
  EXPECT_EQ(out(first, "magnitude"), out(second, "magnitude"));
  EXPECT_EQ(out(first, "magnitude"), out(fresh, "magnitude"));
  try {
    KeptSources none(ArrayInput{}, {});
    FAIL() << "no sources taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "sources: expected an array (P,4), or (P,3) positions");
  }
}

TEST(ArrayCalls, FieldRouteAndDeviceChecks) {
  EXPECT_EQ(field_route(Backend::Cpu, nullptr, "auto", 10, 10), "host");
  DeviceView v;
  v.name = "sources";
  v.device = 0;
  try {
    field_route(Backend::Cpu, &v, "direct", 10, 10);
    FAIL() << "a CUDA array taken on the CPU back end";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("sources: a CUDA array (device 0), but backend=\"cpu\"", 0),
              0u)
        << e.what();
  }
  v.device = cuda_device_count();  // one past the last device this process sees
  EXPECT_THROW(require_visible_device(v), Error);
}

TEST(ArrayCalls, LsqBorrowedAndCopiedCubesEqualTheClosedForm) {
  // One unknown: the solution of each pixel is sum(a y) / sum(a a) over its finite samples.
  constexpr std::size_t M = 6, H = 3, W = 4;
  std::vector<double> design(M), cube(M * H * W);
  for (std::size_t m = 0; m < M; ++m) design[m] = 1.0 + 0.5 * double(m);
  for (std::size_t k = 0; k < cube.size(); ++k) cube[k] = std::sin(0.37 * double(k));
  cube[1 * H * W + 5] = std::nan("");  // a gap at pixel 5
  auto solve = [&](const ArrayInput& c) {
    LsqArrays call({{"method", "normal"}}, "cpu", false);
    call.take(c, copied(design, {M, 1}));
    call.solve(nullptr);
    EXPECT_STREQ(call.input_route(), "host");
    return call.result();
  };
  RunResult borrowed = solve(in_place(cube, {M, H, W}, {H * W, W, 1}));
  RunResult copy = solve(copied(cube, {M, H, W}));
  EXPECT_EQ(borrowed.stats.at("cube_copied_bytes"), 0);
  EXPECT_EQ(copy.stats.at("cube_copied_bytes"), double(cube.size() * sizeof(double)));
  ASSERT_NE(borrowed.find("solution"), nullptr);
  ASSERT_NE(copy.find("solution"), nullptr);
  const std::vector<double> x = borrowed.outputs[0].data.take<double>();
  EXPECT_EQ(borrowed.outputs[0].name, "solution");
  EXPECT_EQ(x, copy.outputs[0].data.take<double>());
  for (std::size_t p = 0; p < H * W; ++p) {
    double ay = 0, aa = 0;
    for (std::size_t m = 0; m < M; ++m) {
      const double y = cube[m * H * W + p];
      if (std::isnan(y)) continue;
      ay += design[m] * y, aa += design[m] * design[m];
    }
    EXPECT_NEAR(x[p], ay / aa, 1e-12) << p;
  }
}

TEST(ArrayCalls, StudyFromAGivenInitialStateEqualsTheSchemas) {
  const Settings s = {{"network.nodes", "6"}, {"ensemble.size", "3"},
                      {"integrator.steps", "40"}, {"integrator.transient", "10"}};
  auto study = [&](const ArrayInput& initial) {
    StudyArrays call(s, "cpu");
    call.take(initial, nullptr);
    EXPECT_EQ(call.units(), 3.0 * 6.0 * 40.0);
    call.run(nullptr);
    return call.result();
  };
  // The schema's initial state, given as an array (K, N, 2): the same study bit for bit.
  const std::vector<double> init =
      interleave(oscillators::make_initial_state(params_from(oscillators::schema(), s)));
  RunResult schema = study({}), given = study(copied(init, {3, 6, 2}));
  ASSERT_EQ(schema.outputs.size(), given.outputs.size());
  for (std::size_t k = 0; k < schema.outputs.size(); ++k)
    EXPECT_EQ(schema.outputs[k].data.take<double>(), given.outputs[k].data.take<double>())
        << schema.outputs[k].name;
  EXPECT_EQ(given.stats.at("host_staging_bytes"), 0);
  // An ensemble loaded from it reads it back; zero steps record nothing.
  EnsembleArrays e(s, "cpu", copied(init, {3, 6, 2}), nullptr);
  EXPECT_EQ(e.members(), 3);
  EXPECT_EQ(e.nodes(), 6);
  EXPECT_EQ(e.state(), init);
  EXPECT_TRUE(e.advance(0, nullptr).step.empty());
  EXPECT_EQ(e.step(), 0);
  e.advance(5, nullptr);
  EXPECT_EQ(e.step(), 5);
  try {
    StudyArrays call(s, "cpu");
    call.take(copied(init, {3, 2, 6}), nullptr);
    FAIL() << "an initial state of another shape taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("initial", 0), 0u) << e.what();
  }
}

TEST(ArrayCalls, SettingsAsNameAndText) {
  const ParamSet p = params_from(field::schema(), {{"grid.size", "9"}, {"k", "2.5"}});
  EXPECT_EQ(p.get_int("grid.size"), 9);
  EXPECT_EQ(p.get_double("k"), 2.5);
  EXPECT_THROW(params_from(field::schema(), {{"grid.sise", "9"}}), Error);
  EXPECT_EQ(unused_by_arrays(p, "targets are given", {"grid.size", "k"}, "why"),
            "targets are given, so grid.size, k are not used (why)");
  EXPECT_EQ(unused_by_arrays(p, "targets are given", {"plane"}), "");
}

}  // namespace
}  // namespace simscope::app
