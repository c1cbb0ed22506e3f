// The field tree's figures in words for the window (field_status.hpp).
#include "field_status.hpp"

#include <algorithm>
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

std::vector<StatLine> field_subgrid_check(const RunResult& r) {
  const OutputArray* e = r.find("error");
  const OutputArray* xyz = r.find("error_xyz");
  if (!e || !xyz || e->shape.empty()) return {};
  const std::vector<float>& v = e->host();
  if (v.empty() || xyz->data.size() != 3 * v.size()) return {};
  const std::size_t m = e->shape.back();
  const std::size_t worst = std::size_t(std::max_element(v.begin(), v.end()) - v.begin());
  std::vector<float> sorted = v;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double median = sorted[sorted.size() / 2], largest = v[worst];
  const auto g = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", x);
    return std::string(b);
  };
  const std::string grid = std::to_string(m) + " x " + std::to_string(m);
  const std::string per_target =
      "|E_tree - E_direct| / |E_direct| of one target of the subgrid, against fp64 direct sums";
  return {
      {"subgrid check", grid + " targets" + (v.size() > m * m ? " per face" : ""), "",
       std::to_string(v.size()),
       "The error view's targets: the plane's samples at indices round(k (n-1) / (m-1)), m = " +
           std::to_string(m) +
           " (tree.error_grid), each compared with fp64 direct sums. A "
           "check apart from the error sample of \"Last run\", whose RMS tree.tolerance bounds."},
      {"subgrid median error", format_error(median) + " relative", "", g(median),
       "The median over the subgrid of " + per_target + "."},
      {"subgrid max error", format_error(largest) + " relative", "", g(largest),
       "The largest " + per_target + ": larger than the RMS where |E| is small."},
      {"subgrid max at",
       "x=" + g(xyz->data.at(3 * worst)) + " y=" + g(xyz->data.at(3 * worst + 1)) +
           " z=" + g(xyz->data.at(3 * worst + 2)),
       "",
       g(xyz->data.at(3 * worst)) + ", " + g(xyz->data.at(3 * worst + 1)) + ", " +
           g(xyz->data.at(3 * worst + 2)),
       "The target of the subgrid's max error (error_xyz: x, y, z)."}};
}

std::map<std::string, std::string> field_screenshot_texts(const RunResult& r) {
  std::map<std::string, std::string> text;
  if (const std::string t = field_status_text(r); !t.empty()) text["tree_status"] = t;
  if (const std::vector<StatLine> c = field_subgrid_check(r); !c.empty())
    text["subgrid_check"] = stat_lines_text(c);
  if (r.stats.count("tree_order")) {  // the ladder's rung it ran at
    char rule[64];
    std::snprintf(rule, sizeof rule, "order %g, theta %.4g", r.stats.at("tree_order"),
                  r.stats.at("tree_theta"));
    text["tree_rule"] = rule;
  }
  return text;
}

}  // namespace simscope::app
