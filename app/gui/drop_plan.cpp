#include "drop_plan.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <cstdint>
#include <fstream>

#include "core/error.hpp"
#include "io/npy.hpp"
#include "output/json.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

DropPlan input(const std::string& workload,
               std::vector<std::pair<std::string, std::string>> sets) {
  DropPlan p;
  p.kind = DropPlan::Kind::Input;
  p.workload = workload;
  p.sets = std::move(sets);
  for (const auto& [n, v] : p.sets) p.summary += (p.summary.empty() ? "" : ", ") + n + " = " + v;
  return p;
}

}  // namespace


DropPlan plan_drop(const std::string& path, const std::string& workload) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error("dropped file " + path + " does not exist");
  if (fs::is_directory(path, ec)) throw Error("dropped " + path + " is a folder: drop a file");
  std::string ext = fs::path(path).extension().string();
  if (!ext.empty()) ext.erase(0, 1);  // without the dot
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  const std::string name = fs::path(path).filename().string();

  if (ext == "json") {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error("cannot read " + path);
    Json o;
    try {
      o = Json::parse(f);
    } catch (const Json::exception& e) {
      std::string why = e.what();  // without nlohmann's "[json.exception.parse_error.101] "
      if (const auto k = why.find("] "); why.rfind("[json.exception", 0) == 0 && k != why.npos)
        why.erase(0, k + 2);
      throw Error(name + " is not JSON (" + why + "): drop a simscope preset or a run.json");
    }
    if (!o.is_object())
      throw Error(name + " is not JSON (not an object): drop a simscope preset or a run.json");
    DropPlan p;
    if (o.contains("workload") && o["workload"].is_string()) p.workload = o["workload"];
    if (o.contains("simscope_preset")) {
      p.kind = DropPlan::Kind::Preset;
      p.summary = "preset " + path;
    } else if (o.contains("params") && o["params"].is_object() && !p.workload.empty()) {
      p.kind = DropPlan::Kind::Run;
      p.summary = "the parameters of the run " + path;
    } else {
      throw Error(name +
                  " is neither a simscope preset (no \"simscope_preset\") nor a run.json (no "
                  "\"workload\" and \"params\")");
    }
    if (p.workload.empty()) throw Error(name + ": the preset names no workload");
    return p;
  }

  // The workload's input files (WorkloadDescriptor::inputs), tried in order.
  const WorkloadDescriptor& d = workload_descriptor(workload);
  const bool npy = ext == "npy";
  // Reads only the header, with the .npy reader's checks and messages; not the data.
  const io::NpyHeader header = npy ? io::read_npy_header(path) : io::NpyHeader{};
  const std::vector<std::size_t>& shape = header.shape;
  for (const InputRole& role : d.inputs) {
    if (std::find(role.extensions.begin(), role.extensions.end(), ext) == role.extensions.end())
      continue;
    if (npy && role.fits && !role.fits(shape)) continue;
    std::vector<std::pair<std::string, std::string>> sets = role.sets;
    for (auto& [n, v] : sets)
      if (v == "{path}") v = path;
    return input(workload, std::move(sets));
  }
  if (npy && !d.npy_expected.empty())
    throw Error(name + " has shape " + header.shape_text() + ": " + d.npy_expected);
  std::string all;
  for (const WorkloadDescriptor& w : workloads())
    if (!w.inputs_text.empty()) all += (all.empty() ? "" : "; ") + w.name + ": " + w.inputs_text;
  throw Error("cannot use " + name + " in " + workload + ": drop an input file (" + all +
              "), a .json preset or a run.json");
}

}  // namespace simscope::app
