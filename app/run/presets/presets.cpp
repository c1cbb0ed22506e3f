#include "presets/presets.hpp"

#include "io/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "output/json.hpp"
#include "params/params_json.hpp"
#include "params/unknown_parameter.hpp"
#include "view/view_schema.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;

const char* const kTopKeys[] = {"simscope_preset", "workload", "params", "view"};

/// nlohmann's error without its "[json.exception.KIND.N] " prefix, on one line.
std::string parse_reason(const Json::exception& e) {
  std::string what = e.what();
  if (const auto close = what.find("] ");
      what.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
    what = what.substr(close + 2);
  return quote_text(what);
}

/// A syntax error on one line: its line, column, fault and what was expected, e.g. "at line 3,
/// column 21: unexpected ','; expected string literal" (nlohmann's text less its kind and
/// "syntax error while parsing X -"). The text the parser last read goes last, and the whole is
/// quoted to 120 bytes, since that text may hold much of the file (a string never closed).
std::string syntax_error_text(const Json::parse_error& e) {
  const std::string what = e.what(), at = "parse error at ";
  const auto start = what.find(at);
  const auto colon = start == std::string::npos ? start : what.find(": ", start);
  if (colon == std::string::npos)  // not nlohmann's usual form; e.byte counts from 1
    return "at offset " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + " (" + parse_reason(e) +
           ")";
  std::string fault = what.substr(colon + 2);
  if (const auto dash = fault.find(" - ");
      fault.rfind("syntax error", 0) == 0 && dash != std::string::npos)
    fault = fault.substr(dash + 3);
  const auto read = fault.find("; last read: "), expected = fault.rfind("; expected ");
  if (read != std::string::npos && expected != std::string::npos && expected > read)
    fault = fault.substr(0, read) + fault.substr(expected) + fault.substr(read, expected - read);
  return "at " + what.substr(start + at.size(), colon - start - at.size()) + ": " +
         quote_text(fault, 120);
}

Json read_preset_object(const std::string& path) {
  std::error_code ec;
  std::ifstream f;
  if (!fs::is_directory(path, ec)) f.open(path, std::ios::binary);
  if (!f.is_open()) {
    const int e = fs::is_directory(path, ec) ? EISDIR : errno;
    throw Error(path + ": cannot open preset (" + std::strerror(e) + ")");
  }
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw Error(path + ": not valid JSON " + syntax_error_text(e));
  } catch (const Json::exception& e) {  // e.g. out_of_range: a number beyond double, 1e400
    throw Error(path + ": not valid JSON (" + parse_reason(e) + ")");
  }
  if (!doc.is_object() || !doc.contains("workload") || !doc["workload"].is_string() ||
      !doc.contains("params") || !doc["params"].is_object())
    throw Error(path +
                ": not a simscope preset (expected an object with \"workload\" and "
                "\"params\")");
  if (doc.contains("simscope_preset")) {
    const Json& version = doc["simscope_preset"];
    if (!version.is_number() || version.get<double>() != 1)
      throw Error(path + ": preset format " + json_text(Json::array({version}), true) +
                  " is not supported (this simscope reads simscope_preset 1)");
  }
  for (const auto& [key, value] : doc.items()) {
    bool known = false;
    for (const char* k : kTopKeys) known = known || key == k;
    if (!known)
      throw Error(path + ": unknown key \"" + quote_text(key) +
                  "\" in the preset (allowed: simscope_preset, workload, params, view)");
  }
  if (doc.contains("view") && !doc["view"].is_object())
    throw Error(path + ": \"view\" must be an object of view settings (view.colormap, ...)");
  return doc;
}

/// Refuses names in "params" that the workload does not know and names in "view" that are not
/// view settings, saying where they belong: view.* settings under "view", a workload's
/// parameters under "params".
void check_names(const std::string& path, const Json& params, const Json& view,
                 const Schema& workload) {
  const Schema& vs = view_schema();
  for (const auto& [name, value] : params.items()) {
    const std::string quoted = quote_text(name);
    if (workload.find(name)) continue;
    if (vs.find(name))
      throw Error(path + ": \"" + quoted +
                  "\" is a view setting: put it under \"view\", not "
                  "\"params\"");
    if (name.rfind("view.", 0) == 0)
      throw Error(path + ": under \"params\": unknown parameter '" + quoted +
                  "'; view settings go under \"view\" (view settings: " + vs.names() +
                  "; parameters of workload '" + workload.workload() + "': " + workload.names() +
                  ")");
    throw Error(path + ": under \"params\": " + unknown_parameter_message(workload, name));
  }
  for (const auto& [name, value] : view.items()) {
    const std::string quoted = quote_text(name);
    if (vs.find(name)) continue;
    if (workload.find(name))
      throw Error(path + ": \"" + quoted + "\" is a parameter of workload '" + workload.workload() +
                  "': put it under \"params\", not \"view\"");
    throw Error(path + ": under \"view\": unknown view setting '" + quoted +
                "' (view settings: " + vs.names() + ")");
  }
}

/// `file`, if relative, against the folder `base`, cleaned as QDir::cleanPath does: no "." or
/// ".." parts, no repeated or trailing separators.
std::string resolve_against(const fs::path& base, const std::string& file) {
  std::string s = (base / file).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

std::string preset_workload(const std::string& path) {
  return read_preset_object(path)["workload"].get<std::string>();
}

void load_preset(const std::string& path, ParamSet& params, ParamSet* view) {
  const Json o = read_preset_object(path);
  const std::string workload = o["workload"].get<std::string>();
  if (workload != params.schema().workload())
    throw Error(path + ": preset is for workload '" + quote_text(workload) + "', not '" +
                params.schema().workload() + "'");
  const Json no_view = Json::object();
  const Json& view_json = o.contains("view") ? o["view"] : no_view;
  check_names(path, o["params"], view_json, params.schema());
  ParamSet next = params;
  // File parameters written relative to the preset resolve against the preset's folder.
  Json values = o["params"];
  std::error_code ec;
  const fs::path base = fs::absolute(fs::path(path), ec).parent_path();
  for (const ParamSpec& spec : params.schema().specs()) {
    const auto it = values.find(spec.name);
    if (spec.type != ParamType::Path || it == values.end() || !it->is_string()) continue;
    const std::string file = it->get<std::string>();
    if (!file.empty() && fs::path(file).is_relative()) *it = resolve_against(base, file);
  }
  apply_json(next, values, path);
  if (view && o.contains("view")) {
    Json v = o["view"];
    // Presets saved before view.range had percentile call the min/max range "auto".
    if (const auto it = v.find("view.range"); it != v.end() && *it == "auto") *it = "minmax";
    apply_json(*view, v, path);
  }
  params = std::move(next);
}

void save_preset(const std::string& path, const ParamSet& params, const ParamSet* view) {
  Json o = Json::object();
  o["simscope_preset"] = 1;
  o["workload"] = params.schema().workload();
  o["params"] = params_to_json(params);
  if (view) o["view"] = params_to_json(*view);
  const std::string text = json_text(o);
  io::write_file_atomic(path, text, "preset");
}

}  // namespace simscope::app
