// The field tree's figures in words for the window (field_status.hpp).
#include "field_status.hpp"

#include <cstdio>

namespace simscope::app {

std::string field_status_text(const RunResult& r) {
  const auto& st = r.stats;
  const auto stat = [&](const char* k) { return st.count(k) ? st.at(k) : 0.0; };
  const bool pending = stat("error_pending") != 0;  // the frame before its measured error
  if (!st.count("rms_rel_error") && !pending) return "";
  // The tree evaluator reports 0 build seconds when its kept tree served (field.hpp TreeStats),
  // built by this run's preview or by an earlier run.
  char build[64] = "tree kept";
  if (stat("tree_build_seconds") > 0)
    std::snprintf(build, sizeof build, "tree build %.0f ms", stat("tree_build_seconds") * 1e3);
  else if (stat("tree_preview_build_seconds") > 0)
    std::snprintf(build, sizeof build, "tree build %.0f ms (preview)",
                  stat("tree_preview_build_seconds") * 1e3);
  char error[64];
  if (pending)
    std::snprintf(error, sizeof error, "%s",
                  r.preview ? "error \u2026 (preview)" : "error \u2026 measuring");
  else
    std::snprintf(error, sizeof error, "sample error %.1e rms, %.1e max", stat("rms_rel_error"),
                  stat("max_rel_error"));
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s, eval %.0f ms, %s", build, stat("tree_eval_seconds") * 1e3,
                error);
  return buf;
}

std::map<std::string, std::string> field_screenshot_texts(const RunResult& r) {
  std::map<std::string, std::string> text;
  if (const std::string t = field_status_text(r); !t.empty()) text["tree_status"] = t;
  if (r.stats.count("tree_order")) {  // the ladder's rung it ran at
    char rule[64];
    std::snprintf(rule, sizeof rule, "order %g, theta %.4g", r.stats.at("tree_order"),
                  r.stats.at("tree_theta"));
    text["tree_rule"] = rule;
  }
  return text;
}

}  // namespace simscope::app
