#include "progress_line.hpp"

#include <unistd.h>

#include <cstdio>
#include <utility>

#include "job/projection.hpp"

namespace simscope::app {

ProgressLine::ProgressLine(std::string what, bool quiet)
    : what_(std::move(what)), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0) {}

void ProgressLine::set_work(double work, std::string unit) {
  work_ = work;
  unit_ = std::move(unit);
}

std::string ProgressLine::text(double f, double t) const {
  char line[256];
  if (work_ > 0) {
    const auto p = project(work_, first_fraction_, first_seconds_, f, t);
    if (!p) return {};
    std::snprintf(line, sizeof line, "%s: %3.0f%%  elapsed %.1f s  %.3g %s/s  ETA %.1f s  (whole %.1f s)",
                  what_.c_str(), 100 * f, t, p->rate, unit_.c_str(), p->eta_s, p->total_s);
    return line;
  }
  const double gained = first_fraction_ < 0 ? 0 : f - first_fraction_;
  char eta[48] = "ETA --";
  if (gained > 0.005 && t - first_seconds_ > 0.5)  // a rate over at least half a second
    std::snprintf(eta, sizeof eta, "ETA %.1f s", (t - first_seconds_) * (1 - f) / gained);
  std::snprintf(line, sizeof line, "%s: %3.0f%%  elapsed %.1f s  %s", what_.c_str(), 100 * f, t,
                eta);
  return line;
}

void ProgressLine::update(double f, double t, const std::function<void()>& before_first) {
  if (first_fraction_ < 0 && f > 0) first_fraction_ = f, first_seconds_ = t;
  if (quiet_ || t <= 1.0 || t - last_ <= (tty_ ? 0.25 : 5.0)) return;
  const std::string s = text(f, t);
  if (s.empty()) return;  // the rate not measured yet
  if (!printed_ && before_first) before_first();
  std::fprintf(stderr, tty_ ? "\r%s   " : "%s\n", s.c_str());
  std::fflush(stderr);
  last_ = t;
  printed_ = true;
}

void ProgressLine::clear() {
  if (printed_ && tty_) std::fprintf(stderr, "\r%60s\r", "");
  printed_ = false;
}

}  // namespace simscope::app
