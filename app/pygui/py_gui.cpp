// simscope._gui: the simscope window for Python (simscope.show, simscope/_show.py). A front end
// of its own beside gui/ (app/pygui/, docs/dev/layout.md), in a module of its own beside
// simscope._core, built only where the window is (SIMSCOPE_APP: GLFW, ImGui, Qt Core), so that
// _core keeps binding the run layer alone. It runs the executable's window code, app::run_gui,
// with the options the command line would give it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <QCoreApplication>
#include <csignal>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "drop_plan.hpp"
#include "gui_app.hpp"
#include "params/c_numeric_locale.hpp"
#include "render/error.hpp"
#include "run_options.hpp"
#include "session.hpp"
#include "stop_signals.hpp"

namespace py = pybind11;

namespace {

using simscope::app::RunOptions;

/// SIGINT's and SIGTERM's handlers as they were before the window installed its own (Python's
/// KeyboardInterrupt handler among them), put back when the window has closed.
class SavedSignalHandlers {
 public:
  SavedSignalHandlers() {
    sigaction(SIGINT, nullptr, &int_);
    sigaction(SIGTERM, nullptr, &term_);
  }
  ~SavedSignalHandlers() {
    sigaction(SIGINT, &int_, nullptr);
    sigaction(SIGTERM, &term_, nullptr);
  }
  SavedSignalHandlers(const SavedSignalHandlers&) = delete;
  SavedSignalHandlers& operator=(const SavedSignalHandlers&) = delete;

 private:
  struct sigaction int_ {}, term_ {};
};

/// How the window ended: run_gui's status, and the signal that closed it (0: none).
struct Ended {
  int status = 0;
  int signal = 0;
};

RunOptions options(const std::string& workload, const std::vector<std::string>& sets,
                   const std::string& backend, const std::string& screenshot, int frames) {
  RunOptions o;
  o.workload = workload;
  o.sets = sets;
  o.backend = backend;
  o.screenshot = screenshot;
  o.frames = frames;
  return o;
}

/// The command line's checks of these options, which need no window: the workload, each
/// NAME=VALUE (the workload's parameters and the view's), the back end's name. ValueError.
void check(const RunOptions& o) {
  try {
    simscope::app::CNumericLocale c_numbers;
    simscope::app::check_command_line(o);
  } catch (const simscope::Error& e) {
    throw py::value_error(e.what());
  }
}

Ended show(const RunOptions& o) {
  // The window's QSettings (size, recent presets) are the executable's: ~/.config/simscope.
  QCoreApplication::setOrganizationName("simscope");
  QCoreApplication::setApplicationName("simscope");
  Ended ended;
  std::exception_ptr failure;
  {
    py::gil_scoped_release release;  // other Python threads run while the window is open
    const SavedSignalHandlers saved;  // run_gui's Ctrl+C handler closes the window, once
    simscope::app::CNumericLocale c_numbers;  // parameters are read as the C locale's text
    simscope::app::clear_stop_signal();  // a signal that closed an earlier window
    try {
      ended.status = simscope::app::run_gui(o);
    } catch (...) {
      failure = std::current_exception();
    }
    ended.signal = simscope::app::stop_signal();
    simscope::app::clear_stop_signal();
  }
  if (!failure) return ended;
  try {
    std::rethrow_exception(failure);
  } catch (const simscope::app::WindowError& e) {
    // One line, in Python's words: no --headless to suggest here.
    throw std::runtime_error(
        "simscope.show: cannot open a window: " + e.reason() +
        (e.no_display() ? " (no display; under SSH use X forwarding, or xvfb-run)"
                        : " (the window needs OpenGL 4.5 core)"));
  } catch (const simscope::render::RenderError& e) {
    throw std::runtime_error("simscope.show: cannot open a window: " + std::string(e.what()));
  } catch (const simscope::Error& e) {
    throw py::value_error(e.what());  // make_session's: a bad parameter, preset or input file
  }
}

/// What a file dropped onto the window showing `workload` would set (app/gui/drop_plan.hpp):
/// (workload, [(name, value), ...]). ValueError, with the window's message, for a file it takes
/// in no way.
std::pair<std::string, std::vector<std::pair<std::string, std::string>>> plan_input(
    const std::string& path, const std::string& workload) {
  try {
    simscope::app::DropPlan p = simscope::app::plan_drop(path, workload);
    return {p.workload, p.sets};
  } catch (const simscope::Error& e) {
    throw py::value_error(e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_gui, m) {
  m.doc() = "simscope's window (compiled part; use simscope.show)";
  m.def(
      "show",
      [](const std::string& workload, const std::vector<std::string>& sets,
         const std::string& backend, const std::string& screenshot, int frames) {
        const Ended e = show(options(workload, sets, backend, screenshot, frames));
        return py::make_tuple(e.status, e.signal == SIGINT);
      },
      py::arg("workload"), py::arg("sets"), py::arg("backend") = "auto",
      py::arg("screenshot") = "", py::arg("frames") = 0,
      "Runs the simscope window (the executable's run_gui) with --workload, --set NAME=VALUE "
      "each, --backend, --screenshot and --frames as given, the GIL released, until it is "
      "closed. Returns (status, closed_by_ctrl_c). RuntimeError when no window can be opened, "
      "ValueError for a bad parameter.");
  m.def(
      "check",
      [](const std::string& workload, const std::vector<std::string>& sets,
         const std::string& backend) { check(options(workload, sets, backend, "", 0)); },
      py::arg("workload"), py::arg("sets"), py::arg("backend") = "auto",
      "The command line's checks of show's options that need no window (workload, NAME=VALUE "
      "each, back end): ValueError with the CLI's message.");
  m.def("plan_input", &plan_input, py::arg("path"), py::arg("workload"),
        "What dropping the file `path` onto the window showing `workload` sets: (workload, "
        "[(name, value), ...]). ValueError for a file the workload does not take.");
}
