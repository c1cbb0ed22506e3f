// Headless OpenGL through EGL.
// References: EGL 1.5 spec; EGL_EXT_device_enumeration, EGL_EXT_device_query,
// EGL_EXT_platform_device; EGL_MESA_platform_surfaceless, EGL_MESA_device_software;
// EGL_KHR_surfaceless_context and EGL_KHR_no_config_context.
#include "render/detail/egl_context.hpp"

#include <glad/egl.h>
#include <glad/gl.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "render/error.hpp"
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
#include "render/detail/interop_cuda.hpp"
#endif

namespace simscope::render::detail {

namespace {

/// The calling thread's CUDA device; -1 without a device or in a build without CUDA.
int current_cuda_device() {
#ifdef SIMSCOPE_RENDER_HAVE_CUDA
  return detail::current_cuda_device_or_none();
#else
  return -1;
#endif
}

const char* egl_error_name(EGLint code) {
  switch (code) {
    case EGL_SUCCESS:
      return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED:
      return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS:
      return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC:
      return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE:
      return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG:
      return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT:
      return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE:
      return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY:
      return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH:
      return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP:
      return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW:
      return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER:
      return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE:
      return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST:
      return "EGL_CONTEXT_LOST";
    case EGL_BAD_DEVICE_EXT:
      return "EGL_BAD_DEVICE_EXT";
    default:
      return "unknown EGL error";
  }
}

/// One platform's attempt failed; the next platform is tried.
struct PlatformFailure {
  std::string reason;
};

[[noreturn]] void egl_fail(const std::string& step) {
  throw PlatformFailure{step + " failed (" + egl_error_name(eglGetError()) + ")"};
}

bool has_extension(const char* list, const char* name) {
  if (list == nullptr) return false;
  const size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n) {
    const bool starts = p == list || p[-1] == ' ';
    const bool ends = p[n] == '\0' || p[n] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

// Contexts on one device share an EGLDisplay, since eglGetPlatformDisplay returns one handle per
// device. The last context to go terminates it.
std::mutex g_display_mutex;
std::map<EGLDisplay, int> g_display_users;

void retain_display(EGLDisplay dpy) {
  std::lock_guard lock(g_display_mutex);
  ++g_display_users[dpy];
}

void release_display(EGLDisplay dpy) {
  std::lock_guard lock(g_display_mutex);
  auto it = g_display_users.find(dpy);
  if (it == g_display_users.end() || --it->second > 0) return;
  g_display_users.erase(it);
  eglTerminate(dpy);
}

GLADapiproc egl_proc(const char* name) {
  return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name));
}

void* egl_proc_void(const char* name) { return reinterpret_cast<void*>(egl_proc(name)); }

/// eglGetPlatformDisplay (EGL 1.5) or, failing that, eglGetPlatformDisplayEXT.
EGLDisplay get_platform_display(EGLenum platform, void* native) {
  auto core = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYPROC>(egl_proc("eglGetPlatformDisplay"));
  if (core != nullptr) return core(platform, native, nullptr);
  auto ext =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(egl_proc("eglGetPlatformDisplayEXT"));
  if (ext == nullptr) throw PlatformFailure{"eglGetPlatformDisplay not available"};
  return ext(platform, native, nullptr);
}

class EglContext final : public GlContext {
 public:
  /// Initialises `dpy` and creates a current GL 4.5 core context on it without a surface.
  EglContext(EGLDisplay dpy, std::string backend) : dpy_(dpy), backend_(std::move(backend)) {
    if (dpy_ == EGL_NO_DISPLAY) egl_fail("eglGetPlatformDisplay");
    EGLint major = 0, minor = 0;
    if (!eglInitialize(dpy_, &major, &minor)) egl_fail("eglInitialize");
    retain_display(dpy_);
    try {
      create();
    } catch (...) {
      destroy();
      throw;
    }
  }
  ~EglContext() override { destroy(); }

  void make_current() override {
    if (!eglMakeCurrent(dpy_, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx_)) {
      throw RenderError(backend_ + ": eglMakeCurrent failed (" + egl_error_name(eglGetError()) +
                        ")");
    }
  }
  void swap_buffers() override {}
  std::string backend_name() const override { return backend_; }

 private:
  void create() {
    // With the display initialised, load the EGL 1.5 entry points and its extensions.
    if (gladLoaderLoadEGL(dpy_) == 0) egl_fail("loading EGL functions for the display");
    const char* exts = eglQueryString(dpy_, EGL_EXTENSIONS);
    if (!has_extension(exts, "EGL_KHR_surfaceless_context")) {
      throw PlatformFailure{"EGL_KHR_surfaceless_context not supported"};
    }
    if (!eglBindAPI(EGL_OPENGL_API)) egl_fail("eglBindAPI(EGL_OPENGL_API)");
    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!has_extension(exts, "EGL_KHR_no_config_context")) {
      const EGLint attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE,
                                EGL_DONT_CARE, EGL_NONE};
      EGLint count = 0;
      if (!eglChooseConfig(dpy_, attribs, &config, 1, &count)) egl_fail("eglChooseConfig");
      if (count < 1) throw PlatformFailure{"no EGL config with EGL_OPENGL_BIT"};
    }
    const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                  4,
                                  EGL_CONTEXT_MINOR_VERSION,
                                  5,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                  EGL_NONE};
    ctx_ = eglCreateContext(dpy_, config, EGL_NO_CONTEXT, ctx_attribs);
    if (ctx_ == EGL_NO_CONTEXT) egl_fail("eglCreateContext(OpenGL 4.5 core)");
    if (!eglMakeCurrent(dpy_, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx_)) {
      egl_fail("eglMakeCurrent(no surface)");
    }
    try {
      load_gl(ProcAddressFn(egl_proc_void), backend_);
    } catch (const RenderError& e) {
      throw PlatformFailure{e.what()};
    }
  }

  void destroy() noexcept {
    if (ctx_ != EGL_NO_CONTEXT) {
      if (eglGetCurrentContext() == ctx_) {
        eglMakeCurrent(dpy_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      }
      eglDestroyContext(dpy_, ctx_);
      ctx_ = EGL_NO_CONTEXT;
    }
    release_display(dpy_);
  }

  EGLDisplay dpy_ = EGL_NO_DISPLAY;
  EGLContext ctx_ = EGL_NO_CONTEXT;
  std::string backend_;
};

