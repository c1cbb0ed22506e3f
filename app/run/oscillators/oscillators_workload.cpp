// The `oscillators` workload as the app drives it.
// Headless studies (RunCommand Whole, or Study from the GUI) and a live view that advances a kept
// state (Live, Step, Reset).
#include "oscillators_workload.hpp"

#include "oscillators_stats.hpp"

#include <algorithm>
#include <filesystem>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <optional>
#include <sstream>

#include "job/cache_key.hpp"
#include "core/error.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/network_layout.hpp"
#include "oscillators/model.hpp"
#include "oscillators/oscillators_params.hpp"
#include "oscillators/oscillators_stat_labels.hpp"
#include "oscillators/study.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "oscillators/study_estimate.hpp"
#include "oscillators/topology.hpp"
#include "ranges/split_merge.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

namespace osc = simscope::oscillators;
using Clock = std::chrono::steady_clock;

using osc::kLiveMembers;
constexpr int kMaxImageSide = 4096;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Output `name` as the descriptor declares it, with its fp64 values.
OutputArray array64(const std::string& name, std::vector<std::size_t> shape,
                    std::vector<double> data) {
  OutputArray o = workload_descriptor("oscillators").make_output(name);
  o.shape = std::move(shape);
  o.data = std::move(data);
  return o;
}

/// Key of the parameters that define the networks and the live state.
/// Files by identity and unused settings are left out, as in cache_key.
std::string network_key(const ParamSet& p) {
  return cache_key(p, {"network.nodes", "network.topology", "network.k", "network.p",
                       "network.file", "network.seed"}) +
         '|';
}

std::string live_key(const ParamSet& p, Backend b) {
  std::ostringstream k;
  k << network_key(p) << std::min<std::int64_t>(p.get_int("ensemble.size"), kLiveMembers) << '|';
  k << cache_key(p, {"init", "init.seed", "init.file", "precision"}) << '|';
  k << to_string(b);
  return k.str();
}

/// Recent samples, at most `cap` of each series.
struct History {
  std::deque<double> step, msd, order, wm, wr;
  void clear() {
    for (auto* d : {&step, &msd, &order, &wm, &wr}) d->clear();
  }
  void append(const osc::Series& s, std::size_t cap) {
    for (std::size_t j = 0; j < s.size(); ++j) {
      step.push_back(double(s.step[j]));
      msd.push_back(s.msd[j]);
      order.push_back(s.order[j]);
      wm.push_back(j < s.watch_msd.size() ? s.watch_msd[j] : kNaN);
      wr.push_back(j < s.watch_order.size() ? s.watch_order[j] : kNaN);
    }
    while (step.size() > cap)
      for (auto* d : {&step, &msd, &order, &wm, &wr}) d->pop_front();
  }
};

/// Every stride-th entry of v so that at most `cap` remain; the last one is kept.
std::vector<double> decimate(const std::vector<double>& v, std::size_t cap) {
  if (v.size() <= cap) return v;
  const std::size_t stride = (v.size() + cap - 1) / cap;
  std::vector<double> out;
  for (std::size_t i = (v.size() - 1) % stride; i < v.size(); i += stride) out.push_back(v[i]);
  return out;
}

/// Strides that keep an image of rows x cols within kMaxImageSide per side.
int stride_for(std::size_t n) { return int((n + kMaxImageSide - 1) / kMaxImageSide); }

class OscillatorsWorkload final : public Workload {
 public:
  const Schema& schema() const override { return osc::schema(); }

  bool continuous(const ParamSet&) const override { return true; }

  ViewKind view_kind(const ParamSet& p) const override {
    return p.get_string("view") == "oscillators" ? ViewKind::Custom : ViewKind::Plane;
  }

