#include "study_checkpoint_v3.hpp"

#include <cstdio>
#include <filesystem>
#include <vector>

#include "job/cache_key.hpp"
#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "output/json.hpp"

namespace simscope::test {
namespace {

using namespace simscope::app;

namespace fs = std::filesystem;
namespace osc = simscope::oscillators;

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

template <typename T>
void write_array(const std::string& dir, const std::string& name, const T* data,
                 const std::vector<std::size_t>& shape) {
  io::write_npy(dir + "/" + name, data, shape, /*durable=*/true);
}

/// x, y of members [from, from + count) as (count, 2) pairs.
std::vector<double> interleave(const std::vector<double>& x, const std::vector<double>& y,
                               std::size_t from, std::size_t count) {
  std::vector<double> v(2 * count);
  for (std::size_t q = 0; q < count; ++q) v[2 * q] = x[from + q], v[2 * q + 1] = y[from + q];
  return v;
}

template <class A, class B, class C>
std::vector<double> stack3(const A& a, const B& b, const C& c) {
  std::vector<double> v(a.begin(), a.end());
  v.insert(v.end(), b.begin(), b.end());
  v.insert(v.end(), c.begin(), c.end());
  return v;
}

}  // namespace

StudyCheckpointV3Writer::StudyCheckpointV3Writer(std::string dir, const std::string& workload,
                                                 const ParamSet& p, Backend backend,
                                                 const CheckpointHeader* resumed)
    : dir_(std::move(dir)), workload_(workload), backend_(to_string(backend)), params_(&p) {
  if (resumed) {
    blocks_on_disk_ = resumed->blocks_done;
    generation_ = resumed->generation;
    fresh_ = false;
  }
}

void StudyCheckpointV3Writer::write(const osc::StudyProgress& sp) {
  if (fresh_) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    fs::create_directories(dir_, ec);
    if (!fs::is_directory(dir_, ec)) throw Error(dir_ + ": cannot create the checkpoint folder");
    fresh_ = false;
  }
  const std::size_t N = std::size_t(sp.nodes);
  for (int b = blocks_on_disk_; b < sp.blocks_done; ++b) {
    const std::size_t k0 = std::size_t(b) * sp.block;
    const std::size_t kb = std::size_t(std::min(sp.members, (b + 1) * sp.block)) - k0;
    write_array(dir_, block_name(b, "msd"), sp.msd.data() + k0, {kb});
    write_array(dir_, block_name(b, "failed"), sp.failed.data() + k0, {kb});
    const auto st = interleave(sp.final_state.x, sp.final_state.y, k0 * N, kb * N);
    write_array(dir_, block_name(b, "state"), st.data(), {kb, N, 2});
  }
  blocks_on_disk_ = sp.blocks_done;
  const std::int64_t g = generation_ + 1;
  const std::size_t T = std::size_t(sp.samples);
  const auto sums = stack3(sp.msd_sum, sp.order_sum, sp.finite);
  write_array(dir_, gen_name(g, "sums"), sums.data(), {3, T});
  if (sp.partial) {
    const osc::EnsembleSnapshot& s = sp.snapshot;
    const std::size_t kb = std::size_t(s.state.members);
    const auto st = interleave(s.state.x, s.state.y, 0, kb * N);
    write_array(dir_, gen_name(g, "partial_state"), st.data(), {kb, N, 2});
    const auto acc = stack3(s.total, s.window, s.failed);
    write_array(dir_, gen_name(g, "partial_acc"), acc.data(), {3, kb});
    const std::size_t gm = std::size_t(osc::study_group_members(sp.members));
    const std::size_t ns = sp.series.msd.size(), G = (kb + gm - 1) / gm;
    const auto ser = stack3(sp.series.group_msd, sp.series.group_order, sp.series.group_finite);
    write_array(dir_, gen_name(g, "partial_series"), ser.data(), {3, ns, G});
  }
  Json o = Json::object();
  o["format"] = "simscope study checkpoint";
  o["version"] = 3;
  o["workload"] = workload_;
  o["backend"] = backend_;
  Json params = Json::object(), files = Json::object();
  for (const ParamSpec& spec : params_->schema().specs()) {
    params[spec.name] = format_value(params_->get(spec.name));
    if (spec.type == ParamType::Path && !params_->get_string(spec.name).empty())
      files[spec.name] = file_identity(params_->get_string(spec.name));
  }
  o["params"] = params;
  if (!files.empty()) o["files"] = files;
  o["members"] = sp.members;
  o["nodes"] = sp.nodes;
  o["samples"] = json_number(double(sp.samples));
  o["block"] = sp.block;
  o["blocks_done"] = sp.blocks_done;
  o["members_done"] = sp.members_done();
  o["generation"] = json_number(double(g));
  o["seconds"] = json_number(sp.seconds);
  if (sp.partial) o["partial"] = Json{{"step", json_number(double(sp.snapshot.step))}};
  io::write_file_atomic(dir_ + "/checkpoint.json", json_text(o), "the checkpoint", true);
  generation_ = g;
  const std::string keep = gen_prefix(g);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    const bool other_generation = name[0] == 'g' && name.rfind(keep, 0) != 0;
    if (other_generation || name.find(".tmp") != std::string::npos) fs::remove(e.path(), ec);
  }
}

}  // namespace simscope::test
