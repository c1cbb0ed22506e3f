#include "output/export.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.hpp"

namespace simscope::app {

void write_output_npy(const std::string& path, const OutputArray& o) {
  const OutputData& d = o.data;  // a device output is downloaded here, once
  auto write = [&](auto tag) {
    using T = decltype(tag);
    if (d.dtype() == o.dtype) {  // held as exported: no copy
      const void* held = d.held_values();  // held in place (OutputData::held): no vector copy
      io::write_npy(path, held ? static_cast<const T*>(held) : d.values<T>().data(), o.shape);
    } else {
      const std::vector<T> v = d.converted<T>();
      io::write_npy(path, v.data(), o.shape);
    }
  };
  switch (o.dtype) {
    case io::DType::Float32: return write(float());
    case io::DType::Float64: return write(double());
    case io::DType::Int32: return write(std::int32_t());
    case io::DType::UInt8: return write(std::uint8_t());
    default: throw Error(path + ": unsupported export dtype");
  }
}

namespace {

namespace fs = std::filesystem;

/// The .npy files, plain names only, that an earlier run.json in `dir` lists, or none.
std::vector<std::string> earlier_outputs(const fs::path& dir) {
  std::ifstream f(dir / "run.json", std::ios::binary);
  if (!f) return {};
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  const Json j = Json::parse(text, nullptr, false);
  std::vector<std::string> names;
  if (!j.is_object() || !j.contains("outputs") || !j["outputs"].is_array()) return names;
  for (const Json& o : j["outputs"]) {
    const std::string name = json_string(o, "file");
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0 &&
        name.find_first_of("/\\") == std::string::npos)
      names.push_back(name);
  }
  return names;
}

/// Moves `from` to `to` by a rename, else by a copy and a removal. Returns false on failure.
bool move_file(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (!ec) return true;
  ec.clear();
  if (!fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec) || ec) return false;
  return fs::remove(from, ec);
}

/// The outputs as one CSV table when they are all 1-D of one length T (a run at scattered
/// points): a header of the output names, then one row per point, in the outputs' order.
/// Returns false, writing nothing, for outputs of other shapes.
bool write_points_csv(const std::string& path, const std::vector<OutputArray>& outputs) {
  if (outputs.empty()) return false;
  const std::size_t T = outputs.front().shape.size() == 1 ? outputs.front().shape[0] : 0;
  for (const OutputArray& o : outputs)
    if (o.shape.size() != 1 || o.shape[0] != T || T == 0) return false;
  std::vector<const std::vector<float>*> columns;
  for (const OutputArray& o : outputs) columns.push_back(&o.host());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  for (std::size_t c = 0; c < outputs.size(); ++c) f << (c ? "," : "") << outputs[c].name;
  f << '\n';
  char cell[32];
  for (std::size_t i = 0; i < T; ++i) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::snprintf(cell, sizeof cell, "%.9g", double((*columns[c])[i]));  // float32 exactly
      f << (c ? "," : "") << cell;
    }
    f << '\n';
  }
  if (!f.flush()) throw Error(path + ": cannot write");
  return true;
}

}  // namespace

std::vector<std::string> export_run(const RunResult& r, const std::string& dir_path,
                                    const Json& manifest, const ExportFile* extra) {
  std::error_code ec;
  const fs::path dir = fs::absolute(dir_path, ec).lexically_normal();
  const bool existed = fs::exists(dir, ec);
  if (!existed && (!fs::create_directories(dir, ec) || ec))
    throw Error(dir_path + ": cannot create the output directory");
  const fs::path staging = dir / (".simscope-staging-" + std::to_string(::getpid()));
  const auto remove_dir_if_new = [&] {
    std::error_code e;
    if (!existed) fs::remove(dir, e);  // (only when empty, as QDir::rmdir)
  };
  fs::remove_all(staging, ec);
  if (!fs::create_directory(staging, ec) || ec) {
    remove_dir_if_new();
    throw Error(dir_path + ": output directory is not writable");
  }
  const std::vector<std::string> earlier = earlier_outputs(dir);
  // (staged file, final path)
  std::vector<std::pair<fs::path, fs::path>> moves;
  try {
    for (const OutputArray& o : r.outputs) {
      const std::string name = o.name + ".npy";
      write_output_npy((staging / name).string(), o);
      moves.emplace_back(staging / name, dir / name);
    }
    const bool csv = write_points_csv((staging / "outputs.csv").string(), r.outputs);
    if (csv) moves.emplace_back(staging / "outputs.csv", dir / "outputs.csv");
    {
      std::ofstream f(staging / "run.json", std::ios::binary | std::ios::trunc);
      const std::string text = json_text(manifest);
      if (!f || !f.write(text.data(), std::streamsize(text.size())) || !f.flush())
        throw Error((dir / "run.json").string() + ": cannot write");
      moves.emplace_back(staging / "run.json", dir / "run.json");
    }
    if (extra) {
      const fs::path staged = staging / extra->staged_name;
      extra->write(staged.string());
      // The extra file first: it may go outside the directory, where a move is likelier to fail.
      moves.insert(moves.begin(), {staged, fs::absolute(extra->path, ec).lexically_normal()});
    }
    std::vector<std::string> written;
    for (const auto& [from, to] : moves) {
      fs::remove(to, ec);
      if (!move_file(from, to)) {
        for (const auto& w : written) fs::remove(w, ec);  // all or nothing
        throw Error(to.string() + ": cannot move the output into place");
      }
      written.push_back(to.string());
    }
    fs::remove_all(staging, ec);
    // The directory describes one run. .npy outputs of an earlier run that this one did not
    // write, e.g. another workload's, would be mistaken for this run's.
    for (const std::string& name : earlier)
      if (std::none_of(r.outputs.begin(), r.outputs.end(),
                       [&](const OutputArray& o) { return o.name + ".npy" == name; }))
        fs::remove(dir / name, ec);
    if (!csv && !earlier.empty()) fs::remove(dir / "outputs.csv", ec);  // an earlier run's table
    return written;
  } catch (...) {
    fs::remove_all(staging, ec);
    remove_dir_if_new();
    throw;
  }
}

}  // namespace simscope::app