  RunResult run(const ParamSet& params, Backend backend, const RunRequest& request,
                Progress* progress) override {
    const RunCommand cmd = request.command;
    const bool study_run = cmd == RunCommand::Whole || cmd == RunCommand::Study;
    if (request.range) {
      if (!study_run)
        throw Error(std::string("oscillators: a work range splits a study, not the live view ('") +
                    to_string(cmd) + "')");
      return study_range(params, osc::settings_from(params), backend, *request.range,
                         request.checkpoint, progress);
    }
    const osc::Settings s = osc::settings_from(params);
    if (study_run) return study(params, s, backend, request.checkpoint, progress);
    return live(params, s, backend, cmd, progress);
  }

  ViewHints view_hints(const std::string& view) const override {
    if (view == "amplitudes") return {"", "linear"};
    return {"twilight", "linear"};  // cyclic, for phases
  }

  ViewImage view_image(const RunResult& r, const std::string& view) const override {
    ViewImage img;
    img.set_hints(view_hints(view));
    const bool amp = view == "amplitudes";
    const OutputArray* o = r.find(amp ? "state" : "phases");
    if (!o || o->shape.size() < 2) throw Error("oscillators: the result has no state to show");
    const std::size_t K = o->shape[0], N = o->shape[1];
    const int sk = stride_for(K), sn = stride_for(N);
    img.rows = int((K + sk - 1) / sk);
    img.cols = int((N + sn - 1) / sn);
    std::vector<float> values(std::size_t(img.rows) * img.cols);
    const std::vector<double>& v = o->data.values<double>();
    for (int i = 0; i < img.rows; ++i)
      for (int j = 0; j < img.cols; ++j) {
        const std::size_t q = std::size_t(i) * sk * N + std::size_t(j) * sn;
        values[std::size_t(i) * img.cols + j] =
            amp ? float(std::hypot(v[2 * q], v[2 * q + 1])) : float(v[q]);
      }
    img.data = std::move(values);
    // Members and nodes are indices, not lengths: the map fills the view, and each axis is titled
    // with the indices it covers.
    img.annotations.aspect = ImageAspect::Fill;
    img.annotations.axis_i = {"member k", true, 0.0, double(std::size_t(img.rows - 1) * sk)};
    img.annotations.axis_j = {"node i", true, 0.0, double(std::size_t(img.cols - 1) * sn)};
    img.label = amp ? "|z|" : "theta";
    img.unit = amp ? "" : "rad";
    return img;
  }

  std::string describe_sample(const RunResult& r, int i, int j) const override {
    const OutputArray* o = r.find("phases");
    if (!o || o->shape.size() < 2) return "";
    const int sk = stride_for(o->shape[0]), sn = stride_for(o->shape[1]);
    char buf[96];
    std::snprintf(buf, sizeof buf, "member %d, node %d", i * sk, j * sn);
    return buf;
  }

 private:
  // ---- study ---------------------------------------------------------------------------------

  /// Runs a study of `p`, read as `settings`. With `ck` (headless), checkpoints into ck->dir as
  /// it goes and resumes from it when ck->resume (run_block_checkpointed).
  RunResult study(const ParamSet& p, const osc::Settings& settings, Backend backend,
                  const std::shared_ptr<CheckpointRequest>& ck, Progress* progress) {
    const auto t0 = Clock::now();
    RunResult r = base(p, backend);
    const osc::StudyOptions& o = settings.study;
    osc::validate(o);
    const osc::Topologies t = osc::make_topologies(p);
    std::unique_ptr<osc::Ensemble> ens;  // without a checkpoint: the whole ensemble at once
    osc::StudyResult s;
    if (ck) {
      s = checkpointed_study(*ck, p, settings, backend, progress);
    } else {
      ens = osc::make_ensemble(backend);
      s = osc::run_study(*ens, t, osc::make_initial_state(p), o, progress);
    }
    fill_study_result(r, s, o);
    add_coupling_warning(o.model, t, r);
    const std::size_t T = s.msd_t.size();

    auto pl = std::make_shared<OscillatorsPayload>();
    pl->study = true;
    pl->frame = ck ? osc::frame_of(s.final_state, kLiveMembers, o.steps) : ens->frame(kLiveMembers);
    pl->shown = std::clamp(int(settings.live_topology), 0, std::max(0, pl->frame.members - 1));
    pl->layout = layout_for(p, t, pl->shown);
    pl->dt = o.dt;
    pl->every = o.every;
    const std::size_t cap = std::size_t(settings.live_history);
    std::vector<double> steps(T);
    for (std::size_t j = 0; j < T; ++j) steps[j] = double((j + 1) * std::size_t(o.every));
    pl->step = decimate(steps, cap);
    pl->msd = decimate(s.msd_t, cap);
    pl->order = decimate(s.order_t, cap);
    pl->members = int(t.members);
    pl->msd_mean = s.msd_mean;
    pl->msd_sem = s.msd_sem;
    pl->valid = s.valid;
    pl->failed = s.failed_count;
    pl->osc_steps_per_s = r.stats["osc_steps_per_s"];
    pl->backend = backend;
    r.payload = pl;
    r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  }

