#include "network_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace simscope::app {
namespace {

constexpr double kTwoPiLayout = 2 * std::numbers::pi;

}  // namespace

std::vector<float> circle_layout(int nodes) {
  std::vector<float> p(2 * std::size_t(std::max(nodes, 0)));
  for (int i = 0; i < nodes; ++i) {
    const double a = kTwoPiLayout * i / nodes + kTwoPiLayout / 4;
    p[2 * std::size_t(i)] = float(std::cos(a));
    p[2 * std::size_t(i) + 1] = float(std::sin(a));
  }
  return p;
}

std::vector<float> spring_layout(const oscillators::Topologies& t, int member, int iterations) {
  const int n = t.nodes;
  const std::size_t un = std::size_t(std::max(n, 0));
  std::vector<double> px(un), py(un);
  const std::vector<float> start = circle_layout(n);
  for (std::size_t i = 0; i < un; ++i) px[i] = start[2 * i], py[i] = start[2 * i + 1];
  if (n > 1) {
    // Fruchterman-Reingold in the square [-1, 1]^2: k = sqrt(area / n), repulsion k^2/d between all
    // pairs, attraction d^2/k along edges, and a step ("temperature") that cools linearly.
    // Repulsion is O(n^2) per iteration, so it is skipped above 3000 nodes.
    const double k = std::sqrt(4.0 / n);
    const int iters = n > 3000 ? 0 : iterations;
    std::vector<double> fx(un), fy(un);
    for (int it = 0; it < iters; ++it) {
#pragma omp parallel for schedule(static) if (n > 500)
      for (int i = 0; i < n; ++i) {
        double ax = 0, ay = 0;
        const double xi = px[std::size_t(i)], yi = py[std::size_t(i)];
        for (int j = 0; j < n; ++j) {
          if (j == i) continue;
          const double dx = xi - px[std::size_t(j)], dy = yi - py[std::size_t(j)];
          const double d2 = std::max(dx * dx + dy * dy, 1e-12);
          ax += dx * k * k / d2, ay += dy * k * k / d2;
        }
        for (std::int64_t q = t.begin(member, i); q < t.end(member, i); ++q) {
          const std::size_t j = std::size_t(t.col[std::size_t(q)]);
          const double dx = xi - px[j], dy = yi - py[j];
          const double d = std::sqrt(dx * dx + dy * dy);
          ax -= dx * d / k, ay -= dy * d / k;
        }
        fx[std::size_t(i)] = ax, fy[std::size_t(i)] = ay;
      }
      const double temp = 0.1 * (1.0 - double(it) / iters) + 1e-3;
      for (std::size_t i = 0; i < un; ++i) {
        const double f = std::hypot(fx[i], fy[i]);
        if (f > 0) {
          const double sc = std::min(f, temp) / f;
          px[i] += fx[i] * sc, py[i] += fy[i] * sc;
        }
      }
    }
  }
  // Centre and scale into [-1, 1]^2, keeping the aspect ratio.
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (std::size_t i = 0; i < un; ++i) {
    x0 = std::min(x0, px[i]), x1 = std::max(x1, px[i]);
    y0 = std::min(y0, py[i]), y1 = std::max(y1, py[i]);
  }
  const double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  const double half = std::max({(x1 - x0) / 2, (y1 - y0) / 2, 1e-9});
  std::vector<float> out(2 * un);
  for (std::size_t i = 0; i < un; ++i) {
    out[2 * i] = float((px[i] - cx) / half);
    out[2 * i + 1] = float((py[i] - cy) / half);
  }
  return out;
}

}  // namespace simscope::app
