// The stats' names, units and formats for people (app/run/output/stat_labels.hpp): the formatting
// helpers, each workload's panel lines for representative stats (exact strings), and that every
// stats key a run gives has a row in its workload's table.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "output/stat_labels.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

/// The lines as "label: value", one string each.
std::vector<std::string> texts(const std::vector<StatLine>& lines) {
  std::vector<std::string> t;
  for (const StatLine& l : lines) t.push_back(l.label + ": " + l.value);
  return t;
}

TEST(StatLabels, SiPrefixesToThreeSignificantDigits) {
  EXPECT_EQ(format_si(6.69277e9, "pairs/s"), "6.69 G pairs/s");
  EXPECT_EQ(format_si(512, "pixels/s"), "512 pixels/s");
  EXPECT_EQ(format_si(65536), "65.5 k");
  EXPECT_EQ(format_si(1e6), "1 M");
  EXPECT_EQ(format_si(999.7), "1 k");          // rounds up into the next prefix
  EXPECT_EQ(format_si(999.7e6), "1 G");
  EXPECT_EQ(format_si(1.5e12, "x/s"), "1.5 T x/s");
  EXPECT_EQ(format_si(0.25, "x/s"), "0.25 x/s");
  EXPECT_EQ(format_si(0), "0");
  EXPECT_EQ(format_si(-2.5e3), "-2.5 k");
}

TEST(StatLabels, Seconds) {
  EXPECT_EQ(format_seconds(0), "0 s");
  EXPECT_EQ(format_seconds(8.5e-7), "850 ns");
  EXPECT_EQ(format_seconds(1.25e-5), "12.5 µs");
  EXPECT_EQ(format_seconds(0.0634), "63.4 ms");
  EXPECT_EQ(format_seconds(0.9997), "1 s");
  EXPECT_EQ(format_seconds(1.3382), "1.34 s");
  EXPECT_EQ(format_seconds(42), "42 s");
  EXPECT_EQ(format_seconds(125.2), "2 min 5 s");
  EXPECT_EQ(format_seconds(120), "2 min");
  EXPECT_EQ(format_seconds(3725), "1 h 2 min");
}

