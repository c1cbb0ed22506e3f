#include "progress_line.hpp"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace simscope::app {

ProgressLine::ProgressLine(std::string what, bool quiet)
    : what_(std::move(what)), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0) {}

void ProgressLine::update(double f, double t, const std::function<void()>& before_first) {
  if (first_fraction_ < 0 && f > 0) first_fraction_ = f, first_seconds_ = t;
  if (quiet_ || t <= 1.0 || t - last_ <= (tty_ ? 0.25 : 5.0)) return;
  if (!printed_ && before_first) before_first();
  const double gained = first_fraction_ < 0 ? 0 : f - first_fraction_;
  char eta[48] = "ETA --";
  if (gained > 0.005 && t - first_seconds_ > 0.5)  // a rate over at least half a second
    std::snprintf(eta, sizeof eta, "ETA %.1f s", (t - first_seconds_) * (1 - f) / gained);
  std::fprintf(stderr,
               tty_ ? "\r%s: %3.0f%%  elapsed %.1f s  %s   " : "%s: %3.0f%%  elapsed %.1f s  %s\n",
               what_.c_str(), 100 * f, t, eta);
  std::fflush(stderr);
  last_ = t;
  printed_ = true;
}

void ProgressLine::clear() {
  if (printed_ && tty_) std::fprintf(stderr, "\r%60s\r", "");
  printed_ = false;
}

}  // namespace simscope::app
