#pragma once
/// @file The batch front ends' progress line on stderr: "WHAT:  42%  elapsed 3.1 s  ETA 4.2 s",
/// with the rate and the whole job's projected time when the job's work is known.
#include <functional>
#include <string>

namespace simscope::app {

/// Shows a job's progress on stderr while it takes long.
/// On a terminal: after 1 s, then every 0.25 s, rewriting one line in place. Otherwise: one line
/// every 5 s once the ETA is measured, the first after 5 s. The ETA is measured from the first
/// progress report, since a resumed job starts part-way, and shows "--" until progress has moved
/// 0.5 % over at least 0.5 s.
class ProgressLine {
 public:
  /// `what` leads the line, e.g. "field" or "field on 4 ranks". `quiet`: never print.
  ProgressLine(std::string what, bool quiet);
  /// Reports progress `fraction` in [0, 1] at `seconds` since the start; prints when due.
  /// `before_first` runs once, just before the first line is printed, e.g. the back end's notice.
  void update(double fraction, double seconds, const std::function<void()>& before_first = {});
  /// Ends the shown line, erasing it on a terminal, so the next message starts on its own line.
  void clear();
  /// The job's work, e.g. an oscillators study's K N steps in "osc-steps". Then every line,
  /// the first included, names the rate and the projected times (the first line waits until they
  /// are measured): "WHAT:  12%  elapsed 6.1 s  4.1e+08 osc-steps/s  ETA 45.2 s  (whole 51.3 s)".
  void set_work(double work, std::string unit);
  /// The line's text for `fraction` at `seconds`, without the terminal's carriage return.
  /// Empty when the line names the rate and it is not measured yet.
  std::string text(double fraction, double seconds) const;

 private:
  std::string what_, unit_;
  double work_ = 0;
  bool quiet_, tty_;
  bool printed_ = false;
  double last_ = 0, first_fraction_ = -1, first_seconds_ = 0;
};

}  // namespace simscope::app
