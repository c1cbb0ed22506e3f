#include "oscillators/study_checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "cache_key.hpp"
#include "core/shape_text.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "json.hpp"
#include "oscillators/ensemble.hpp"
#include "oscillators/oscillators_params.hpp"
#include "oscillators/study.hpp"
#include "progress_relay.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

namespace osc = simscope::oscillators;
constexpr const char* kFormat = "simscope study checkpoint";
constexpr int kVersion = kStudyCheckpointVersion;
constexpr int kBlockVersion = kBlockCheckpointVersion;  // per block, any rank count

namespace fs = std::filesystem;

std::string block_name(int b, const char* what) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "block_%05d.%s.npy", b, what);
  return buf;
}
std::string gen_prefix(std::int64_t g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "g%06lld.", static_cast<long long>(g));
  return buf;
}
std::string gen_name(std::int64_t g, const char* what) { return gen_prefix(g) + what + ".npy"; }

/// DIR/NAME (NAME alone when DIR is empty).
std::string path_in(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

/// DIR/NAME written whole, flushed to disk before it replaces the previous one.
template <typename T>
void write_atomic(const std::string& dir, const std::string& name, const T* data,
                  const std::vector<std::size_t>& shape) {
  io::write_npy(path_in(dir, name), data, shape, /*durable=*/true);
}

std::vector<double> interleave(const std::vector<double>& x, const std::vector<double>& y,
                               std::size_t from, std::size_t count) {
  std::vector<double> v(2 * count);
  for (std::size_t q = 0; q < count; ++q) v[2 * q] = x[from + q], v[2 * q + 1] = y[from + q];
  return v;
}

/// Reads a checkpoint array of dtype `dt` and shape `shape`. Throws Error naming the file.
io::NpyArray read_array(const std::string& dir, const std::string& name, io::DType dt,
                        const std::vector<std::size_t>& shape) {
  const std::string path = path_in(dir, name);
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(path +
                ": missing from the checkpoint (remove the checkpoint folder to start over)");
  io::NpyArray a = io::read_npy(path);
  if (a.dtype != dt || a.shape != shape)
    throw Error(path + ": checkpoint array is " + io::to_string(a.dtype) + " " + a.shape_text() +
                ", expected " + io::to_string(dt) + " " + shape_text(shape));
  return a;
}

std::vector<double> as_doubles(const io::NpyArray& a) {
  std::vector<double> v(a.size());
  if (!v.empty()) std::memcpy(v.data(), a.data.data(), v.size() * sizeof(double));
  return v;
}

/// Rows of a (3, n) fp64 array.
void rows3(const io::NpyArray& a, std::vector<double>& r0, std::vector<double>& r1,
           std::vector<double>& r2) {
  const std::vector<double> v = as_doubles(a);
  const std::size_t n = v.size() / 3;
  r0.assign(v.begin(), v.begin() + std::ptrdiff_t(n));
  r1.assign(v.begin() + std::ptrdiff_t(n), v.begin() + std::ptrdiff_t(2 * n));
  r2.assign(v.begin() + std::ptrdiff_t(2 * n), v.end());
}

std::vector<std::int64_t> to_counts(const std::vector<double>& v) { return {v.begin(), v.end()}; }

/// (3, n) rows one after the other.
template <class A, class B, class C>
std::vector<double> stack3(const A& a, const B& b, const C& c) {
  std::vector<double> v;
  v.reserve(a.size() + b.size() + c.size());
  v.insert(v.end(), a.begin(), a.end());
  v.insert(v.end(), b.begin(), b.end());
  v.insert(v.end(), c.begin(), c.end());
  return v;
}

/// Reduction groups of the block of `kb` members of a study of K (study_group_members).
std::size_t groups_of(int K, std::size_t kb) {
  const std::size_t g = std::size_t(osc::study_group_members(K));
  return (kb + g - 1) / g;
}

/// The (3, ns, G) array of a block under way: its groups' sums of msd and R and their counts
/// at each sample, in (sample, group) order (Series::group_*).
std::vector<double> group_rows(const osc::Series& s) {
  return stack3(s.group_msd, s.group_order, s.group_finite);
}

/// Fills Series::group_* of a block under way from its (3, ns, G) array.
/// Also sets the block means: the groups' fold over the count. Only their length is used.
void read_group_rows(const io::NpyArray& a, std::size_t ns, std::size_t G, osc::Series& s) {
  std::vector<double> counts;
  rows3(a, s.group_msd, s.group_order, counts);
  s.group_finite = to_counts(counts);
  s.msd.assign(ns, 0.0), s.order.assign(ns, 0.0), s.finite.assign(ns, 0);
  for (std::size_t j = 0; j < ns; ++j) {
    double m = 0, o = 0;
    std::int64_t n = 0;
    for (std::size_t q = 0; q < G; ++q)
      m += s.group_msd[j * G + q], o += s.group_order[j * G + q], n += s.group_finite[j * G + q];
    s.finite[j] = n;
    s.msd[j] = n > 0 ? m / double(n) : std::nan("");
    s.order[j] = n > 0 ? o / double(n) : std::nan("");
  }
}

/// Appends (n, N, 2) interleaved values to x, y.
void split_state(const std::vector<double>& v, std::vector<double>& x, std::vector<double>& y) {
  for (std::size_t q = 0; q + 1 < v.size(); q += 2) x.push_back(v[q]), y.push_back(v[q + 1]);
}

bool compared(const std::string& name) { return name != "view" && name.rfind("live.", 0) != 0; }

}  // namespace

