#include "latency_log.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace simscope::app::gui {

LatencyLog::LatencyLog() {
  const char* v = std::getenv("SIMSCOPE_LATENCY_LOG");
  on_ = v && std::strcmp(v, "1") == 0;
}

void LatencyLog::submitted(const ParamSet& params, Time input, Time at) {
  if (!on_) return;
  submissions_.push_back({params, input == Time{} ? at : input, at});
  if (submissions_.size() > kKept) submissions_.pop_front();
}

void LatencyLog::polled(const ParamSet& params, Time started, Time finished, Time now) {
  if (!on_) return;
  have_ = false;
  for (auto it = submissions_.rbegin(); it != submissions_.rend(); ++it) {
    if (!(it->params == params)) continue;
    have_ = true;
    input_ = it->input, submitted_ = it->at;
    started_ = started, finished_ = finished, polled_ = now, uploaded_ = now;
    return;
  }
}

void LatencyLog::uploaded(Time now) {
  if (have_) uploaded_ = now;
}

std::string LatencyLog::drawn(Time now) {
  if (!have_) return "";
  have_ = false;
  const auto ms = [&](Time t) {
    return std::chrono::duration<double, std::milli>(t - input_).count();
  };
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "simscope: latency (ms since the input): submitted %.1f, run %.1f .. %.1f, "
                "polled %.1f, uploaded %.1f, drawn %.1f",
                ms(submitted_), ms(started_), ms(finished_), ms(polled_), ms(uploaded_), ms(now));
  return buf;
}

}  // namespace simscope::app::gui