  /// Runs a work range of a study: members `members`, on group boundaries (osc::run_study_range).
  /// With `ck`, reads and writes the version-5 checkpoint in ck->dir (run_block_checkpointed).
  /// Returns the range's per-member outputs, and in RunResult::part the sums merge_ranges needs.
  RunResult study_range(const ParamSet& p, const osc::Settings& settings, Backend backend,
                        const IndexRange& members,
                        const std::shared_ptr<CheckpointRequest>& ck, Progress* progress) {
    const auto t0 = Clock::now();
    RunResult r = base(p, backend);
    const osc::StudyOptions& o = settings.study;
    osc::validate(o);
    // The range's members only; member k's network and state are those of the whole study.
    const int K = settings.members;
    const IndexRange m = resolve(members, std::size_t(K), "oscillators members");
    if (m.end == m.begin) throw Error("oscillators: an empty range of members");
    const int first = int(m.begin), count = int(m.end - m.begin);
    osc::StudyResult s;
    osc::DegreeSpread spread;  // of the range's networks, for the literal form's merged warning
    const bool literal = o.model.form == osc::CouplingForm::Literal;
    if (ck) {
      s = run_block_checkpointed(*ck, p, o, backend, m, progress);
      if (literal) spread = osc::degree_spread(osc::make_topologies(p, count, first), o.model.degree);
    } else {
      const osc::Topologies t = osc::make_topologies(p, count, first);
      const osc::State init = osc::make_initial_state(p, count, first);
      auto ens = osc::make_ensemble(backend);
      s = osc::run_study_range(*ens, t, init, o, m, progress, K);
      if (literal) spread = osc::degree_spread(t, o.model.degree);
    }
    fill_study_result(r, s, o);
    RangePart part{"members", s.member_begin, s.member_begin + s.msd.size(), std::size_t(K), {}};
    part.sums["failed"].assign(s.failed.begin(), s.failed.end());
    part.sums["block_msd_sum"] = s.block_msd_sum;
    part.sums["block_order_sum"] = s.block_order_sum;
    part.sums["block_finite"].assign(s.block_finite.begin(), s.block_finite.end());
    part.sums["block"] = {double(s.block)};
    part.sums["group"] = {double(s.group)};
    part.sums["seconds"] = {s.seconds};
    part.sums["seconds_before"] = {s.seconds_before};
    part.sums["peak_device_bytes"] = {s.peak_device_bytes};
    if (literal)  // for the merged warning (merge_ranges)
      part.sums["degree_spread"] = {spread.lo, spread.hi, double(spread.differ),
                                    double(spread.nodes), double(spread.graphs),
                                    spread.shared ? 1.0 : 0.0};
    r.part = std::move(part);
    r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  }

 public:
  WorkAxis work_axis(const ParamSet& p) override {
    const int K = int(p.get_int("ensemble.size"));
    // Whole blocks while there are as many of them as ranges, else the reduction groups.
    WorkAxis a;
    a.name = "members";
    a.length = std::size_t(K);
    a.granule = std::size_t(osc::study_block_members(K));
    a.cuts = osc::study_cuts(K);
    return a;
  }