std::string checkpoint_dir(const std::string& out_dir) { return path_in(out_dir, "checkpoint"); }

OpenedCheckpoint open_study_checkpoint(const std::string& workload, const ParamSet& params,
                                       Backend backend, const std::string& out_dir, bool resume,
                                       double interval_s) {
  OpenedCheckpoint o;
  o.request = std::make_shared<StudyCheckpointRequest>();
  o.request->workload = workload;
  o.request->dir = checkpoint_dir(out_dir);
  o.request->resume = resume;
  o.request->interval_s = interval_s;
  o.header = read_checkpoint_header(o.request->dir);
  check_resume_rules(o.request->dir, resume, o.header, workload, params, backend);
  return o;
}

void check_resume_rules(const std::string& dir, bool resume,
                        const std::optional<CheckpointHeader>& header,
                        const std::string& workload, const ParamSet& params, Backend backend) {
  if (resume && !header)
    throw CheckpointRefused("--resume: no checkpoint in " + dir +
                            " (nothing to resume; run without --resume to start the study)");
  if (!resume && header)
    throw CheckpointRefused(dir + " holds the checkpoint of an interrupted study (" +
                            std::to_string(checkpoint_members_done(dir, *header)) + " of " +
                            std::to_string(header->members) +
                            " members done): add --resume to continue it, or remove that "
                            "folder to start over");
  if (header) check_resumable(*header, workload, params, backend, dir);
}

std::optional<CheckpointHeader> read_checkpoint_header(const std::string& dir) {
  const std::string path = path_in(dir, "checkpoint.json");
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot read the checkpoint");
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  const Json o = Json::parse(text, nullptr, false);
  if (!o.is_object() || json_string(o, "format") != kFormat)
    throw Error(path + ": not a simscope study checkpoint (remove the folder to start over)");
  // A whole number in int range, else 0.
  const auto to_int = [&o](const char* key) {
    const double v = json_double(o, key);
    return v == std::floor(v) && std::fabs(v) < 2147483648.0 ? int(v) : 0;
  };
  if (to_int("version") == 1 || to_int("version") == 2)
    throw Error(path + ": checkpoint version " + std::to_string(to_int("version")) +
                " was written by an earlier simscope, whose series were summed per block (this "
                "one sums them per reduction group of members, versions " +
                std::to_string(kVersion) + " and " + std::to_string(kBlockVersion) +
                "): remove the folder to start over, or resume with that simscope");
  const int version = to_int("version");
  if (version != kVersion && version != kBlockCheckpointVersionOld && version != kBlockVersion)
    throw Error(path + ": checkpoint version " + std::to_string(version) +
                ", this simscope reads versions " + std::to_string(kVersion) + ", " +
                std::to_string(kBlockCheckpointVersionOld) + " and " +
                std::to_string(kBlockVersion));
  if (version != kBlockVersion && to_int("members") < kGroupsChangedBelow)
    throw Error(path + ": checkpoint version " + std::to_string(version) + " of a study of " +
                std::to_string(to_int("members")) +
                " members was written by an earlier simscope, which summed studies of fewer than " +
                std::to_string(kGroupsChangedBelow) +
                " members per 8 (this one sums them per member, version " +
                std::to_string(kBlockVersion) +
                "): remove the folder to start over, or resume with that simscope");
  CheckpointHeader h;
  // Version 4 of 64 members or more is version 5's format, with the same groups.
  h.version = version == kBlockCheckpointVersionOld ? kBlockVersion : version;
  h.workload = json_string(o, "workload");
  h.backend = json_string(o, "backend");
  if (const auto it = o.find("params"); it != o.end() && it->is_object())
    for (const auto& [k, v] : it->items()) h.params[k] = v.is_string() ? v.get<std::string>() : "";
  if (const auto it = o.find("files"); it != o.end() && it->is_object())
    for (const auto& [k, v] : it->items()) h.files[k] = v.is_string() ? v.get<std::string>() : "";
  h.members = to_int("members");
  h.nodes = to_int("nodes");
  h.block = to_int("block");
  h.blocks_done = to_int("blocks_done");
  h.samples = std::int64_t(json_double(o, "samples"));
  h.generation = std::int64_t(json_double(o, "generation"));
  h.seconds = json_double(o, "seconds");
  if (o.contains("partial") && h.version == kVersion) {
    h.partial = true;
    h.partial_step = std::int64_t(json_double(o["partial"], "step"));
  }
  if (h.members < 1 || h.nodes < 1 || h.block < 1 || h.blocks_done < 0 || h.samples < 0 ||
      h.partial_step < 0)
    throw Error(path + ": checkpoint has invalid sizes (remove the folder to start over)");
  return h;
}

