// The oscillators' phase view through a headless EGL context: discs at the layout positions (or
// at z in the complex plane) coloured by phase with the cyclic colormap (against
// Colormap::sample), sized by amplitude, edges, grey non-finite states, picking, bad input, and
// the device upload path (skipped without a CUDA device).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "render/colormap.hpp"
#include "render/error.hpp"
#include "render/offscreen.hpp"
#include "render/phase_view.hpp"
#include "render_test_support.hpp"

#ifdef SIMSCOPE_RENDER_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#include "../compute/test_cuda_skip.hpp"

namespace simscope::render {
namespace {

using test::Image;
using test::RenderTest;

constexpr int kSize = 200;
constexpr float kPi = 3.14159265358979f;

/// Settings without decorations, 6 px discs on black.
PhaseViewSettings plain() {
  PhaseViewSettings s;
  s.legend = false;
  s.edges = false;
  s.dot = 6;
  return s;
}

Image draw(PhaseView& v, int size = kSize) {
  Offscreen fb(size, size);
  fb.bind();
  v.set_background(0, 0, 0);
  v.draw(0, 0, size, size);
  return Image{size, size, fb.read_rgba()};
}

/// Where the view puts layout position p (see PhaseView::draw: the square inside a padding of
/// 10 + 2 dot pixels, no title, no legend).
double pixel_of(double p, int size = kSize, double dot = 6) {
  const double pad = 10 + 2 * dot, sq = std::floor(size - 2 * pad);
  return std::floor((size - sq) / 2) + (p * 0.5 + 0.5) * sq;
}

int lit_pixels(const Image& img) {
  int n = 0;
  for (int y = 0; y < img.h; ++y)
    for (int x = 0; x < img.w; ++x) {
      const auto c = img.at(x, y);
      if (c[0] + c[1] + c[2] > 30) ++n;
    }
  return n;
}

std::array<int, 3> phase_colour(float theta, const std::string& map = "twilight") {
  double t = (theta + kPi) / (2 * kPi);
  t -= std::floor(t);
  return test::to_rgb8(colormap(map).sample(t));
}

TEST_F(RenderTest, PhaseViewColoursDiscsByPhase) {
  const std::vector<float> pos = {-0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f};
  const std::vector<float> state = {-2.5f, 1.0f, -1.0f, 1.0f, 0.5f, 1.0f, 2.0f, 1.0f};
  for (const char* map : {"twilight", "viridis"}) {
    PhaseView v;
    PhaseViewSettings s = plain();
    s.colormap = map;
    v.set_settings(s);
    v.set_layout(pos.data(), 4);
    v.set_state_host(state.data(), 4);
    const Image img = draw(v);
    for (int i = 0; i < 4; ++i) {
      const int px = int(pixel_of(pos[2 * i])), py = int(pixel_of(pos[2 * i + 1]));
      const auto got = img.at(px, py), want = phase_colour(state[2 * i], map);
      EXPECT_LE(test::max_diff(got, want), 3)
          << map << " oscillator " << i << " at (" << px << ", " << py << "): got " << got[0] << ","
          << got[1] << "," << got[2] << " want " << want[0] << "," << want[1] << "," << want[2];
    }
    EXPECT_EQ(v.upload_path(), "host upload");
    EXPECT_EQ(v.count(), 4);
    if (std::string(map) == "twilight") test::save_png(img, "phase_view_nodes.png");
  }
  // The cyclic map joins: theta = pi and -pi give the same colour.
  EXPECT_LE(test::max_diff(phase_colour(kPi), phase_colour(-kPi)), 1);
}

TEST_F(RenderTest, PhaseViewSizesDiscsByAmplitude) {
  const std::vector<float> pos = {0, 0};
  PhaseView v;
  PhaseViewSettings s = plain();
  s.dot = 10;
  v.set_settings(s);
  v.set_layout(pos.data(), 1);
  std::vector<float> state = {1.0f, 1.0f};
  v.set_state_host(state.data(), 1);
  const int full = lit_pixels(draw(v));
  state[1] = 0.5f;
  v.set_state_host(state.data(), 1);
  const int half = lit_pixels(draw(v));
  EXPECT_NEAR(double(full) / half, 4.0, 1.0) << full << " vs " << half << " pixels";
  EXPECT_NEAR(full, kPi * 100, 40);
}

TEST_F(RenderTest, PhaseViewComplexPlaneLayout) {
  // theta = 0, r = 1 with |z| = 2 at the edge: a quarter of the square right of the centre,
  // wherever its node position is; picking finds it there.
  const std::vector<float> pos = {-0.9f, -0.9f, 0.9f, 0.9f};
  const std::vector<float> state = {0.0f, 1.0f, kPi / 2, 0.5f};
  PhaseView v;
  PhaseViewSettings s = plain();
  s.layout = "plane";
  s.plane_radius = 2.0f;
  v.set_settings(s);
  v.set_layout(pos.data(), 2);
  v.set_state_host(state.data(), 2);
  const Image img = draw(v);
  const double c = pixel_of(0.0);
  const int px = int(pixel_of(0.5)), py = int(c);
  EXPECT_LE(test::max_diff(img.at(px, py), phase_colour(0.0f)), 3);
  const int qx = int(c), qy = int(pixel_of(0.25));  // theta = pi/2, r = 0.5: z = 0.5 i
  EXPECT_LE(test::max_diff(img.at(qx, qy), phase_colour(kPi / 2)), 3);
  EXPECT_LT(img.at(int(pixel_of(-0.9)), int(pixel_of(-0.9)))[0], 30);  // not at its node
  ASSERT_TRUE(v.oscillator_at(px + 0.5, py + 0.5).has_value());
  EXPECT_EQ(*v.oscillator_at(px + 0.5, py + 0.5), 0);
  EXPECT_EQ(*v.oscillator_at(qx + 0.5, qy + 0.5), 1);
  EXPECT_FALSE(v.oscillator_at(2, 2).has_value());
  test::save_png(img, "phase_view_plane.png");
}

TEST_F(RenderTest, PhaseViewEdgesAndNonFinite) {
  const std::vector<float> pos = {-0.6f, 0.0f, 0.6f, 0.0f, 0.0f, 0.6f};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> state = {0.0f, 1.0f, 1.0f, 1.0f, nan, nan};
  PhaseView v;
  PhaseViewSettings s = plain();
  v.set_settings(s);
  v.set_layout(pos.data(), 3);
  v.set_edges({{0, 1}});
  v.set_state_host(state.data(), 3);
  const int mid = int(pixel_of(0.0));
  EXPECT_LT(draw(v).at(mid, mid)[0], 20);  // edges off
  s.edges = true;
  v.set_settings(s);
  const Image img = draw(v);
  test::save_png(img, "phase_view_edges.png");
  int line = 0;  // the edge 0-1 crosses the centre (on the row below or above the boundary)
  for (int y = mid - 1; y <= mid; ++y) {
    const auto c = img.at(mid, y);
    line = std::max(line, c[0] + c[1] + c[2]);
  }
  EXPECT_GT(line, 60) << "the edge 0-1 passes through the centre";
  // The non-finite oscillator: a small neutral grey disc.
  const auto g = img.at(int(pixel_of(0.0)), int(pixel_of(0.6)));
  EXPECT_GT(g[0], 50);
  EXPECT_LE(std::abs(g[0] - g[1]) + std::abs(g[1] - g[2]), 4);
  EXPECT_EQ(*v.oscillator_at(pixel_of(0.6) + 0.5, pixel_of(0.0) + 0.5), 1);
}

TEST_F(RenderTest, PhaseViewTitleAndLegend) {
  const std::vector<float> pos = {0, 0};
  const std::vector<float> state = {0.0f, 1.0f};
  PhaseView v;
  PhaseViewSettings s = plain();
  s.legend = true;
  s.title = "member 0";
  v.set_settings(s);
  v.set_layout(pos.data(), 1);
  v.set_state_host(state.data(), 1);
  const Image img = draw(v, 400);
  int title = 0, legend = 0, size_key = 0;
  for (int y = 0; y < 400; ++y)
    for (int x = 0; x < 400; ++x) {
      const auto c = img.at(x, y);
      if (c[0] + c[1] + c[2] < 60) continue;
      if (y > 370 && x < 150) ++title;
      if (y < 40 && x > 230) ++legend;
      if (y < 40 && x < 100) ++size_key;  // "size: r" left of "phase theta"
    }
  EXPECT_GT(title, 20);
  EXPECT_GT(legend, 200);
  EXPECT_GT(size_key, 20);
  test::save_png(img, "phase_view_legend.png");
  // Wider, the size key in full, "size: amplitude r": more ink at the bottom left. Without
  // the legend, none there.
  const auto ink_bottom_left = [](const Image& im) {
    int n = 0;
    for (int y = 0; y < 40; ++y)
      for (int x = 0; x < im.w / 2; ++x) {
        const auto c = im.at(x, y);
        if (c[0] + c[1] + c[2] >= 60) ++n;
      }
    return n;
  };
  const Image wide = draw(v, 800);
  EXPECT_GT(ink_bottom_left(wide), 2 * size_key);
  test::save_png(wide, "phase_view_legend_wide.png");
  s.legend = false;
  v.set_settings(s);
  EXPECT_EQ(ink_bottom_left(draw(v, 800)), 0);
}

TEST_F(RenderTest, PhaseViewRejectsBadInput) {
  PhaseView v;
  PhaseViewSettings s;
  s.colormap = "nope";
  EXPECT_THROW(v.set_settings(s), RenderError);
  s = PhaseViewSettings{};
  s.layout = "spiral";
  EXPECT_THROW(v.set_settings(s), RenderError);
  s = PhaseViewSettings{};
  s.dot = -1;
  EXPECT_THROW(v.set_settings(s), RenderError);
  EXPECT_EQ(v.settings().colormap, "twilight");  // unchanged
  const std::vector<float> pos = {0, 0, 0.5f, 0.5f};
  const std::vector<float> state = {0, 1, 1, 1, 2, 1};
  v.set_layout(pos.data(), 2);
  EXPECT_THROW(v.set_edges({{0, 2}}), RenderError);
  EXPECT_THROW(v.set_state_host(state.data(), 0), RenderError);
  v.set_state_host(state.data(), 3);  // 3 oscillators, 2 positions
  Offscreen fb(64, 64);
  fb.bind();
  EXPECT_THROW(v.draw(0, 0, 64, 64), RenderError);
  const float bad[] = {0, std::numeric_limits<float>::infinity()};
  EXPECT_THROW(v.set_layout(bad, 1), RenderError);
}

TEST_F(RenderTest, PhaseViewDeviceUpload) {
  const std::vector<float> pos = {-0.5f, 0.0f, 0.5f, 0.0f};
  const std::vector<float> state = {-1.0f, 1.0f, 2.0f, 0.8f};
  PhaseView v;
  v.set_settings(plain());
  v.set_layout(pos.data(), 2);
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    cudaGetLastError();
    EXPECT_THROW(v.set_state_device(state.data(), 2), RenderError);
    CUDA_TEST_SKIP("no CUDA device: checked that a device upload fails cleanly");
  }
  v.set_state_host(state.data(), 2);
  const Image host = draw(v);
  void* mem = nullptr;
  ASSERT_EQ(cudaMalloc(&mem, state.size() * sizeof(float)), cudaSuccess);
  float* d = static_cast<float*>(mem);
  ASSERT_EQ(cudaMemcpy(d, state.data(), state.size() * sizeof(float), cudaMemcpyHostToDevice),
            cudaSuccess);
  v.set_state_device(d, 2);
  const Image dev = draw(v);
  cudaFree(d);
  EXPECT_EQ(dev.rgba, host.rgba);
  EXPECT_TRUE(v.upload_path() == "cuda-gl interop" || v.upload_path() == "device->host copy")
      << v.upload_path();
#else
  EXPECT_THROW(v.set_state_device(state.data(), 2), RenderError);
  CUDA_TEST_SKIP("built without CUDA: checked that a device upload fails cleanly");
#endif
}

}  // namespace
}  // namespace simscope::render