  /// Members concatenated in range order; series summed block by block in block order
  /// (osc::merge_study_ranges), bit-identical to the unsplit study. Ensemble statistics come from
  /// all members, warnings from the whole. No payload.
  RunResult merge_ranges(std::vector<RunResult> parts) const override {
    check_parts(parts, "members");
    std::vector<osc::StudyResult> studies;
    double total = 0;
    for (const RunResult& pr : parts) {
      osc::StudyResult s;
      s.member_begin = pr.part->begin;
      s.members_total = int(pr.part->length);
      s.block = int(part_sums(pr, "block").at(0));
      s.group = int(part_sums(pr, "group").at(0));
      s.seconds = part_sums(pr, "seconds").at(0);
      s.seconds_before = part_sums(pr, "seconds_before").at(0);
      s.peak_device_bytes = part_sums(pr, "peak_device_bytes").at(0);
      const OutputArray* msd = pr.find("msd");
      const OutputArray* state = pr.find("state");
      const OutputArray* msd_t = pr.find("msd_t");
      if (!msd || !state || !msd_t || state->shape.size() != 3)
        throw Error("oscillators: cannot merge work ranges: a part lacks msd, msd_t or state");
      s.msd = msd->data.values<double>();
      s.msd_t.resize(msd_t->shape[0]);
      const auto& failed = part_sums(pr, "failed");
      s.failed.assign(failed.begin(), failed.end());
      s.final_state.members = int(state->shape[0]);
      s.final_state.nodes = int(state->shape[1]);
      const std::size_t q = state->shape[0] * state->shape[1];
      s.final_state.x.resize(q);
      s.final_state.y.resize(q);
      const std::vector<double>& sv = state->data.values<double>();
      for (std::size_t i = 0; i < q && 2 * i + 1 < sv.size(); ++i)
        s.final_state.x[i] = sv[2 * i], s.final_state.y[i] = sv[2 * i + 1];
      s.block_msd_sum = part_sums(pr, "block_msd_sum");
      s.block_order_sum = part_sums(pr, "block_order_sum");
      const auto& fin = part_sums(pr, "block_finite");
      s.block_finite.assign(fin.begin(), fin.end());
      studies.push_back(std::move(s));
      total += pr.total_seconds;
    }
    const osc::StudyResult s = osc::merge_study_ranges(studies);
    RunResult r = parts.front();
    r.outputs.clear();
    r.warnings.clear();
    r.stats.clear();
    r.part.reset();
    r.payload.reset();
    add_unused_warnings(r.params, r);
    const osc::StudyOptions o = osc::study_options_from(r.params);
    fill_study_result(r, s, o);
    if (o.model.form == osc::CouplingForm::Literal) {  // the parts' networks, as unsplit
      osc::DegreeSpread all;
      for (const RunResult& pr : parts) {
        const std::vector<double>& v = part_sums(pr, "degree_spread");
        if (v.size() != 6) throw Error("oscillators: cannot merge work ranges: no degree spread");
        all.add({v[0], v[1], std::int64_t(v[2]), std::int64_t(v[3]), std::int64_t(v[4]),
                 v[5] != 0});
      }
      if (std::string w = osc::literal_coupling_warning(all, o.model); !w.empty())
        r.warnings.push_back(std::move(w));
    }
    r.total_seconds = total;
    return r;
  }

 private:
  /// The study checkpointed in ck.dir in version 5, per block, which any rank count resumes.
  /// A version-3 checkpoint is imported first. A new study interrupted before its first save leaves
  /// no folder.
  static osc::StudyResult checkpointed_study(CheckpointRequest& ck, const ParamSet& p,
                                             const osc::Settings& settings, Backend backend,
                                             Progress* progress) {
    const std::optional<CheckpointHeader> header = read_checkpoint_header(ck.dir);
    check_resume_rules(ck.dir, ck.resume, header, "oscillators", p, backend);
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path out_dir = fs::path(ck.dir).parent_path();
    const bool out_dir_existed = out_dir.empty() || fs::exists(out_dir, ec);
    try {
      prepare_block_checkpoint(ck.dir, "oscillators", p, backend, header);
      return run_block_checkpointed(ck, p, settings.study, backend,
                                    IndexRange{0, std::size_t(settings.members)}, progress);
    } catch (...) {
      if (!header) {  // a new study: keep its folders only once they hold progress
        try {
          const std::optional<CheckpointHeader> h = read_checkpoint_header(ck.dir);
          if (h && !block_checkpoint_has_progress(ck.dir, *h)) remove_checkpoint(ck.dir);
          if (!out_dir_existed && fs::is_empty(out_dir, ec)) fs::remove(out_dir, ec);
        } catch (const std::exception&) {
        }
      }
      throw;
    }
  }