TEST(StatLabels, BytesCountsErrorsNumbers) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(242221056), "231 MiB");
  EXPECT_EQ(format_bytes(1.25 * 1024 * 1024 * 1024), "1.25 GiB");
  EXPECT_EQ(format_bytes(1000 * 1024), "0.977 MiB");
  EXPECT_EQ(format_count(4096), "4096");
  EXPECT_EQ(format_count(16384), "16.4 k");
  EXPECT_EQ(format_count(1e6), "1 M");
  EXPECT_EQ(format_error(3.7e-6), "3.7e-6");
  EXPECT_EQ(format_error(3.6789e-6), "3.7e-6");
  EXPECT_EQ(format_error(0.0123), "0.012");
  EXPECT_EQ(format_error(0), "0");
  EXPECT_EQ(format_number(0.123456), "0.1235");
  EXPECT_EQ(format_number(1.5e-7), "1.5e-7");
  EXPECT_EQ(format_raw(6.69277e9), "6692770000");
  EXPECT_EQ(format_raw(0.1), "0.1");
  EXPECT_EQ(format_raw(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(format_raw(0.1 + 0.2), "0.30000000000000004");
}

TEST(StatLabels, FieldDirectOnTheCpu) {
  RunResult r;
  r.workload = "field";
  r.compute_seconds = 0.0634;
  r.stats = {{"sources", 20000},           {"targets", 16384},   {"skipped_coincidences", 0},
             {"peak_device_bytes", 0},      {"method_tree", 0},   {"pairs", 327680000},
             {"pairs_per_s", 6.69277e9}};
  r.stat_texts = {{"method", "direct"}};
  EXPECT_EQ(texts(stat_lines(r)),
            (std::vector<std::string>{"compute: 63.4 ms", "method: direct", "sources: 20 k",
                                      "targets: 16.4 k", "speed: 6.69 G pairs/s"}));
  // The raw numbers stay available, each key once.
  const std::vector<StatLine> raw = raw_stat_lines(r);
  ASSERT_EQ(raw.size(), 8u);
  EXPECT_EQ(raw[2].key, "pairs_per_s");
  EXPECT_EQ(raw[2].value, "6692770000");
  EXPECT_EQ(raw.back().key, "method");
  EXPECT_EQ(raw.back().value, "direct");
}

TEST(StatLabels, FieldTreeOnCuda) {
  RunResult r;
  r.workload = "field";
  r.compute_seconds = 1.41;
  r.stats = {{"sources", 1e6},
             {"targets", 16384},
             {"skipped_coincidences", 3},
             {"peak_device_bytes", 242221056},
             {"method_tree", 1},
             {"pairs", 16384e6},
             {"pairs_per_s", 1.162e10},
             {"tree_order", 7},
             {"tree_theta", 0.5},
             {"tree_build_seconds", 1.3382},
             {"tree_eval_seconds", 0.0634},
             {"tree_error_seconds", 0.0123},
             {"error_samples", 30},
             {"rms_rel_error", 3.6789e-6},
             {"max_rel_error", 2.1e-5},
             {"tolerance_met", 0}};
  r.stat_texts = {{"method", "tree"}};
  EXPECT_EQ(texts(stat_lines(r)),
            (std::vector<std::string>{
                "compute: 1.41 s", "method: tree", "sources: 1 M", "targets: 16.4 k",
                "direct-equiv. speed: 11.6 G pairs/s", "skipped coincidences: 3",
                "device memory: 231 MiB", "tree order: 7", "opening angle: 0.5",
                "tree build: 1.34 s", "tree eval: 63.4 ms", "error check: 12.3 ms",
                "sample check: 30 targets", "sample RMS error: 3.7e-6 relative",
                "sample max error: 2.1e-5 relative", "tolerance: not met"}));
  // Each accuracy figure and the tree's speed carry their definition (the panel's hover text).
  for (const StatLine& l : stat_lines(r)) {
    if (l.key == "pairs_per_s")
      EXPECT_NE(l.definition.find("not work done"), std::string::npos) << l.definition;
    if (l.key == "rms_rel_error")
      EXPECT_NE(l.definition.find("||E_tree - E_direct|| / ||E||"), std::string::npos);
    if (l.key == "max_rel_error")
      EXPECT_NE(l.definition.find("same error sample"), std::string::npos) << l.definition;
    if (l.key == "error_samples")
      EXPECT_NE(l.definition.find("subgrid is another check"), std::string::npos);
  }
  // A direct run's speed is work done: plain "speed".
  RunResult direct = r;
  direct.stats["method_tree"] = 0;
  EXPECT_EQ(texts(stat_lines(direct))[4], "speed: 11.6 G pairs/s");
  r.stats["tolerance_met"] = 1;
  r.stats["error_pending"] = 1;
  const std::vector<std::string> t = texts(stat_lines(r));
  EXPECT_EQ(t[t.size() - 2], "tolerance: met");
  EXPECT_EQ(t.back(), "error: being measured");
  // The window's full run that reused its preview's tree: no build of its own.
  r.stats["tree_build_seconds"] = 0;
  r.stats["tree_preview_build_seconds"] = 0.303;
  const std::vector<std::string> u = texts(stat_lines(r));
  EXPECT_EQ(u[9], "preview's build: 303 ms");
  EXPECT_EQ(u[10], "tree eval: 63.4 ms");
}

TEST(StatLabels, LsqHidesWhatDidNotHappen) {
  RunResult r;
  r.workload = "lsq";
  r.compute_seconds = 0.0021;
  r.stats = {{"pixels", 262144},           {"observations", 40},
             {"unknowns", 3},              {"status_ok", 261900},
             {"status_underdetermined", 244}, {"status_rank_deficient", 0},
             {"status_all_missing", 0},    {"fallback_pixels", 0},
             {"gap_free_pixels", 1200},    {"downdate_pixels", 260944},
             {"minnorm_pixels", 0},        {"host_pixels", 0},
             {"design_rank", 3},           {"peak_device_bytes", 0},
             {"method_on_host", 0},        {"pixels_per_s", 1.248e8}};
  EXPECT_EQ(texts(stat_lines(r)),
            (std::vector<std::string>{
                "compute: 2.1 ms", "pixels: 262 k", "observations: 40", "unknowns: 3",
                "speed: 125 M pixels/s", "ok (status 0): 262 k", "underdetermined: 244",
                "gap-free pixels: 1200", "downdated pixels: 261 k", "design rank: 3"}));
  r.stats["design_rank"] = -1;  // unused: hidden
  r.stats["method_on_host"] = 1;
  r.stats["peak_device_bytes"] = 3 * 1024 * 1024;
  const std::vector<std::string> t = texts(stat_lines(r));
  EXPECT_EQ(t[t.size() - 2], "method: ran on the host");
  EXPECT_EQ(t.back(), "device memory: 3 MiB");
}

TEST(StatLabels, OscillatorsStudyAndLive) {
  RunResult study;
  study.workload = "oscillators";
  study.compute_seconds = 0.85;
  study.stats = {{"msd_mean", 0.0123456}, {"msd_sem", 0.00042}, {"members", 64},
                 {"valid_members", 64},   {"nonfinite_members", 0}, {"nodes", 100},
                 {"steps", 20000},        {"transient", 5000},  {"averaged_steps", 15000},
                 {"record_every", 10},    {"samples", 2001},    {"dt", 0.01},
                 {"time", 200},           {"osc_steps", 1.28e8}, {"osc_steps_per_s", 1.506e8},
                 {"peak_device_bytes", 0}, {"final_msd", 0.0118}, {"final_order", 0.93}};
  EXPECT_EQ(texts(stat_lines(study)),
            (std::vector<std::string>{
                "compute: 850 ms", "members: 64", "nodes: 100", "steps: 20 k", "samples: 2001",
                "model time: 200", "msd (mean): 0.01235", "msd (std. error): 0.00042",
                "final msd: 0.0118", "final order R: 0.93", "speed: 151 M osc. steps/s"}));
  RunResult live;
  live.workload = "oscillators";
  live.stats = {{"step", 1200}, {"time", 12}, {"live_members", 8}, {"nodes", 100},
                {"order", 0.51234}};
  EXPECT_EQ(texts(stat_lines(live)),
            (std::vector<std::string>{"step: 1200", "live members: 8", "nodes: 100",
                                      "model time: 12", "order R: 0.5123"}));
}

TEST(StatLabels, UnknownWorkloadShowsOnlyTheComputeTime) {
  RunResult r;
  r.workload = "other";
  r.compute_seconds = 2;
  r.stats = {{"x", 1}};
  EXPECT_EQ(texts(stat_lines(r)), (std::vector<std::string>{"compute: 2 s"}));
  EXPECT_EQ(stat_lines_text(stat_lines(r)), "compute: 2 s\n");
}

/// Fails for each stats key of `r` that r.workload's table does not name.
void expect_every_key_named(const RunResult& r, const std::string& what) {
  EXPECT_FALSE(r.stats.empty()) << what;
  for (const auto& [k, v] : r.stats)
    EXPECT_NE(find_stat_label(r.workload, k), nullptr) << what << ": no row for '" << k << "'";
  for (const auto& [k, v] : r.stat_texts)
    EXPECT_NE(find_stat_label(r.workload, k), nullptr) << what << ": no row for '" << k << "'";
}

TEST(StatLabels, EveryKeyOfARunHasARow) {
  {
    const auto w = make_workload("field");
    for (const std::string method : {"direct", "tree"}) {
      ParamSet p = w->schema().defaults();
      p.set("sources.count", std::int64_t(2000));
      p.set("grid.size", std::int64_t(16));
      p.set("method", method);
      const RunResult r = w->run(p, Backend::Cpu, RunRequest{}, nullptr);
      EXPECT_EQ(r.stat_texts.at("method"), method);
      expect_every_key_named(r, "field " + method);
    }
  }
  {
    const auto w = make_workload("lsq");
    ParamSet p = w->schema().defaults();
    p.set("synth.height", std::int64_t(6));
    p.set("synth.width", std::int64_t(5));
    expect_every_key_named(w->run(p, Backend::Cpu, RunRequest{}, nullptr), "lsq");
    RunRequest preview;
    preview.preview = true;
    expect_every_key_named(w->run(p, Backend::Cpu, preview, nullptr), "lsq preview");
  }
  {
    const auto w = make_workload("oscillators");
    ParamSet p = w->schema().defaults();
    p.set("ensemble.size", std::int64_t(4));
    p.set("network.nodes", std::int64_t(12));
    p.set("integrator.steps", std::int64_t(60));
    p.set("integrator.transient", std::int64_t(20));
    p.set("record.every", std::int64_t(10));
    expect_every_key_named(w->run(p, Backend::Cpu, RunRequest{}, nullptr), "oscillators study");
    RunRequest live;
    live.command = RunCommand::Live;
    const RunResult l = w->run(p, Backend::Cpu, live, nullptr);
    EXPECT_EQ(l.stats.count("step"), 1u);
    expect_every_key_named(l, "oscillators live");
  }
  // No key twice in a table.
  for (const std::string w : {"field", "lsq", "oscillators"}) {
    std::set<std::string> seen;
    for (const StatLabel& row : stat_labels(w))
      EXPECT_TRUE(seen.insert(row.key).second) << w << ": '" << row.key << "' twice";
  }
}

// docs/formats.md's "run.json stats in the window" tables name every row: the line with a row's key
// (in backquotes) in its workload's table also has its panel name.
TEST(StatLabels, DocTablesNameEveryRow) {
  std::ifstream in(SIMSCOPE_STATS_DOC);
  ASSERT_TRUE(in) << SIMSCOPE_STATS_DOC;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  const std::size_t section = readme.find("**run.json stats in the window**");
  ASSERT_NE(section, std::string::npos);
  for (const std::string w : {"field", "lsq", "oscillators"}) {
    const std::size_t start = readme.find("\n" + w + ":\n", section);
    ASSERT_NE(start, std::string::npos) << w;
    const std::size_t end = readme.find("\n\n", readme.find("| key |", start));
    const std::string table = readme.substr(start, end - start);
    for (const StatLabel& row : stat_labels(w)) {
      const std::size_t at = table.find("`" + std::string(row.key) + "`");
      ASSERT_NE(at, std::string::npos) << w << ": docs/formats.md has no row for " << row.key;
      const std::size_t bol = table.rfind('\n', at) + 1, eol = table.find('\n', at);
      const std::string line = table.substr(bol, eol - bol);
      EXPECT_NE(line.find(row.label), std::string::npos)
          << w << ": docs/formats.md's row of " << row.key << " lacks '" << row.label << "': " << line;
    }
  }
}

}  // namespace
}  // namespace simscope::app
