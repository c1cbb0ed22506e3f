// simscope-interop-bench: what one frame of the plane view costs for a rows x cols float plane
// (default 2048 x 2048), in a headless EGL context (no window), by the way the data arrive:
//   interop:   from device memory through CUDA-GL interop (PlaneView::set_data_device: map,
//              device-to-device copy, unmap, texture from the pixel buffer), then a draw;
//   host_path: from device memory through the host (cudaMemcpy device to host, set_data_host),
//              then a draw: what the view does when interop is unavailable;
//   host:      from host memory (set_data_host: the CPU back end's planes), then a draw;
//   draw:      a draw alone, the data unchanged (subtract it for the upload's share).
// Each is timed to glFinish(), medians over --repeat frames after 2 warm-up frames. Prints one
// JSON object (tests/bench/NOTES.md); the CUDA figures are null, with the reason in
// "cuda_note", without a usable device. Exit status 1 when no EGL context can be made.
//   simscope-interop-bench [--size N] [--repeat R] [--draw WxH]
#include <glad/gl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "render/error.hpp"
#include "render/gl_context.hpp"
#include "render/offscreen.hpp"
#include "render/plane_view.hpp"

#ifdef SIMSCOPE_RENDER_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

/// Median seconds of `repeat` calls of `frame` (each ended by glFinish), after 2 warm-up calls.
double median_seconds(int repeat, const std::function<void()>& frame) {
  for (int k = 0; k < 2; ++k) frame(), glFinish();
  std::vector<double> t;
  for (int k = 0; k < repeat; ++k) {
    const auto t0 = Clock::now();
    frame();
    glFinish();
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o + "\"";
}

std::string number_or_null(double v) {
  if (!std::isfinite(v)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

int usage(const char* why, FILE* to = stderr) {
  std::fprintf(to,
               "simscope-interop-bench: %s\nusage: simscope-interop-bench [--size N (16..16384, "
               "default 2048)] [--repeat R (1..1000, default 20)] [--draw WxH (default 1024x1024)]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int size = 2048, repeat = 20, dw = 1024, dh = 1024;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") return usage("the plane view's frame cost by data path", stdout), 0;
    if (i + 1 >= argc) return usage(("option " + a + " needs a value").c_str());
    const char* v = argv[++i];
    char* end = nullptr;
    if (a == "--size") {
      size = int(std::strtol(v, &end, 10));
      if (*end || size < 16 || size > 16384) return usage("--size must be an integer in 16..16384");
    } else if (a == "--repeat") {
      repeat = int(std::strtol(v, &end, 10));
      if (*end || repeat < 1 || repeat > 1000)
        return usage("--repeat must be an integer in 1..1000");
    } else if (a == "--draw") {
      if (std::sscanf(v, "%dx%d", &dw, &dh) != 2 || dw < 1 || dh < 1 || dw > 8192 || dh > 8192)
        return usage("--draw must be WxH, each in 1..8192");
    } else {
      return usage(("unknown option '" + a + "'").c_str());
    }
  }

  using namespace simscope::render;
  std::unique_ptr<GlContext> ctx;
  try {
    ctx = create_context("egl");
  } catch (const RenderError& e) {
    std::fprintf(stderr, "simscope-interop-bench: no headless EGL context: %s\n", e.what());
    return 1;
  }
  const std::size_t n = std::size_t(size) * std::size_t(size);
  std::vector<float> host(n);
  for (std::size_t k = 0; k < n; ++k) host[k] = float(std::sin(0.001 * double(k % 100003)));

  double interop = NAN, host_path = NAN, host_s = NAN, draw_s = NAN;
  std::string interop_path = "none", cuda_note, fallback;
  try {
    Offscreen fb(dw, dh);
    fb.bind();
    PlaneView view;
    host_s = median_seconds(repeat, [&] {
      view.set_data_host(host.data(), size, size);
      view.draw(0, 0, dw, dh);
    });
    draw_s = median_seconds(repeat, [&] { view.draw(0, 0, dw, dh); });
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
    int devices = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    float* dev = nullptr;
    if (e != cudaSuccess || devices == 0) {
      cudaGetLastError();
      cuda_note = std::string("no CUDA device: ") + cudaGetErrorName(e);
    } else if (cudaMalloc(reinterpret_cast<void**>(&dev), n * sizeof(float)) != cudaSuccess) {
      cudaGetLastError();
      cuda_note = "cudaMalloc of the plane failed";
    } else {
      cudaMemcpy(dev, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
      std::vector<float> staging(n);
      host_path = median_seconds(repeat, [&] {
        cudaMemcpy(staging.data(), dev, n * sizeof(float), cudaMemcpyDeviceToHost);
        view.set_data_host(staging.data(), size, size);
        view.draw(0, 0, dw, dh);
      });
      interop = median_seconds(repeat, [&] {
        view.set_data_device(dev, size, size);
        view.draw(0, 0, dw, dh);
      });
      interop_path = view.upload_path();
      fallback = view.upload_fallback_reason();
      cudaFree(dev);
    }
#else
    cuda_note = "built without CUDA";
#endif
  } catch (const RenderError& e) {
    std::fprintf(stderr, "simscope-interop-bench: %s\n", e.what());
    return 1;
  }
  std::printf(
      "{\"bench\": \"interop\", \"rows\": %d, \"cols\": %d, \"draw\": \"%dx%d\", \"repeat\": %d, "
      "\"gl_renderer\": %s, \"context\": %s, \"interop_seconds\": %s, \"interop_path\": %s, "
      "\"interop_fallback\": %s, \"host_path_seconds\": %s, \"host_seconds\": %s, "
      "\"draw_seconds\": %s, \"cuda_note\": %s}\n",
      size, size, dw, dh, repeat, json_string(ctx->renderer()).c_str(),
      json_string(ctx->backend_name()).c_str(), number_or_null(interop).c_str(),
      json_string(interop_path).c_str(), json_string(fallback).c_str(),
      number_or_null(host_path).c_str(), number_or_null(host_s).c_str(),
      number_or_null(draw_s).c_str(), json_string(cuda_note).c_str());
  return 0;
}