  // ---- live ------------------------------------------------------------------------------------

  /// The live view of `p`, read as `settings`: `cmd` advances, steps or resets the kept state.
  RunResult live(const ParamSet& p, const osc::Settings& settings, Backend backend,
                 RunCommand cmd, Progress* progress) {
    const auto t0 = Clock::now();
    RunResult r = base(p, backend);
    const std::string key = live_key(p, backend);
    if (cmd == RunCommand::Reset || !live_ens_ || key != live_key_ || live_ens_->backend() != backend) {
      live_key_.clear();
      live_ens_.reset();
      const int K = std::min(settings.members, kLiveMembers);
      live_topo_ = osc::make_topologies(p, K);
      const osc::State s0 = osc::make_initial_state(p, K);
      auto ens = osc::make_ensemble(backend);
      ens->load(live_topo_, s0, settings.study.precision);
      live_ens_ = std::move(ens);
      live_key_ = key;
      history_.clear();
      shown_ = -1;
    }
    const int K = live_topo_.members;
    const int shown = std::clamp(int(settings.live_topology), 0, K - 1);
    if (shown != shown_) history_.clear(), shown_ = shown;  // the watched series restart
    const osc::Model& m = settings.study.model;
    const double dt = settings.study.dt;
    osc::Recording rec;
    rec.transient = settings.transient;
    rec.every = settings.study.every;
    rec.watch = shown;
    const std::int64_t steps = cmd == RunCommand::Step    ? 1
                               : cmd == RunCommand::Reset ? 0
                                                          : settings.steps_per_frame;
    osc::Series series;
    const auto c0 = Clock::now();
    live_ens_->advance(m, dt, steps, rec, series, progress);
    r.compute_seconds = std::chrono::duration<double>(Clock::now() - c0).count();
    const std::size_t cap = std::size_t(settings.live_history);
    history_.append(series, cap);

    const osc::State st = live_ens_->state();
    const osc::MemberStats ms = live_ens_->member_stats(rec.transient);
    const std::size_t N = std::size_t(live_topo_.nodes);
    r.outputs.push_back(array64("msd", {std::size_t(K)}, ms.msd_mean));
    r.outputs.push_back(
        array64("msd_t", {history_.msd.size()}, {history_.msd.begin(), history_.msd.end()}));
    r.outputs.push_back(array64("order_t", {history_.order.size()},
                                {history_.order.begin(), history_.order.end()}));
    r.outputs.push_back(array64("phases", {std::size_t(K), N}, phases_of(st)));
    r.outputs.push_back(array64("state", {std::size_t(K), N, 2}, interleave(st)));

    auto pl = std::make_shared<OscillatorsPayload>();
    pl->frame = live_ens_->frame(K);
    pl->shown = shown;
    pl->layout = layout_for(p, live_topo_, shown);
    pl->dt = dt;
    pl->every = rec.every;
    pl->step.assign(history_.step.begin(), history_.step.end());
    pl->msd.assign(history_.msd.begin(), history_.msd.end());
    pl->order.assign(history_.order.begin(), history_.order.end());
    pl->watch_msd.assign(history_.wm.begin(), history_.wm.end());
    pl->watch_order.assign(history_.wr.begin(), history_.wr.end());
    pl->members = settings.members;
    osc::ensemble_mean(ms.msd_mean, pl->msd_mean, pl->msd_sem, pl->valid);
    pl->failed = std::count(ms.failed.begin(), ms.failed.end(), std::uint8_t(1));
    const double osc_steps = double(K) * double(N) * double(steps);
    pl->osc_steps_per_s = r.compute_seconds > 0 ? osc_steps / r.compute_seconds : 0;
    pl->backend = backend;
    r.payload = pl;

    LiveStats live;
    live.step = double(live_ens_->steps_done());
    live.time = dt * live.step;
    live.live_members = K;
    live.nodes = double(N);
    if (!history_.order.empty()) live.order = history_.order.back();
    if (!history_.msd.empty()) live.msd = history_.msd.back();
    r.stats = live.to_map();
    if (pl->failed > 0)
      r.warnings.push_back(std::to_string(pl->failed) + " of the " + std::to_string(K) +
                           " live members went non-finite (integrator.dt too large?); "
                           "reset to start again");
    if (settings.live_topology >= K)
      r.warnings.push_back("live.topology " + std::to_string(settings.live_topology) +
                           " is past the last live member (" + std::to_string(K - 1) +
                           "): member " + std::to_string(shown) + " is shown");
    add_coupling_warning(m, live_topo_, r);
    r.total_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  }