/// EGL_EXT_platform_device: one display per enumerated hardware device; the first that works wins.
std::unique_ptr<GlContext> try_device_platform(const char* client_exts) {
  if (!has_extension(client_exts, "EGL_EXT_device_enumeration") &&
      !has_extension(client_exts, "EGL_EXT_device_base")) {
    throw PlatformFailure{"EGL_EXT_device_enumeration not supported"};
  }
  if (!has_extension(client_exts, "EGL_EXT_platform_device")) {
    throw PlatformFailure{"EGL_EXT_platform_device not supported"};
  }
  auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(egl_proc("eglQueryDevicesEXT"));
  auto query_string =
      reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(egl_proc("eglQueryDeviceStringEXT"));
  if (query_devices == nullptr || query_string == nullptr) {
    throw PlatformFailure{"eglQueryDevicesEXT not available"};
  }
  EGLint n = 0;
  if (!query_devices(0, nullptr, &n)) egl_fail("eglQueryDevicesEXT");
  std::vector<EGLDeviceEXT> devices(static_cast<size_t>(n > 0 ? n : 0));
  if (n > 0 && !query_devices(n, devices.data(), &n)) egl_fail("eglQueryDevicesEXT");
  // Hardware devices in order, the current CUDA device first (EGL_CUDA_DEVICE_NV).
  // With several GPUs or CUDA_VISIBLE_DEVICES, the first EGL device may be a GPU whose buffers CUDA
  // cannot register, and interop would fall back.
  auto query_attrib =
      reinterpret_cast<PFNEGLQUERYDEVICEATTRIBEXTPROC>(egl_proc("eglQueryDeviceAttribEXT"));
  const int cuda_device = current_cuda_device();
  std::vector<EGLint> order;
  int software = 0;
  bool matched = false;
  for (EGLint k = 0; k < n; ++k) {
    const char* dev_exts = query_string(devices[k], EGL_EXTENSIONS);
    if (has_extension(dev_exts, "EGL_MESA_device_software")) {
      ++software;
      continue;
    }
    EGLAttrib cuda = -1;
    if (cuda_device >= 0 && query_attrib != nullptr &&
        has_extension(dev_exts, "EGL_NV_device_cuda") &&
        query_attrib(devices[k], EGL_CUDA_DEVICE_NV, &cuda) && cuda == cuda_device && !matched) {
      order.insert(order.begin(), k);
      matched = true;
    } else {
      order.push_back(k);
    }
  }
  if (cuda_device >= 0 && !matched && !order.empty()) {
    static std::once_flag logged;
    std::call_once(logged, [&] {
      std::fprintf(stderr,
                   "simscope: no EGL device reports CUDA device %d (EGL_CUDA_DEVICE_NV): using "
                   "EGL device %d, the first hardware one; CUDA-GL interop may fall back to the "
                   "host copy\n",
                   cuda_device, int(order.front()));
    });
  }
  std::string reasons;
  for (EGLint k : order) {
    try {
      return std::make_unique<EglContext>(get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[k]),
                                          "egl-device");
    } catch (const PlatformFailure& f) {
      reasons += (reasons.empty() ? "" : ", ") + std::string("device ") + std::to_string(k) + ": " +
                 f.reason;
    }
  }
  if (!reasons.empty()) throw PlatformFailure{reasons};
  throw PlatformFailure{"no hardware device (" + std::to_string(n) + " devices, " +
                        std::to_string(software) + " software)"};
}

/// EGL_MESA_platform_surfaceless: Mesa's display without any window system.
std::unique_ptr<GlContext> try_surfaceless_platform(const char* client_exts) {
  if (!has_extension(client_exts, "EGL_MESA_platform_surfaceless")) {
    throw PlatformFailure{"EGL_MESA_platform_surfaceless not supported"};
  }
  return std::make_unique<EglContext>(
      get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY), "egl-surfaceless");
}

}  // namespace

std::unique_ptr<GlContext> create_egl_context() {
  if (gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0) {
    throw RenderError(
        "headless GL: libEGL.so.1 could not be loaded (install libegl1 and a driver: "
        "libegl-mesa0 or the NVIDIA driver)");
  }
  const char* client_exts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (client_exts == nullptr) {
    throw RenderError(std::string("headless GL: EGL client extensions not supported (") +
                      egl_error_name(eglGetError()) + ")");
  }
  std::string errors;
  try {
    return try_device_platform(client_exts);
  } catch (const PlatformFailure& f) {
    errors = "EGL device platform: " + f.reason;
  }
  try {
    return try_surfaceless_platform(client_exts);
  } catch (const PlatformFailure& f) {
    errors += "; EGL surfaceless platform (Mesa): " + f.reason;
  }
  throw RenderError("no headless OpenGL 4.5 core context: " + errors);
}

}  // namespace simscope::render::detail
