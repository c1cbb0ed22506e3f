// The per-block checkpoint (version kCheckpointVersionWritten): each block's progress written
// as it runs and read back by any rank count, and what the folder holds (study_checkpoint.hpp).
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/progress.hpp"
#include "output/json.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/oscillators_params.hpp"
#include "oscillators/study.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "oscillators/study_checkpoint_files.hpp"
#include "ranges/progress_relay.hpp"

namespace simscope::app {

namespace osc = simscope::oscillators;
namespace fs = std::filesystem;
using namespace checkpoint_files;

namespace checkpoint_files {

/// Writes block b's progress `sp` under way (generation g) and removes its older generations.
void write_partial(const std::string& dir, int b, std::int64_t g, const osc::StudyProgress& sp) {
  const osc::EnsembleSnapshot& s = sp.snapshot;
  const std::size_t kb = std::size_t(s.state.members), N = std::size_t(sp.nodes);
  const auto st = interleave(s.state.x, s.state.y, 0, kb * N);
  write_atomic(dir, partial_file(b, g, "state"), st.data(), {kb, N, 2});
  const auto acc = stack3(s.total, s.window, s.failed);
  write_atomic(dir, partial_file(b, g, "acc"), acc.data(), {3, kb});
  const auto ser = group_rows(sp.series);
  write_atomic(dir, partial_file(b, g, "series"), ser.data(),
               {3, sp.series.msd.size(), groups_of(sp.members, kb)});
  Json o = Json::object();
  o["generation"] = json_number(double(g));
  o["step"] = json_number(double(s.step));
  o["seconds"] = json_number(sp.seconds);
  write_text_atomic(dir, partial_file(b, -1, "json"), json_text(o));
  // Older generations of this block's files go.
  const std::string stem = partial_file(b, -1, ""), json = partial_file(b, -1, "json");
  const std::string keep = partial_file(b, g, "").substr(0, stem.size() + 8);  // "...gGGGGGG."
  std::error_code ec;
  std::vector<fs::path> gone;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(stem, 0) == 0 && name != json && name.rfind(keep, 0) != 0)
      gone.push_back(e.path());
  }
  for (const fs::path& old : gone) fs::remove(old, ec);
}

bool block_finished(const std::string& dir, const CheckpointHeader& h, int b) {
  std::error_code ec;
  return b < h.blocks_done || fs::exists(path_in(dir, block_file(b, "json")), ec);
}

}  // namespace checkpoint_files

namespace {

void remove_partial(const std::string& dir, int b) {
  const std::string stem = partial_file(b, -1, "");
  std::error_code ec;
  std::vector<fs::path> gone;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(stem, 0) == 0) gone.push_back(e.path());
  for (const fs::path& g : gone) fs::remove(g, ec);
}

/// Block b finished (`sp` holds its members and contribution): its files, the marker last.
void write_finished(const std::string& dir, int b, const osc::StudyProgress& sp) {
  const std::size_t kb = sp.msd.size(), N = std::size_t(sp.nodes), T = std::size_t(sp.samples);
  write_atomic(dir, block_name(b, "msd"), sp.msd.data(), {kb});
  write_atomic(dir, block_name(b, "failed"), sp.failed.data(), {kb});
  const auto st = interleave(sp.final_state.x, sp.final_state.y, 0, kb * N);
  write_atomic(dir, block_name(b, "state"), st.data(), {kb, N, 2});
  const auto ser = stack3(sp.msd_sum, sp.order_sum, sp.finite);
  write_atomic(dir, block_name(b, "series"), ser.data(), {3, T});
  Json o = Json::object();
  o["seconds"] = json_number(sp.seconds);
  write_text_atomic(dir, block_file(b, "json"), json_text(o));
  remove_partial(dir, b);
}

/// Block b under way in `dir` (partial_BBBBB.json), ready for run_study_block to resume.
/// Nothing when there is none. `generation` receives its generation.
std::optional<osc::StudyProgress> read_partial(const std::string& dir, const CheckpointHeader& h,
                                               int b, std::int64_t every,
                                               std::int64_t& generation) {
  const std::optional<Json> j = read_json(dir, partial_file(b, -1, "json"));
  if (!j) return std::nullopt;
  const std::size_t N = std::size_t(h.nodes);
  const std::size_t kb =
      std::size_t(std::min(h.members, (b + 1) * h.block) - std::min(h.members, b * h.block));
  generation = std::int64_t(json_double(*j, "generation"));
  osc::StudyProgress sp;
  sp.members = h.members, sp.nodes = h.nodes, sp.samples = h.samples, sp.block = h.block;
  sp.blocks_done = b;
  sp.partial = true;
  sp.seconds = json_double(*j, "seconds");
  sp.final_state.nodes = h.nodes;
  sp.msd_sum.assign(std::size_t(h.samples), 0.0);
  sp.order_sum.assign(std::size_t(h.samples), 0.0);
  sp.finite.assign(std::size_t(h.samples), 0);
  osc::EnsembleSnapshot& s = sp.snapshot;
  s.step = std::int64_t(json_double(*j, "step"));
  if (s.step < 0 || every < 1)
    throw Error(path_in(dir, partial_file(b, -1, "json")) + ": invalid step");
  s.state.members = int(kb);
  s.state.nodes = h.nodes;
  split_state(as_doubles(read_array(dir, partial_file(b, generation, "state"), io::DType::Float64,
                                    {kb, N, 2})),
              s.state.x, s.state.y);
  std::vector<double> failed;
  rows3(read_array(dir, partial_file(b, generation, "acc"), io::DType::Float64, {3, kb}), s.total,
        s.window, failed);
  s.failed.assign(failed.begin(), failed.end());
  const std::size_t ns = std::size_t(s.step / every), G = groups_of(h.members, kb);
  read_group_rows(
      read_array(dir, partial_file(b, generation, "series"), io::DType::Float64, {3, ns, G}), ns, G,
      sp.series);
  return sp;
}

