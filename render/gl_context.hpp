#pragma once
/// @file OpenGL contexts: the app's window or a headless EGL context, chosen by name.
/// The same render code draws into a GLFW window or an offscreen framebuffer.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace simscope::render {

/// A "get GL function by name" callback.
/// Accepts functions returning `void (*)()`, such as glfwGetProcAddress, or `void*`, without casts.
class ProcAddressFn {
 public:
  using GlProc = void (*)();
  ProcAddressFn() = default;
  ProcAddressFn(std::nullptr_t) {}                       // NOLINT: implicit on purpose
  ProcAddressFn(GlProc (*fn)(const char*)) : fn_(fn) {}  // NOLINT
  ProcAddressFn(void* (*fn)(const char*))                // NOLINT
      : fn_(reinterpret_cast<GlProc (*)(const char*)>(fn)) {}
  explicit operator bool() const { return fn_ != nullptr; }
  /// The function's address, or nullptr when unknown.
  GlProc operator()(const char* name) const { return fn_ ? fn_(name) : nullptr; }

 private:
  GlProc (*fn_)(const char*) = nullptr;
};

/// What app/ hands in for a window whose GL context it created, e.g. with GLFW.
/// The context must be OpenGL 4.5 core or compatible. All three members are required.
struct WindowHooks {
  std::function<void()> make_current;  ///< e.g. [w]{ glfwMakeContextCurrent(w); }
  std::function<void()> swap_buffers;  ///< e.g. [w]{ glfwSwapBuffers(w); }
  ProcAddressFn get_proc_address;      ///< e.g. glfwGetProcAddress
};

/// An OpenGL 4.5 core context with GL functions loaded (glad).
/// Only one thread may use it. render/ objects must be created and destroyed while the context that
/// created them is current.
class GlContext {
 public:
  virtual ~GlContext() = default;
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;

  /// Makes the context current on the calling thread. Throws RenderError on failure.
  virtual void make_current() = 0;
  /// Presents the window's back buffer. A no-op for headless contexts, which draw into framebuffer
  /// objects (render/offscreen.hpp).
  virtual void swap_buffers() = 0;
  /// "window", "egl-device" (EGL_EXT_platform_device, e.g. an NVIDIA GPU without a display) or
  /// "egl-surfaceless" (EGL_MESA_platform_surfaceless, e.g. Mesa's llvmpipe).
  virtual std::string backend_name() const = 0;
  /// GL_RENDERER, e.g. "NVIDIA H200/PCIe/SSE2" or "llvmpipe (LLVM 15.0.6, 256 bits)".
  std::string renderer() const { return renderer_; }
  /// GL_VERSION, e.g. "4.5 (Core Profile) Mesa 22.3.6".
  std::string gl_version() const { return version_; }
  /// GL_VENDOR, e.g. "NVIDIA Corporation" or "Mesa"; tells whether CUDA-GL interop can work.
  std::string vendor() const { return vendor_; }

 protected:
  GlContext() = default;
  /// Loads GL 4.5 core functions through `load`, checks the version and records renderer and
  /// version. The context must be current. Throws RenderError naming `who` on failure.
  void load_gl(const ProcAddressFn& load, const std::string& who);

 private:
  std::string renderer_;
  std::string version_;
  std::string vendor_;
};

/// Creates a context and makes it current.
///   - "window": wraps the app's window context; needs `window` with all hooks set.
///   - "egl": a headless OpenGL 4.5 core context without a surface (EGL_KHR_surfaceless_context);
///     draw into an Offscreen framebuffer. Tries EGL's device platform first
///     (EGL_EXT_device_enumeration + EGL_EXT_platform_device), skipping software devices
///     (EGL_MESA_device_software). The device whose EGL_CUDA_DEVICE_NV is the calling thread's
///     current CUDA device comes first, so CUDA-GL interop works on multi-GPU machines. Then tries
///     Mesa's surfaceless platform (EGL_MESA_platform_surfaceless).
///   - "auto": "window" when `window` is given, else "egl".
/// Throws RenderError for an unknown name, missing hooks, or when no platform gives a context.
/// The message names each platform tried and EGL's error code name, e.g. EGL_BAD_MATCH.
std::unique_ptr<GlContext> create_context(const std::string& name,
                                          const WindowHooks* window = nullptr);

}  // namespace simscope::render
