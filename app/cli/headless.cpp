#include "headless.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>

#include "core/error.hpp"
#include "headless_output.hpp"
#include "job/checkpoint.hpp"
#include "job/worker.hpp"
#include "output/run_manifest.hpp"
#include "output_checks.hpp"
#include "params/params_json.hpp"
#include "progress_line.hpp"
#include "session.hpp"
#include "stale_outputs.hpp"
#include "stop_signals.hpp"
#include "sweep.hpp"
#include "view/compare.hpp"
#include "view/plane_profile.hpp"
#include "view_png_export.hpp"

namespace simscope::app {
namespace {

/// Thrown once the job was cancelled after a stop signal and its checkpoint written.
struct Interrupted {
  int signal;
};

/// --estimate: one line with the run's projected time (WorkloadDescriptor::estimate); nothing is
/// run. Exit status 0; a workload without an estimate is refused (Error).
int print_estimate(const Session& s) {
  const WorkloadDescriptor& d = workload_descriptor(s.workload->name());
  if (!d.estimate) {
    std::string studies;  // the workloads that estimate their runs
    for (const WorkloadDescriptor& w : workloads())
      if (w.estimate) studies += (studies.empty() ? "" : " or ") + w.name;
    throw Error("--estimate projects an " + studies + " study's time; the workload is " +
                s.workload->name());
  }
  std::printf("%s\n", d.estimate(s.params, s.backend.backend).c_str());
  return 0;
}

/// Runs the job on a Worker and shows "field: 42% ETA 3 s" on stderr while it takes long.
/// The back end's notice is printed once: here before the first progress line, else by the caller
/// after a successful run, so a failed run prints only its error. On a stop signal, cancels the
/// job, waits until it ends (a study writes its checkpoint) and throws Interrupted.
RunResult run_with_progress(Worker& worker, const Session& s, bool quiet, bool& notice_printed,
                            std::shared_ptr<CheckpointRequest> checkpoint) {
  worker.submit(s.params, s.backend.backend, false, RunCommand::Whole, std::move(checkpoint));
  ProgressLine line(worker.workload().name(), quiet);
  const WorkloadDescriptor& d = workload_descriptor(worker.workload().name());
  if (const double work = d.work ? d.work(s.params) : 0; work > 0) line.set_work(work, d.work_unit);
  for (;;) {
    if (stop_signal()) {
      worker.cancel();
      while (worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      line.clear();
      throw Interrupted{stop_signal()};
    }
    if (auto ev = worker.poll()) {
      line.clear();
      if (!ev->error.empty()) throw Error(ev->error);
      return std::move(*ev->result);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    line.update(worker.progress(), worker.elapsed_seconds(), [&] {
      if (!notice_printed && !s.backend.notice.empty())
        std::fprintf(stderr, "simscope: %s\n", s.backend.notice.c_str());
      notice_printed = true;
    });
  }
}

/// --pin-set: A's parameters, `params` with `sets` (NAME=VALUE) applied; none without sets.
/// Throws simscope::Error naming the setting at fault.
std::optional<ParamSet> pinned_params(const ParamSet& params,
                                      const std::vector<std::string>& sets) {
  if (sets.empty()) return std::nullopt;
  ParamSet a = params;
  for (const std::string& kv : sets) {
    const auto eq = kv.find('=');
    try {
      a.set_from_string(kv.substr(0, eq), kv.substr(eq + 1));
    } catch (const std::exception& e) {
      throw Error("--pin-set " + kv + ": " + e.what());
    }
  }
  return a;
}

/// One line: the largest and RMS difference B - A of the shown output.
void print_difference(const RunResult& a, const RunResult& b, const std::string& name, bool quiet) {
  const OutputArray *oa = a.find(name), *ob = b.find(name);
  if (quiet || !oa || !ob || oa->shape != ob->shape) return;
  const auto va = output_values(*oa), vb = output_values(*ob);
  const DiffStats d =
      diff_stats(std::vector<float>(va.begin(), va.end()), std::vector<float>(vb.begin(), vb.end()),
                 false, is_angle(ob->unit));
  std::printf("simscope: B - A of %s: max |B - A| %.6g, RMS %.6g over %zu values\n", name.c_str(),
              d.max_abs, d.rms, d.compared);
}

}  // namespace

int run_headless(const RunOptions& o) {
  install_stop_handlers();
  if (!o.sweep.empty()) return run_sweep(o);  // sweep.cpp
  std::shared_ptr<CheckpointRequest> ck;
  try {
    Session s = make_session(o);
    if (o.estimate) return print_estimate(s);
    const std::string dir = o.out_dir.empty() ? "simscope-out" : o.out_dir;
    check_output_dir(dir);
    if (!o.out_image.empty()) check_output_file(o.out_image, dir);
    const std::string workload_name = s.workload->name();
    // A study keeps a checkpoint and may continue one (checkpoint.hpp).
    ck = open_checkpoint(workload_name, s.params, s.backend.backend, dir, o.resume,
                         o.checkpoint_interval);
    const std::optional<ParamSet> pin_params = pinned_params(s.params, o.pin_sets);
    Worker worker(std::move(s.workload));
    bool notice_printed = false;
    RunResult r = run_with_progress(worker, s, o.quiet, notice_printed, ck);
    if (stop_signal()) throw Interrupted{stop_signal()};
    std::optional<RunResult> pinned;  // --pin-set: A, computed after B (no checkpoint)
    if (pin_params) {
      Session sa{nullptr, *pin_params, s.view, s.backend, s.view_given};
      pinned = run_with_progress(worker, sa, o.quiet, notice_printed, nullptr);
      if (stop_signal()) throw Interrupted{stop_signal()};
    }
    const Workload& viewer = worker.workload();
    const std::string view_param = viewer.view_param();
    std::optional<Profile> profile;  // --profile: checked before anything is written
    if (!o.profile.empty())
      profile = line_profile(plane_samples(viewer, r, r.params.get_string(view_param)),
                             parse_profile_line(o.profile));
    // A reused --out-dir loses an earlier run's profile.csv, pinned/, difference/ and frames/.
    remove_stale_outputs(dir, OutputsKept{profile.has_value(), pinned.has_value(), false});
    Json extra;  // run.json: A's parameters when --pin-set made a comparison
    if (pinned) {
      extra["pinned"]["pin_set"] = o.pin_sets;
      extra["pinned"]["params"] = params_to_json(pinned->params);
      extra["pinned"]["folder"] = "pinned";
    }
    write_headless_outputs(
        o, s, viewer, r, dir, extra, notice_printed, [&](std::vector<std::string>& written) {
          if (pinned) {
            const auto more = export_comparison(
                *pinned, r, dir,
                run_manifest(*pinned, s.backend.notice, RenderInfo{}, front_end_versions()));
            written.insert(written.end(), more.begin(), more.end());
            print_difference(*pinned, r, r.params.get_string(view_param), o.quiet);
          }
          if (profile) {
            const std::string path = (std::filesystem::path(dir) / "profile.csv").string();
            write_profile_csv(path, *profile);
            written.push_back(path);
          }
        });
    if (ck) remove_checkpoint(ck->dir);  // the outputs are complete
    return 0;
  } catch (const Interrupted& i) {
    std::fprintf(stderr, "simscope: %s\n",
                 interrupted_message(signal_name(i.signal), ck.get()).c_str());
    return 128 + i.signal;
  } catch (const CheckpointRefused& e) {
    std::fprintf(stderr, "simscope: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simscope: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace simscope::app
