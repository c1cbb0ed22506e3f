#include "render/gl_context.hpp"

#include <glad/gl.h>

#include "render/detail/egl_context.hpp"
#include "render/detail/gl_check.hpp"
#include "render/error.hpp"

namespace simscope::render {

namespace {

const ProcAddressFn* g_loader = nullptr;  // only used during gladLoadGL (single-threaded)

GLADapiproc load_through(const char* name) { return (*g_loader)(name); }

/// A window context owned by the app, e.g. GLFW; this class only calls its hooks.
class WindowContext final : public GlContext {
 public:
  explicit WindowContext(const WindowHooks& hooks) : hooks_(hooks) {
    hooks_.make_current();
    load_gl(hooks_.get_proc_address, "window");
  }
  void make_current() override { hooks_.make_current(); }
  void swap_buffers() override { hooks_.swap_buffers(); }
  std::string backend_name() const override { return "window"; }

 private:
  WindowHooks hooks_;
};

}  // namespace

void GlContext::load_gl(const ProcAddressFn& load, const std::string& who) {
  if (!load) throw RenderError(who + ": no GL function loader (get_proc_address) given");
  g_loader = &load;
  const int version = gladLoadGL(load_through);
  g_loader = nullptr;
  if (version == 0) {
    throw RenderError(who + ": loading OpenGL functions failed (is the context current?)");
  }
  const int major = GLAD_VERSION_MAJOR(version), minor = GLAD_VERSION_MINOR(version);
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const char* gl_version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  const char* vendor = reinterpret_cast<const char*>(glGetString(GL_VENDOR));
  detail::check_gl("glGetString(GL_RENDERER/GL_VERSION/GL_VENDOR)");
  renderer_ = renderer ? renderer : "unknown";
  vendor_ = vendor ? vendor : "unknown";
  version_ = gl_version ? gl_version : "unknown";
  if (major < 4 || (major == 4 && minor < 5)) {
    throw RenderError(who + ": OpenGL 4.5 core needed, the context gives " + version_ + " (" +
                      renderer_ + ")");
  }
}

std::unique_ptr<GlContext> create_context(const std::string& name, const WindowHooks* window) {
  if (name == "window" || (name == "auto" && window != nullptr)) {
    if (window == nullptr || !window->make_current || !window->swap_buffers ||
        !window->get_proc_address) {
      throw RenderError(
          "GL context 'window' needs the window's hooks (make_current, swap_buffers, "
          "get_proc_address); use 'egl' for a headless context");
    }
    return std::make_unique<WindowContext>(*window);
  }
  if (name == "egl" || name == "auto") return detail::create_egl_context();
  throw RenderError("unknown GL context '" + name + "': expected auto, window or egl");
}

}  // namespace simscope::render
