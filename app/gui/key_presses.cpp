#include "key_presses.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>

#include "core/error.hpp"

namespace simscope::app {
namespace {
KeyPresses* g_instance = nullptr;
constexpr int kModMask = GLFW_MOD_SHIFT | GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER;
}  // namespace

KeyPresses::KeyPresses(GLFWwindow* window) {
  if (g_instance) throw Error("KeyPresses: only one instance at a time");
  g_instance = this;
  glfwSetKeyCallback(window, &KeyPresses::on_key);
}

KeyPresses::~KeyPresses() { g_instance = nullptr; }

int KeyPresses::count(int key, int mods) const {
  return int(std::count_if(presses_.begin(), presses_.end(), [&](const std::pair<int, int>& p) {
    return p.first == key && (p.second & kModMask) == (mods & kModMask);
  }));
}

void KeyPresses::on_key(GLFWwindow*, int key, int, int action, int mods) {
  if (g_instance && action == GLFW_PRESS) g_instance->record(key, mods);
}

}  // namespace simscope::app