/// Finished block b as a one-block range result, read from its files.
/// A prefix block carries the prefix's sums as its contribution if it is block 0, none otherwise.
osc::StudyResult read_finished(const std::string& dir, const CheckpointHeader& h, int b) {
  const std::size_t N = std::size_t(h.nodes), T = std::size_t(h.samples);
  const int k0 = b * h.block, k1 = std::min(h.members, k0 + h.block);
  const std::size_t kb = std::size_t(k1 - k0);
  osc::StudyResult r;
  r.member_begin = std::size_t(k0);
  r.members_total = h.members;
  r.block = h.block;
  r.group = osc::study_group_members(h.members);
  r.msd = as_doubles(read_array(dir, block_name(b, "msd"), io::DType::Float64, {kb}));
  const io::NpyArray failed = read_array(dir, block_name(b, "failed"), io::DType::UInt8, {kb});
  r.failed.assign(failed.data.begin(), failed.data.end());
  r.final_state.nodes = h.nodes;
  r.final_state.members = int(kb);
  split_state(as_doubles(read_array(dir, block_name(b, "state"), io::DType::Float64, {kb, N, 2})),
              r.final_state.x, r.final_state.y);
  r.msd_t.resize(T);  // merge_study_ranges reads the series' length only
  r.order_t.resize(T);
  std::vector<double> finite;
  if (b >= h.blocks_done) {
    rows3(read_array(dir, block_name(b, "series"), io::DType::Float64, {3, T}), r.block_msd_sum,
          r.block_order_sum, finite);
    const std::optional<Json> j = read_json(dir, block_file(b, "json"));
    r.seconds = j ? json_double(*j, "seconds") : 0;
  } else if (b == 0) {
    rows3(read_array(dir, gen_name(h.generation, "sums"), io::DType::Float64, {3, T}),
          r.block_msd_sum, r.block_order_sum, finite);
    r.seconds = h.seconds;
  } else {
    r.block_msd_sum.assign(T, 0.0);
    r.block_order_sum.assign(T, 0.0);
    finite.assign(T, 0.0);
  }
  r.block_finite = to_counts(finite);
  r.seconds_before = r.seconds;  // (an earlier session's)
  return r;
}

}  // namespace

int checkpoint_members_done(const std::string& dir, const CheckpointHeader& h) {
  if (h.block < 1) return 0;
  const int blocks = (h.members + h.block - 1) / h.block;
  int done = 0;
  for (int b = 0; b < blocks; ++b)
    if (b < h.blocks_done || (h.version == kCheckpointVersionWritten && block_finished(dir, h, b)))
      done += std::min(h.members, (b + 1) * h.block) - b * h.block;
  return done;
}

/// Share of the study's integration the checkpoint holds: finished members plus blocks under way
/// at their saved step. Version 3 has one such block; version 5 one per partial file.
double checkpoint_fraction_done(const std::string& dir, const CheckpointHeader& h) {
  if (h.members < 1 || h.block < 1) return 0;
  const auto st = h.params.find("integrator.steps");
  const double steps = st == h.params.end() ? 0 : std::atof(st->second.c_str());
  const int done = checkpoint_members_done(dir, h);
  double part = 0;
  if (steps > 0 && h.version == kCheckpointVersionWritten) {
    const int blocks = (h.members + h.block - 1) / h.block;
    for (int b = h.blocks_done; b < blocks; ++b) {
      if (block_finished(dir, h, b)) continue;
      std::optional<Json> j;
      try {
        j = read_json(dir, partial_file(b, -1, "json"));
      } catch (const std::exception&) {
      }
      if (!j || !j->contains("step") || !(*j)["step"].is_number()) continue;
      const int kb = std::min(h.members, (b + 1) * h.block) - b * h.block;
      part += double(kb) * (*j)["step"].get<double>() / steps;
    }
  } else if (steps > 0 && h.partial) {
    part = double(std::min(h.members, done + h.block) - done) * double(h.partial_step) / steps;
  }
  return std::min(1.0, (done + part) / h.members);
}