  RunResult base(const ParamSet& p, Backend backend) {
    RunResult r;
    r.workload = "oscillators";
    r.params = p;
    r.backend = backend;
    add_unused_warnings(p, r);
    return r;
  }

  /// The warning of osc::literal_coupling_warning, when there is one.
  static void add_coupling_warning(const osc::Model& m, const osc::Topologies& t, RunResult& r) {
    std::string w = osc::literal_coupling_warning(t, m);
    if (!w.empty()) r.warnings.push_back(std::move(w));
  }

  /// Warnings for settings the run does not use, by the schema's rules of use: a file whose
  /// selector picks something else, and the generators' settings when the file is used.
  static void add_unused_warnings(const ParamSet& p, RunResult& r) {
    for (std::string& w : p.schema().unused_warnings(p)) r.warnings.push_back(std::move(w));
  }

  /// The layouts of member k's network, cached while the networks stay the same.
  std::shared_ptr<const OscillatorsLayout> layout_for(const ParamSet& p, const osc::Topologies& t,
                                                      int k) {
    const std::string key = network_key(p) + std::to_string(k);
    if (key != layout_key_ || !layout_) {
      auto l = std::make_shared<OscillatorsLayout>();
      l->member = k;
      l->nodes = t.nodes;
      l->circle = circle_layout(t.nodes);
      l->spring = spring_layout(t, std::min(k, t.members - 1));
      l->edges = t.edges(std::min(k, t.members - 1));
      layout_ = std::move(l);
      layout_key_ = key;
    }
    return layout_;
  }

  std::unique_ptr<osc::Ensemble> live_ens_;
  std::string live_key_;
  osc::Topologies live_topo_;
  History history_;
  int shown_ = -1;
  std::shared_ptr<const OscillatorsLayout> layout_;
  std::string layout_key_;
};

}  // namespace

namespace {
/// A live frame is a first full result once its time series (R(t), msd(t)) hold
/// kFirstCurveSamples samples, or after 200 frames' steps (a long record.every); a study's
/// result (no live stats) always is.
bool live_frame_plots_a_curve(const RunResult& r) {
  constexpr std::size_t kFirstCurveSamples = 10;  // live.history's least
  if (!r.stats.count("live_members")) return true;
  const OutputArray* o = r.find("order_t");
  if (!o || o->shape.empty() || o->shape[0] >= kFirstCurveSamples) return true;
  const double per_frame = double(r.params.get_int("live.steps_per_frame"));
  return r.stats.count("step") && r.stats.at("step") >= 200 * per_frame;
}
}  // namespace

