// GL contexts: headless EGL works here; bad names and missing hooks give RenderError.
#include <glad/egl.h>
#include <gtest/gtest.h>

#include <string>

#include "render/error.hpp"
#include "render/gl_context.hpp"
#include "render_test_support.hpp"

namespace simscope::render {
namespace {

using test::RenderTest;

TEST_F(RenderTest, EglContextIsOpenGL45Core) {
  ASSERT_NE(context_, nullptr);
  const std::string backend = context_->backend_name();
  EXPECT_TRUE(backend == "egl-device" || backend == "egl-surfaceless") << backend;
  EXPECT_FALSE(context_->renderer().empty());
  EXPECT_TRUE(context_->gl_version().starts_with("4.")) << context_->gl_version();
  context_->make_current();
  context_->swap_buffers();  // a no-op headless
  std::printf("[ info ] %s: %s, OpenGL %s\n", backend.c_str(), context_->renderer().c_str(),
              context_->gl_version().c_str());
}

TEST_F(RenderTest, AutoWithoutHooksIsHeadlessAndContextsCoexist) {
  auto second = create_context("auto");
  EXPECT_NE(second->backend_name(), "window");
  second.reset();
  context_->make_current();  // the first one still works
}

ProcAddressFn::GlProc egl_proc(const char* name) { return eglGetProcAddress(name); }

TEST_F(RenderTest, WindowHooksWrapTheAppsContext) {
  // Stand-in for a GLFW window: hooks around the EGL context (glfwGetProcAddress's signature).
  int made_current = 0, swapped = 0;
  WindowHooks hooks;
  hooks.make_current = [&] {
    ++made_current;
    context_->make_current();
  };
  hooks.swap_buffers = [&] { ++swapped; };
  hooks.get_proc_address = egl_proc;
  auto window = create_context("auto", &hooks);
  EXPECT_EQ(window->backend_name(), "window");
  EXPECT_EQ(window->renderer(), context_->renderer());
  EXPECT_EQ(made_current, 1);
  window->make_current();
  window->swap_buffers();
  EXPECT_EQ(made_current, 2);
  EXPECT_EQ(swapped, 1);
}

TEST(GlContextErrors, WindowWithoutHooksThrows) {
  try {
    create_context("window");
    FAIL() << "no exception";
  } catch (const RenderError& e) {
    EXPECT_NE(std::string(e.what()).find("hooks"), std::string::npos) << e.what();
  }
  WindowHooks partial;
  partial.make_current = [] {};
  EXPECT_THROW(create_context("window", &partial), RenderError);
}

TEST(GlContextErrors, UnknownNameThrows) {
  try {
    create_context("vulkan");
    FAIL() << "no exception";
  } catch (const RenderError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("vulkan"), std::string::npos) << msg;
    EXPECT_NE(msg.find("auto, window or egl"), std::string::npos) << msg;
  }
}

TEST(GlContextErrors, ProcAddressFnAcceptsBothSignatures) {
  using GlProc = void (*)();
  GlProc (*glfw_like)(const char*) = [](const char*) -> GlProc { return nullptr; };
  void* (*void_like)(const char*) = [](const char*) -> void* { return nullptr; };
  WindowHooks hooks;
  hooks.get_proc_address = glfw_like;
  EXPECT_TRUE(static_cast<bool>(hooks.get_proc_address));
  hooks.get_proc_address = void_like;
  EXPECT_TRUE(static_cast<bool>(hooks.get_proc_address));
  hooks.get_proc_address = nullptr;
  EXPECT_FALSE(static_cast<bool>(hooks.get_proc_address));
}

}  // namespace
}  // namespace simscope::render
