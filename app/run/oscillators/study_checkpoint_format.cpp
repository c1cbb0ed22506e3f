// checkpoint.json of a study checkpoint, read in every version this build knows and written in
// version kCheckpointVersionWritten (study_checkpoint.hpp).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "job/cache_key.hpp"
#include "output/json.hpp"
#include "oscillators/study_checkpoint.hpp"
#include "oscillators/study_checkpoint_files.hpp"

namespace simscope::app {

namespace osc = simscope::oscillators;
namespace fs = std::filesystem;
using namespace checkpoint_files;

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
                std::to_string(kCheckpointVersionImported) + " and " + std::to_string(kCheckpointVersionWritten) +
                "): remove the folder to start over, or resume with that simscope");
  const int version = to_int("version");
  if (version != kCheckpointVersionImported && version != kCheckpointVersionReadAsWritten && version != kCheckpointVersionWritten)
    throw Error(path + ": checkpoint version " + std::to_string(version) +
                ", this simscope reads versions " + std::to_string(kCheckpointVersionImported) + ", " +
                std::to_string(kCheckpointVersionReadAsWritten) + " and " +
                std::to_string(kCheckpointVersionWritten));
  if (version != kCheckpointVersionWritten && to_int("members") < kGroupsChangedBelow)
    throw Error(path + ": checkpoint version " + std::to_string(version) + " of a study of " +
                std::to_string(to_int("members")) +
                " members was written by an earlier simscope, which summed studies of fewer than " +
                std::to_string(kGroupsChangedBelow) +
                " members per 8 (this one sums them per member, version " +
                std::to_string(kCheckpointVersionWritten) +
                "): remove the folder to start over, or resume with that simscope");
  CheckpointHeader h;
  // Version 4 of 64 members or more is version 5's format, with the same groups.
  h.version = version == kCheckpointVersionReadAsWritten ? kCheckpointVersionWritten : version;
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
  if (o.contains("partial") && h.version == kCheckpointVersionImported) {
    h.partial = true;
    h.partial_step = std::int64_t(json_double(o["partial"], "step"));
  }
  if (h.members < 1 || h.nodes < 1 || h.block < 1 || h.blocks_done < 0 || h.samples < 0 ||
      h.partial_step < 0)
    throw Error(path + ": checkpoint has invalid sizes (remove the folder to start over)");
  return h;
}

namespace checkpoint_files {

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
  o["version"] = kCheckpointVersionWritten;
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

}  // namespace checkpoint_files

}  // namespace simscope::app
