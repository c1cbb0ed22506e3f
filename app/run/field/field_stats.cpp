#include "field_stats.hpp"

namespace simscope::app {

void add_tree_stats(const field::Result& fr, RunResult& r) {
  r.stats["method_tree"] = fr.method == field::Method::Tree ? 1 : 0;
  if (fr.method != field::Method::Tree) return;
  const field::TreeStats& t = fr.tree;
  r.stats["tree_build_seconds"] = t.build_seconds;
  r.stats["tree_eval_seconds"] = t.eval_seconds;
  r.stats["tree_error_seconds"] = t.error_seconds;
  r.stats["tree_order"] = t.order;
  r.stats["tree_theta"] = t.theta;
  r.stats["error_samples"] = double(t.error_samples);
  if (t.error_samples > 0) {
    r.stats["rms_rel_error"] = t.rms_rel_error;
    r.stats["max_rel_error"] = t.max_rel_error;
  }
}

}  // namespace simscope::app