WorkloadDescriptor oscillators_descriptor() {
  using D = io::DType;
  WorkloadDescriptor d;
  d.name = "oscillators";
  d.make = [] { return std::make_unique<OscillatorsWorkload>(); };
  d.outputs = {{"msd", "msd", "", D::Float64},
               {"msd_t", "msd(t)", "", D::Float64},
               {"order_t", "R(t)", "", D::Float64},
               {"phases", "theta", "rad", D::Float64},
               {"state", "x, y", "", D::Float64}};
  d.shapes = "msd (K,), msd_t and order_t (T,), phases (K,N), state (K,N,2)";
  d.stat_labels = oscillators_stat_labels();
  d.first_full = live_frame_plots_a_curve;
  d.estimate = osc::estimate_line;
  d.work = osc::study_work;
  d.work_unit = "osc-steps";
  d.open_checkpoint = [](const ParamSet& params, Backend backend, const std::string& out_dir,
                        bool resume, double interval_s) -> std::shared_ptr<CheckpointRequest> {
    return open_study_checkpoint("oscillators", params, backend, out_dir, resume, interval_s)
        .request;
  };
  d.inputs = {{{"npy"},
               [](const std::vector<std::size_t>& s) {
                 return (s.size() == 2 && s[1] == 2) || (s.size() == 3 && s[2] == 2);
               },
               {{"init", "file"}, {"init.file", "{path}"}}},
              {{"txt", "csv", "edges", "el"},
               nullptr,
               {{"network.topology", "file"}, {"network.file", "{path}"}}}};
  d.inputs_text = "initial state .npy, edge list .txt/.csv";
  d.npy_expected = "oscillators take an initial state (N, 2) or (K, N, 2)";
  return d;
}

std::vector<double> phases_of(const osc::State& s) {
  std::vector<double> p(s.x.size());
  for (std::size_t q = 0; q < p.size(); ++q) p[q] = osc::phase(s.x[q], s.y[q]);
  return p;
}

std::vector<double> interleave(const osc::State& s) {
  std::vector<double> v(2 * s.x.size());
  for (std::size_t q = 0; q < s.x.size(); ++q) v[2 * q] = s.x[q], v[2 * q + 1] = s.y[q];
  return v;
}

void fill_study_result(RunResult& r, const osc::StudyResult& s, const osc::StudyOptions& o) {
  const std::size_t K = s.msd.size(), N = std::size_t(s.final_state.nodes), T = s.msd_t.size();

  r.outputs.push_back(array64("msd", {K}, s.msd));
  r.outputs.push_back(array64("msd_t", {T}, s.msd_t));
  r.outputs.push_back(array64("order_t", {T}, s.order_t));
  r.outputs.push_back(array64("phases", {K, N}, phases_of(s.final_state)));
  r.outputs.push_back(array64("state", {K, N, 2}, interleave(s.final_state)));

  if (s.failed_count > 0) {
    std::string which;
    int listed = 0;
    for (std::size_t k = 0; k < K && listed < 10; ++k)
      if (s.failed[k]) which += (listed++ ? ", " : "") + std::to_string(k);
    if (s.failed_count > listed) which += ", ...";
    r.warnings.push_back(std::to_string(s.failed_count) + " of " + std::to_string(K) +
                         " members went non-finite (integrator.dt too large?) and are left "
                         "out of the averages (NaN in msd.npy): members " +
                         which);
  }
  if (s.valid < 2)
    r.warnings.push_back(s.valid == 1 ? "one finite member: no standard error of the mean msd"
                                      : "no finite member: no mean msd");
  if (T == 0) r.warnings.push_back("integrator.steps < record.every: msd_t and order_t are empty");
  if (r.params.has_schema() && o.transient != r.params.get_int("integrator.transient"))
    r.warnings.push_back("integrator.transient: its default " +
                         std::to_string(r.params.get_int("integrator.transient")) +
                         " is not below integrator.steps = " + std::to_string(o.steps) +
                         ", so the time-averaged msd leaves out the first quarter, " +
                         std::to_string(o.transient) +
                         " steps; set integrator.transient to choose");

  for (const auto& [k, v] : StudyStats::of(s, o).to_map()) r.stats[k] = v;
  // This run's integration only; time from earlier sessions of a resumed study is its own stat.
  r.compute_seconds = std::max(0.0, s.seconds - s.seconds_before);
}

}  // namespace simscope::app