bool block_checkpoint_has_progress(const std::string& dir, const CheckpointHeader& h) {
  if (h.blocks_done > 0) return true;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const auto ends_with = [&name](const std::string& t) {
      return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
    };
    if ((name.rfind("block_", 0) == 0 || name.rfind("partial_", 0) == 0) && ends_with(".json"))
      return true;
  }
  return false;
}

osc::StudyResult run_block_checkpointed(CheckpointRequest& ck, const ParamSet& p,
                                        Backend backend, const IndexRange& members,
                                        Progress* progress) {
  return run_block_checkpointed(ck, p, osc::study_options_from(p), backend, members, progress);
}

osc::StudyResult run_block_checkpointed(CheckpointRequest& ck, const ParamSet& p,
                                        const osc::StudyOptions& o, Backend backend,
                                        const IndexRange& members, Progress* progress) {
  osc::validate(o);
  const int K = int(p.get_int("ensemble.size"));
  const std::optional<CheckpointHeader> h = read_checkpoint_header(ck.dir);
  if (!h || h->version != kCheckpointVersionWritten)
    throw Error(ck.dir + ": no checkpoint of a study split into blocks (version 5)");
  const int block = osc::study_block_members(K);
  const std::int64_t T = o.steps / o.every;
  if (h->members != K || h->block != block || h->samples != T)
    throw Error(path_in(ck.dir, "checkpoint.json") + ": the checkpoint does not match the study (" +
                std::to_string(h->members) + " members in blocks of " + std::to_string(h->block) +
                ", " + std::to_string(h->samples) + " samples; the study has " + std::to_string(K) +
                ", " + std::to_string(block) + ", " + std::to_string(T) + ")");
  const IndexRange m = resolve(members, std::size_t(K), "study members");
  if (m.end == m.begin)
    throw Error("study members: range [" + std::to_string(m.begin) + ", " + std::to_string(m.end) +
                ") is empty");
  osc::study_units(K, m);  // throws unless the range is on group boundaries
  const int b0 = int(m.begin) / block, b1 = int((m.end + block - 1) / block);
  const double range_members = double(m.end - m.begin);
  std::vector<osc::StudyResult> parts;
  for (int b = b0; b < b1; ++b) {
    progress_check(progress);
    const int k0 = b * block, k1 = std::min(K, k0 + block);
    // The block's members in the range. A block cut between ranks runs in part without checkpoints
    // and is redone after an interruption, unless it finished whole before; then its part is read.
    const int a = std::max(int(m.begin), k0), z = std::min(int(m.end), k1);
    const bool whole = a == k0 && z == k1;
    if (block_finished(ck.dir, *h, b)) {
      const osc::StudyResult done = read_finished(ck.dir, *h, b);
      parts.push_back(
          whole ? done : osc::slice_study_block(done, IndexRange{std::size_t(a), std::size_t(z)}));
    } else if (!whole) {
      const osc::Topologies t = osc::make_topologies(p, z - a, a);
      const osc::State init = osc::make_initial_state(p, z - a, a);
      auto ens = osc::make_ensemble(backend);
      ProgressRelay relay(progress, double(a - int(m.begin)) / range_members,
                          double(z - int(m.begin)) / range_members);
      parts.push_back(osc::run_study_range(
          *ens, t, init, o, IndexRange{std::size_t(a), std::size_t(z)}, relay.inner(), K));
    } else {
      std::int64_t generation = 0;
      std::optional<osc::StudyProgress> under_way =
          read_partial(ck.dir, *h, b, o.every, generation);
      osc::StudyProgress sp = under_way ? std::move(*under_way) : osc::StudyProgress{};
      const osc::Topologies t = osc::make_topologies(p, k1 - k0, k0);
      const osc::State init = osc::make_initial_state(p, k1 - k0, k0);
      auto ens = osc::make_ensemble(backend);
      osc::StudyCheckpointing cp;
      cp.interval_s = ck.interval_s;
      cp.save = [&](const osc::StudyProgress& now) {
        try {
          if (now.blocks_done == b + 1)
            write_finished(ck.dir, b, now);
          else if (now.partial && now.blocks_done == b)
            write_partial(ck.dir, b, ++generation, now);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(ck.mutex);
          ck.error = e.what();
          throw;
        }
      };
      // The block's progress mapped into the range's.
      ProgressRelay relay(progress, double(k0 - int(m.begin)) / range_members,
                          double(k1 - int(m.begin)) / range_members);
      parts.push_back(osc::run_study_block(*ens, t, init, o, K, b, sp, cp, relay.inner()));
    }
    progress_set(progress, double(z - int(m.begin)) / range_members);
  }
  return osc::merge_study_ranges(parts);
}

}  // namespace simscope::app
