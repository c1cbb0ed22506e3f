// Presets through the run layer alone (no Qt; issue 11): what a Python module or an MPI rank
// loads. A saved preset loads back to the same values; relative file parameters resolve against
// the preset's folder; integers stay exact; bad presets are refused with the file and the fault.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "presets/presets.hpp"
#include "view/view_schema.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir() {
  const fs::path d = fs::path(SIMSCOPE_TEST_TMP) / ("presets_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

/// The message load_preset throws for the preset `text`, or "" when it loads.
std::string load_error(const std::string& text, const std::string& workload = "field") {
  const fs::path p = scratch_dir() / "bad.json";
  write(p, text);
  ParamSet params = make_workload(workload)->schema().defaults();
  ParamSet view = view_schema().defaults();
  try {
    load_preset(p.string(), params, &view);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Presets, SavedPresetLoadsBackToTheSameValues) {
  const fs::path dir = scratch_dir();
  for (const std::string& name : workload_names()) {
    const auto w = make_workload(name);
    ParamSet p = w->schema().defaults(), view = view_schema().defaults();
    // Change one value of each type the schema has.
    for (const ParamSpec& s : w->schema().specs()) {
      if (s.type == ParamType::Int && s.max > s.min + 1) p.set(s.name, std::int64_t(s.min + 1));
      if (s.type == ParamType::Float && s.max > s.min)
        p.set(s.name, s.min + 0.25 * (s.max - s.min) / 1e6);
      if (s.type == ParamType::Enum && s.choices.size() > 1) p.set(s.name, s.choices.back());
    }
    view.set("view.colormap", std::string("magma"));
    view.set("view.colorbar", false);
    const std::string path = (dir / (name + ".json")).string();
    save_preset(path, p, &view);
    EXPECT_EQ(preset_workload(path), name);
    ParamSet q = w->schema().defaults(), v2 = view_schema().defaults();
    load_preset(path, q, &v2);
    EXPECT_TRUE(q == p) << name;
    EXPECT_TRUE(v2 == view) << name;
  }
}

TEST(Presets, RelativeFilesResolveAgainstThePresetsFolderAndIntegersStayExact) {
  const fs::path dir = scratch_dir() / "sub";
  fs::create_directories(dir);
  write(dir / "p.json",
        R"({"simscope_preset": 1, "workload": "field", "params": {"sources.file": "../data/./s.npy",
            "sources.seed": 9007199254740991, "grid.size": 40.0, "k": 2},
            "view": {"view.scale": "linear"}})");
  ParamSet p = make_workload("field")->schema().defaults(), view = view_schema().defaults();
  load_preset((dir / "p.json").string(), p, &view);
  const std::string want = (fs::absolute(dir).parent_path() / "data" / "s.npy").string();
  EXPECT_EQ(p.get_string("sources.file"), want);
  EXPECT_EQ(p.get_int("sources.seed"), 9007199254740991LL);
  EXPECT_EQ(p.get_int("grid.size"), 40) << "a whole number is an integer";
  EXPECT_EQ(p.get_double("k"), 2.0);
  EXPECT_EQ(view.get_string("view.scale"), "linear");
  // 2^53 + 1 meets the range check (max 2^53) as itself, not as the double 2^53.
  EXPECT_NE(load_error(R"({"workload": "field", "params": {"sources.seed": 9007199254740993}})")
                .find("got '9007199254740993'"),
            std::string::npos);
}

TEST(Presets, TheOldAutoRangeReadsAsMinmax) {
  // Presets saved before view.range=percentile wrote the min/max range as "auto".
  const fs::path dir = scratch_dir() / "old_auto";
  fs::create_directories(dir);
  write(dir / "p.json", R"({"simscope_preset": 1, "workload": "field", "params": {},
            "view": {"view.range": "auto", "view.min": 0, "view.max": 1}})");
  ParamSet p = make_workload("field")->schema().defaults(), view = view_schema().defaults();
  EXPECT_EQ(view.get_string("view.range"), "percentile") << "the default";
  load_preset((dir / "p.json").string(), p, &view);
  EXPECT_EQ(view.get_string("view.range"), "minmax");
  EXPECT_TRUE(view_schema().unused_warnings(view).size() == 0) << "min/max at their defaults";
}

TEST(Presets, BadPresetsNameTheFileAndTheFault) {
  const std::string f = (scratch_dir() / "bad.json").string();
  // A syntax error: the line and column, the fault and what was expected, then what was read.
  EXPECT_EQ(load_error("{ not json"), f + ": not valid JSON at line 1, column 4: invalid literal; "
                                          "expected string literal; last read: '{ no'");
  EXPECT_EQ(load_error("{\n  \"workload\": \"field\",\n  \"params\": {\"k\": 2,, }\n}\n"),
            f + ": not valid JSON at line 3, column 21: unexpected ','; expected string literal");
  // A string never closed: the fault before the text read, which is cut, on one line.
  const std::string open = load_error("{\"workload\": \"" + std::string(5000, 'x'));
  EXPECT_EQ(open.rfind(f + ": not valid JSON at line 1, column 5015: invalid string: missing "
                           "closing quote; last read: '\"xxx",
                       0),
            0u)
      << open;
  EXPECT_LT(open.size(), f.size() + 200) << open;
  EXPECT_EQ(open.find('\n'), std::string::npos) << open;
  EXPECT_EQ(load_error(R"({"workload": "field", "params": {"grid.size": 1e400}})"),
            f + ": not valid JSON (number overflow parsing '1e400')")
      << "a number beyond double is refused, as Qt refused it";
  EXPECT_EQ(load_error("[1]"), f + ": not a simscope preset (expected an object with \"workload\" "
                                   "and \"params\")");
  EXPECT_EQ(load_error(R"({"simscope_preset": 2, "workload": "field", "params": {}})"),
            f + ": preset format [2] is not supported (this simscope reads simscope_preset 1)");
  EXPECT_EQ(load_error(R"({"workload": "field", "params": {}, "comment": 1})"),
            f + ": unknown key \"comment\" in the preset (allowed: simscope_preset, workload, "
                "params, view)");
  EXPECT_EQ(load_error(R"({"workload": "lsq", "params": {}})"),
            f + ": preset is for workload 'lsq', not 'field'");
  EXPECT_EQ(load_error(R"({"workload": "field", "params": {"view.colormap": "magma"}})"),
            f + ": \"view.colormap\" is a view setting: put it under \"view\", not \"params\"");
  EXPECT_EQ(load_error(R"({"workload": "field", "params": {}, "view": {"grid.size": 8}})"),
            f + ": \"grid.size\" is a parameter of workload 'field': put it under \"params\", "
                "not \"view\"");
  EXPECT_EQ(load_error(R"({"workload": "field", "params": {"grid.size": [8]}})"),
            f + ": parameter grid.size: expected a number, string or boolean in JSON");
  EXPECT_NE(load_error(R"({"workload": "field", "params": {"grid.size": 1}})").find(f + ": "),
            std::string::npos);
  EXPECT_EQ(load_error(R"({"workload": "field", "params": {}})"), "");
  ParamSet p = make_workload("field")->schema().defaults();
  const std::string missing = (scratch_dir() / "missing.json").string();
  try {
    load_preset(missing, p);
    ADD_FAILURE() << "a missing preset loaded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), missing + ": cannot open preset (No such file or directory)");
  }
  try {
    save_preset("/nonexistent-simscope-dir/p.json", p);
    ADD_FAILURE() << "saved into a missing folder";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent-simscope-dir/p.json: cannot write preset (No such file or directory)");
  }
}

}  // namespace
}  // namespace simscope::app