void check_resumable(const CheckpointHeader& h, const std::string& workload, const ParamSet& p,
                     Backend backend, const std::string& dir) {
  const std::string tail = " in the checkpoint " + dir +
                           "; resume with the interrupted study's command line, or remove that "
                           "folder to start a new study";
  if (h.workload != workload)
    throw CheckpointRefused("--resume: the workload is " + workload + " here but " + h.workload +
                            tail);
  if (h.backend != to_string(backend))
    throw CheckpointRefused("--resume: --backend is " + std::string(to_string(backend)) +
                            " here but " + h.backend + tail);
  for (const ParamSpec& spec : p.schema().specs()) {
    if (!compared(spec.name)) continue;
    const std::string now = format_value(p.get(spec.name));
    const auto it = h.params.find(spec.name);
    if (it == h.params.end())
      throw CheckpointRefused("--resume: " + spec.name + " is " + now + " here but not set" + tail);
    if (it->second != now)
      throw CheckpointRefused("--resume: " + spec.name + " is " + now + " here but " + it->second +
                              tail);
    // Same file name but edited file: the study would continue from other inputs.
    const auto f = h.files.find(spec.name);
    if (spec.type == ParamType::Path && f != h.files.end() &&
        file_identity(p.get_string(spec.name)) != f->second)
      throw CheckpointRefused("--resume: the file " + spec.name + " = " + now +
                              " was changed since the checkpoint was written (its size or "
                              "modification time differ)" +
                              tail);
  }
}

