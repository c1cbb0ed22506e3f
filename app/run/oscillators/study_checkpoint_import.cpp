// Version 3 of a study checkpoint (one process' blocks in order) read and imported into the
// per-block version written now (study_checkpoint.hpp: read_study_checkpoint,
// prepare_block_checkpoint, which also starts a new checkpoint).
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "oscillators/oscillators_params.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "oscillators/study_checkpoint_files.hpp"

namespace simscope::app {

namespace osc = simscope::oscillators;
namespace fs = std::filesystem;
using namespace checkpoint_files;

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

CheckpointHeader prepare_block_checkpoint(const std::string& dir, const std::string& workload,
                                          const ParamSet& p, Backend backend,
                                          const std::optional<CheckpointHeader>& header) {
  if (header && header->version == kCheckpointVersionWritten) return *header;
  const osc::StudyOptions o = osc::study_options_from(p);
  CheckpointHeader h = study_header(workload, p, backend);
  h.version = kCheckpointVersionWritten;
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

}  // namespace simscope::app
