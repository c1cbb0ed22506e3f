// The status bar's note for a method that ran on the host while CUDA was selected (issue 11,
// item 4): lsq's qr/svd per-pixel solves; nothing for the CPU back end or a device method.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "lsq/lsq.hpp"
#include "lsq/lsq_params.hpp"
#include "lsq/method_note.hpp"
#include "workload.hpp"

namespace simscope::app {
namespace {

/// A small lsq run on the CPU with `method`, with gaps (so per-pixel solves happen).
RunResult lsq_run(const std::string& method) {
  const auto w = make_workload("lsq");
  ParamSet p = w->schema().defaults();
  p.set("method", method);
  p.set("synth.height", std::int64_t(6));
  p.set("synth.width", std::int64_t(5));
  return w->run(p, Backend::Cpu, RunRequest{}, nullptr);
}

/// `r` as the CUDA back end would report it: the backend and lsq's rule for where the method ran
/// (lsq_workload.cpp's stats "method_on_host").
RunResult as_on_cuda(RunResult r) {
  r.backend = Backend::Cuda;
  const lsq::Method m = lsq::options_from(r.params).method;
  r.stats["method_on_host"] = lsq::method_runs_on(m, Backend::Cuda) == Backend::Cpu ? 1 : 0;
  return r;
}

TEST(MethodNote, SaysWhenAMethodRanOnTheHostWhileCudaWasSelected) {
  for (const std::string method : {"qr", "svd"}) {
    const RunResult cpu = lsq_run(method);
    EXPECT_EQ(cpu.stats.at("method_on_host"), 0) << method;
    EXPECT_EQ(method_on_host_note(cpu), "")
        << "the CPU back end: nothing to say (" << method << ")";
    const RunResult r = as_on_cuda(cpu);
    const std::string pixels = std::to_string(std::uint64_t(r.stats.at("host_pixels"))) + " of " +
                               std::to_string(std::uint64_t(r.stats.at("pixels")));
    EXPECT_EQ(method_on_host_note(r),
              "method " + method + " ran on the host (CPU) for " + pixels + " pixels, not on CUDA");
    EXPECT_EQ(make_workload("lsq")->status_note(r), method_on_host_note(r));  // the GUI's note
    EXPECT_EQ(r.stats.at("pixels"), 30);
  }
}

TEST(MethodNote, NothingForMethodsThatRunOnTheDevice) {
  for (const std::string method : {"auto", "normal"}) {
    const RunResult r = as_on_cuda(lsq_run(method));
    EXPECT_EQ(r.stats.at("method_on_host"), 0) << method;
    EXPECT_EQ(method_on_host_note(r), "") << method;
  }
  // Workloads without the stat (field) get no note.
  const auto w = make_workload("field");
  ParamSet p = w->schema().defaults();
  p.set("sources.count", std::int64_t(5));
  p.set("grid.size", std::int64_t(4));
  RunResult f = w->run(p, Backend::Cpu, RunRequest{}, nullptr);
  f.backend = Backend::Cuda;
  EXPECT_EQ(method_on_host_note(f), "");
  EXPECT_EQ(w->status_note(f), "");
}

}  // namespace
}  // namespace simscope::app