osc::StudyProgress read_study_checkpoint(const std::string& dir, const CheckpointHeader& h) {
  osc::StudyProgress sp;
  sp.members = h.members;
  sp.nodes = h.nodes;
  sp.samples = h.samples;
  sp.block = h.block;
  sp.blocks_done = h.blocks_done;
  sp.seconds = h.seconds;
  sp.final_state.nodes = h.nodes;
  const std::size_t N = std::size_t(h.nodes);
  auto block_size = [&](int b) {
    return std::size_t(std::min(h.members, (b + 1) * h.block) - std::min(h.members, b * h.block));
  };
  for (int b = 0; b < h.blocks_done; ++b) {
    const std::size_t kb = block_size(b);
    const auto msd = as_doubles(read_array(dir, block_name(b, "msd"), io::DType::Float64, {kb}));
    const io::NpyArray failed = read_array(dir, block_name(b, "failed"), io::DType::UInt8, {kb});
    const auto st =
        as_doubles(read_array(dir, block_name(b, "state"), io::DType::Float64, {kb, N, 2}));
    sp.msd.insert(sp.msd.end(), msd.begin(), msd.end());
    sp.failed.insert(sp.failed.end(), failed.data.begin(), failed.data.end());
    split_state(st, sp.final_state.x, sp.final_state.y);
    sp.final_state.members += int(kb);
  }
  std::vector<double> finite;
  rows3(read_array(dir, gen_name(h.generation, "sums"), io::DType::Float64,
                   {3, std::size_t(h.samples)}),
        sp.msd_sum, sp.order_sum, finite);
  sp.finite = to_counts(finite);
  if (h.partial) {
    const std::size_t kb = block_size(h.blocks_done);
    const auto e = h.params.find("record.every");
    const std::int64_t every = e == h.params.end() ? 0 : std::atoll(e->second.c_str());
    if (every < 1) throw Error(path_in(dir, "checkpoint.json") + ": no valid record.every");
    sp.partial = true;
    osc::EnsembleSnapshot& s = sp.snapshot;
    s.step = h.partial_step;
    s.state.members = int(kb);
    s.state.nodes = h.nodes;
    split_state(as_doubles(read_array(dir, gen_name(h.generation, "partial_state"),
                                      io::DType::Float64, {kb, N, 2})),
                s.state.x, s.state.y);
    std::vector<double> failed;
    rows3(read_array(dir, gen_name(h.generation, "partial_acc"), io::DType::Float64, {3, kb}),
          s.total, s.window, failed);
    s.failed.assign(failed.begin(), failed.end());
    const std::size_t ns = std::size_t(s.step / every), G = groups_of(h.members, kb);
    read_group_rows(
        read_array(dir, gen_name(h.generation, "partial_series"), io::DType::Float64, {3, ns, G}),
        ns, G, sp.series);
  }
  return sp;
}

// ---- version 5 (and 4): per block, any rank count ---------------------------------------------------

namespace {

std::string block_file(int b, const char* what) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "block_%05d.%s", b, what);
  return buf;
}
std::string partial_file(int b, std::int64_t g, const char* what) {
  char buf[80];
  if (g < 0)
    std::snprintf(buf, sizeof buf, "partial_%05d.%s", b, what);
  else
    std::snprintf(buf, sizeof buf, "partial_%05d.g%06lld.%s.npy", b, static_cast<long long>(g),
                  what);
  return buf;
}

/// Writes `text` to DIR/NAME atomically: NAME.tmp, flushed, renamed. Throws Error naming it.
void write_text_atomic(const std::string& dir, const std::string& name, const std::string& text) {
  io::write_file_atomic(path_in(dir, name), text, "the checkpoint", true);
}

/// DIR/NAME as a JSON object; nothing when the file does not exist.
/// Throws Error naming the file when it is not an object.
std::optional<Json> read_json(const std::string& dir, const std::string& name) {
  const std::string path = path_in(dir, name);
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  Json o = Json::parse(text, nullptr, false);
  if (!o.is_object())
    throw Error(path + ": not a checkpoint record (remove the checkpoint folder to start over)");
  return o;
}

/// The header of study `p` (its parameters and input files), sizes left 0.
CheckpointHeader study_header(const std::string& workload, const ParamSet& p, Backend backend) {
  CheckpointHeader h;
  h.workload = workload;
  h.backend = to_string(backend);
  for (const ParamSpec& spec : p.schema().specs()) {
    h.params[spec.name] = format_value(p.get(spec.name));
    if (spec.type == ParamType::Path && !p.get_string(spec.name).empty())
      h.files[spec.name] = file_identity(p.get_string(spec.name));
  }
  return h;
}

void write_block_header(const std::string& dir, const CheckpointHeader& h) {
  Json o = Json::object();
  o["format"] = kFormat;
  o["version"] = kBlockVersion;
  o["workload"] = h.workload;
  o["backend"] = h.backend;
  Json params = Json::object();
  for (const auto& [k, v] : h.params) params[k] = v;
  o["params"] = params;
  if (!h.files.empty()) {
    Json files = Json::object();
    for (const auto& [k, v] : h.files) files[k] = v;
    o["files"] = files;
  }
  o["members"] = h.members;
  o["nodes"] = h.nodes;
  o["samples"] = json_number(double(h.samples));
  o["block"] = h.block;
  o["blocks_done"] = h.blocks_done;
  o["generation"] = json_number(double(h.generation));
  o["seconds"] = json_number(h.seconds);
  write_text_atomic(dir, "checkpoint.json", json_text(o));
}

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

