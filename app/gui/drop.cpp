// Drag and drop of files onto the window (drop.hpp).
#include "drop.hpp"

#include <GLFW/glfw3.h>

#include <fstream>
#include <iterator>

#include "drop_plan.hpp"
#include "gui_state.hpp"
#include "params/params_json.hpp"
#include "presets/presets.hpp"

namespace simscope::app::gui {
namespace {

std::vector<std::string> g_dropped;  // filled by the callback during glfwPollEvents (UI thread)

extern "C" void on_drop(GLFWwindow*, int count, const char** paths) {
  for (int k = 0; k < count; ++k) g_dropped.emplace_back(paths[k]);
}

/// Applies a preset or run.json of the shown workload.
void apply_file(GuiState& s, const DropPlan& p, const std::string& path) {
  if (p.kind == DropPlan::Kind::Preset) {
    ParamSet params = s.params, view = s.view;
    load_preset(path, params, &view);
    s.params = params;
    s.view = view;
    action_done(s, "loaded preset " + path);
    return;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot read " + path);
  const std::string text{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  const Json o = Json::parse(text, nullptr, false);
  const auto it = o.is_object() ? o.find("params") : o.end();
  if (!o.is_object() || it == o.end() || !it->is_object())
    throw Error(path + ": not a run.json with a \"params\" object");
  ParamSet params = s.params.schema().defaults();  // the run's parameters, all of them
  apply_json(params, *it, path);
  s.params = params;
  action_done(s, "restored the parameters of " + path);
}

void drop(GuiState& s, const std::string& path) {
  const DropPlan p = plan_drop(path, s.workload_name);
  if (p.kind == DropPlan::Kind::Input) {
    ParamSet params = s.params;
    for (const auto& [name, value] : p.sets) params.set_from_string(name, value);
    s.params = params;
    action_done(s, "dropped " + p.summary);
    return;
  }
  if (p.workload != s.workload_name) {
    workload_descriptor(p.workload);  // an unknown workload: its message
    s.switch_to = p.workload;
    s.drop.after_switch.push_back(path);
    return;
  }
  apply_file(s, p, path);
}

}  // namespace

void install_drop_callback(GLFWwindow* window) { glfwSetDropCallback(window, on_drop); }

void handle_drops(GuiState& s) {
  if (!s.drop.after_switch.empty() && s.switch_to.empty()) {
    const std::vector<std::string> pending = std::move(s.drop.after_switch);
    s.drop.after_switch.clear();
    for (const std::string& path : pending) {
      try {
        const DropPlan p = plan_drop(path, s.workload_name);
        if (p.workload != s.workload_name)
          throw Error(path + " is for workload " + p.workload + ", which could not be shown");
        apply_file(s, p, path);
      } catch (const std::exception& e) {
        action_failed(s, e.what());
      }
    }
  }
  std::vector<std::string> dropped;
  dropped.swap(g_dropped);
  for (const std::string& path : dropped) {
    try {
      drop(s, path);
    } catch (const std::exception& e) {
      action_failed(s, e.what());
    }
  }
}

}  // namespace simscope::app::gui
