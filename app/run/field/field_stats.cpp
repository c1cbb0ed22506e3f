#include "field_stats.hpp"

#include <algorithm>
#include <cstdio>

namespace simscope::app {

void add_tree_stats(const field::Result& fr, RunResult& r) {
  r.stats["method_tree"] = fr.method == field::Method::Tree ? 1 : 0;
  r.stat_texts["method"] = field::to_string(fr.method);  // the method that ran: auto resolved
  if (fr.method != field::Method::Tree) return;
  const field::TreeStats& t = fr.tree;
  r.stats["tree_build_seconds"] = t.build_seconds;
  r.stats["tree_eval_seconds"] = t.eval_seconds;
  r.stats["tree_error_seconds"] = t.error_seconds;
  r.stats["tree_order"] = t.order;
  r.stats["tree_theta"] = t.theta;
  r.stats["error_samples"] = double(t.error_samples);
  // The window's frame before its deferred measurement (Options::defer_error): the follow-up
  // result drops this stat and carries the measured error.
  if (t.error_deferred) r.stats["error_pending"] = 1;
  if (t.error_samples > 0) {
    r.stats["rms_rel_error"] = t.rms_rel_error;
    r.stats["max_rel_error"] = t.max_rel_error;
    // The ladder's own measure (tree_evaluator.cpp): the larger of E's and the potential's.
    const double measured = std::max(t.rms_rel_error, t.rms_rel_error_potential);
    const double tol = r.params.get_double("tree.tolerance");
    const bool met = measured <= tol;
    r.stats["tolerance_met"] = met ? 1 : 0;
    if (!met) {
      const bool fp32 = r.params.get_string("precision") == "fp32";
      char buf[400];
      std::snprintf(buf, sizeof buf,
                    "tree: the measured RMS errors (E %.3g, potential %.3g) exceed tree.tolerance "
                    "%.3g at order %d, theta %.3g, as far as the tree refines: these outputs are "
                    "its best; %smethod=direct gives the exact sums",
                    t.rms_rel_error, t.rms_rel_error_potential, tol, t.order, t.theta,
                    fp32 ? "precision=fp64 sums the near field in float64, " : "");
      r.warnings.push_back(buf);
    }
  }
}

}  // namespace simscope::app