bool block_finished(const std::string& dir, const CheckpointHeader& h, int b) {
  std::error_code ec;
  return b < h.blocks_done || fs::exists(path_in(dir, block_file(b, "json")), ec);
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

CheckpointHeader prepare_block_checkpoint(const std::string& dir, const std::string& workload,
                                          const ParamSet& p, Backend backend,
                                          const std::optional<CheckpointHeader>& header) {
  if (header && header->version == kBlockVersion) return *header;
  const osc::StudyOptions o = osc::study_options_from(p);
  CheckpointHeader h = study_header(workload, p, backend);
  h.version = kBlockVersion;
  h.members = int(p.get_int("ensemble.size"));
  h.nodes = int(p.get_int("network.nodes"));
  h.samples = o.every > 0 ? o.steps / o.every : 0;
  h.block = osc::study_block_members(h.members);
  if (!header) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec)) throw Error(dir + ": cannot create the checkpoint folder");
    const std::vector<double> zeros(3 * std::size_t(h.samples), 0.0);
    write_atomic(dir, gen_name(0, "sums"), zeros.data(), {3, std::size_t(h.samples)});
    write_block_header(dir, h);
    return h;
  }
  // Version 3: its finished blocks (files and sums) become the prefix, its block under way gets
  // that block's partial files, then checkpoint.json says version 5.
  const osc::StudyProgress sp = read_study_checkpoint(dir, *header);
  h.members = header->members, h.nodes = header->nodes, h.samples = header->samples;
  h.block = header->block;
  h.blocks_done = header->blocks_done;
  h.generation = header->generation;
  h.seconds = header->seconds;
  if (sp.partial) {
    osc::StudyProgress part = sp;
    part.seconds = 0;  // the prefix's seconds hold the time so far
    write_partial(dir, header->blocks_done, 1, part);
  }
  write_block_header(dir, h);
  std::error_code ec;
  const std::string keep = gen_name(h.generation, "sums");
  std::vector<fs::path> gone;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name[0] == 'g' && name != keep) gone.push_back(e.path());
  }
  for (const fs::path& g : gone) fs::remove(g, ec);
  return h;
}

int checkpoint_members_done(const std::string& dir, const CheckpointHeader& h) {
  if (h.block < 1) return 0;
  const int blocks = (h.members + h.block - 1) / h.block;
  int done = 0;
  for (int b = 0; b < blocks; ++b)
    if (b < h.blocks_done || (h.version == kBlockVersion && block_finished(dir, h, b)))
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
  if (steps > 0 && h.version == kBlockVersion) {
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

bool StudyCheckpointRequest::prepare_for_ranks(const ParamSet& params, Backend backend) {
  const std::optional<CheckpointHeader> header = read_checkpoint_header(dir);
  prepare_block_checkpoint(dir, workload, params, backend, header);
  return !header;
}

bool StudyCheckpointRequest::saved_nothing() const {
  try {
    const std::optional<CheckpointHeader> h = read_checkpoint_header(dir);
    return h && !block_checkpoint_has_progress(dir, *h);
  } catch (const std::exception&) {
    return false;
  }
}

std::string StudyCheckpointRequest::interrupted_message(const std::string& signal) {
  StudyCheckpointRequest* ck = this;
  std::string line = "interrupted by " + signal;
  {
    std::lock_guard<std::mutex> lock(ck->mutex);
    if (!ck->error.empty())
      return line + "; the checkpoint could not be written (" + ck->error + "); no outputs written";
  }
  std::optional<CheckpointHeader> h;
  try {
    h = read_checkpoint_header(ck->dir);
  } catch (const std::exception&) {
  }
  if (!h || (h->version == kBlockVersion && !block_checkpoint_has_progress(ck->dir, *h)))
    return line + " before the first checkpoint; no outputs written (nothing to resume)";
  char buf[160];
  std::snprintf(buf, sizeof buf, "; checkpoint %s: %d of %d members done, %.1f %% of the study",
                ck->dir.c_str(), checkpoint_members_done(ck->dir, *h), h->members,
                100.0 * checkpoint_fraction_done(ck->dir, *h));
  return line + buf + "; run the same command with --resume to continue it";
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
  const osc::StudyOptions o = osc::study_options_from(p);
  osc::validate(o);
  const int K = int(p.get_int("ensemble.size"));
  const std::optional<CheckpointHeader> h = read_checkpoint_header(ck.dir);
  if (!h || h->version != kBlockVersion)
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
