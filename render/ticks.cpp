#include "render/ticks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

namespace simscope::render {

namespace {

/// Multiples of `step` in [lo, hi], tolerating rounding at both ends.
std::vector<double> multiples(double lo, double hi, double step) {
  std::vector<double> out;
  const double eps = step * 1e-9;
  const double first = std::ceil((lo - eps) / step);
  const double last = std::floor((hi + eps) / step);
  if (!(last - first < 1000)) return out;
  for (double k = first; k <= last; k += 1.0) out.push_back(k * step);
  return out;
}

/// The step: 1-2-5, then 2.5, giving 5..7 ticks; else the count nearest 6.
double nice_step(double lo, double hi) {
  const double span = hi - lo;
  const double base = std::pow(10.0, std::floor(std::log10(span)) - 2);
  double best = 0;
  int best_score = 1 << 30;
  for (const double m : {1.0, 2.0, 5.0, 2.5}) {
    for (double scale = base; scale <= base * 1000.1; scale *= 10) {
      const double step = m * scale;
      const int n = static_cast<int>(multiples(lo, hi, step).size());
      // 5..7 ticks with a 1-2-5 step beat everything, then 2.5 steps, then closeness to 6.
      // Otherwise fewer ticks beat more, 4 over 8, so labels do not crowd a short bar.
      const int score = (n >= 5 && n <= 7) ? (m == 2.5 ? 1 : 0)
                        : n < 5            ? 10 + (5 - n)
                                           : 11 + 2 * (n - 7);
      if (score < best_score) {
        best_score = score;
        best = step;
      }
    }
  }
  return best;
}

/// "1.50" -> "1.5", "2.000" -> "2", "-0" -> "0".
std::string trim_zeros(std::string s) {
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace

std::string format_tick(double value, double step, bool scientific) {
  if (std::fabs(value) <= step * 1e-9) return "0";
  const double mag = std::fabs(value);
  char buf[64];
  if (!scientific && mag >= 1e-3 && mag < 1e5) {
    // Decimals the step needs, at most 9: 0.25 -> 2, 0.5 -> 1, 20 -> 0.
    int decimals = 0;
    while (decimals < 9) {
      const double scaled = step * std::pow(10.0, decimals);
      if (std::fabs(scaled - std::round(scaled)) < 1e-6 * scaled) break;
      ++decimals;
    }
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    return trim_zeros(buf);
  }
  int exponent = static_cast<int>(std::floor(std::log10(mag)));
  double mantissa = value / std::pow(10.0, exponent);
  if (std::fabs(mantissa) >= 9.9999995) {  // rounding up to the next decade
    mantissa /= 10;
    ++exponent;
  }
  // Mantissa decimals: as many as step / 10^exponent needs, at most 5.
  const double rel_step = step / std::pow(10.0, exponent);
  int decimals = 0;
  while (decimals < 5 && std::fabs(rel_step * std::pow(10.0, decimals) -
                                   std::round(rel_step * std::pow(10.0, decimals))) >
                             1e-6 * rel_step * std::pow(10.0, decimals)) {
    ++decimals;
  }
  std::snprintf(buf, sizeof buf, "%.*f", decimals, mantissa);
  return trim_zeros(buf) + "e" + std::to_string(exponent);
}

namespace {
/// One notation per colorbar: when any label needed an exponent, all of them get one.
std::vector<Tick> uniform_notation(std::vector<Tick> ticks, double step) {
  const bool sci = std::any_of(ticks.begin(), ticks.end(), [](const Tick& t) {
    return t.label.find('e') != std::string::npos;
  });
  if (sci)
    for (Tick& t : ticks) t.label = format_tick(t.value, step > 0 ? step : t.value, true);
  return ticks;
}
std::vector<Tick> colorbar_ticks_any(double lo, double hi, bool log_scale);
}  // namespace

std::vector<Tick> colorbar_ticks(double lo, double hi, bool log_scale) {
  std::vector<Tick> t = colorbar_ticks_any(lo, hi, log_scale);
  const double step = (!log_scale && t.size() >= 2) ? t[1].value - t[0].value : 0;
  return uniform_notation(std::move(t), step);
}

namespace {
std::vector<Tick> colorbar_ticks_any(double lo, double hi, bool log_scale) {
  std::vector<Tick> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) return ticks;
  if (!log_scale) {
    const double step = nice_step(lo, hi);
    for (const double v : multiples(lo, hi, step)) {
      ticks.push_back({v, (v - lo) / (hi - lo), format_tick(v, step)});
    }
    return ticks;
  }
  if (!(lo > 0)) return ticks;
  const double llo = std::log10(lo), lhi = std::log10(hi);
  auto position = [&](double v) { return (std::log10(v) - llo) / (lhi - llo); };
  const int d0 = static_cast<int>(std::ceil(llo - 1e-9));
  const int d1 = static_cast<int>(std::floor(lhi + 1e-9));
  const int decades = d1 - d0 + 1;
  std::vector<double> values;
  if (decades > 7) {
    const int every = (decades + 6) / 7;  // at most 7 labelled decades
    const int first = static_cast<int>(std::ceil(d0 / static_cast<double>(every))) * every;
    for (int d = first; d <= d1; d += every) values.push_back(std::pow(10.0, d));
  } else if (decades >= 5) {
    for (int d = d0; d <= d1; ++d) values.push_back(std::pow(10.0, d));
  } else {
    // Few decades: 1, 2, 5 x 10^k inside the range, e.g. 1 2 5 10 20 50 100. If that gives more
    // than 7, the decades alone, or 1 and 3 x 10^k (0.3 1 3 10 30) when the decades are fewer than
    // 3.
    auto collect = [&](std::initializer_list<double> mantissas) {
      std::vector<double> v;
      for (int d = d0 - 1; d <= d1; ++d)
        for (const double m : mantissas) {
          const double x = m * std::pow(10.0, d);
          if (x >= lo * (1 - 1e-9) && x <= hi * (1 + 1e-9)) v.push_back(x);
        }
      return v;
    };
    values = collect({1.0, 2.0, 5.0});
    if (values.size() > 7) {
      values = collect({1.0});
      if (values.size() < 3) values = collect({1.0, 3.0});
    }
    if (values.size() < 3) {  // narrower than about a decade: linear steps
      const double step = nice_step(lo, hi);
      for (const double v : multiples(lo, hi, step)) {
        if (v > 0) ticks.push_back({v, position(v), format_tick(v, step)});
      }
      return ticks;
    }
  }
  for (const double v : values) {
    ticks.push_back({v, position(v), format_tick(v, v)});
  }
  return ticks;
}

}  // namespace

std::vector<double> colorbar_minor_ticks(double lo, double hi, bool log_scale) {
  std::vector<double> out;
  if (!log_scale || !std::isfinite(lo) || !std::isfinite(hi) || !(lo > 0) || !(lo < hi)) {
    return out;
  }
  const std::vector<Tick> major = colorbar_ticks(lo, hi, true);
  auto labelled = [&](double v) {
    return std::any_of(major.begin(), major.end(),
                       [&](const Tick& t) { return std::fabs(t.value - v) <= 1e-9 * v; });
  };
  const double llo = std::log10(lo), lhi = std::log10(hi);
  const int d0 = static_cast<int>(std::floor(llo)), d1 = static_cast<int>(std::floor(lhi));
  const bool decades_only = d1 - d0 > 7;
  for (int d = d0; d <= d1; ++d) {
    for (int m = 1; m <= (decades_only ? 1 : 9); ++m) {
      const double v = m * std::pow(10.0, d);
      if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9) || labelled(v)) continue;
      out.push_back((std::log10(v) - llo) / (lhi - llo));
    }
  }
  return out;
}

}  // namespace simscope::render
