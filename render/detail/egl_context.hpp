#pragma once
/// @file Internal: the headless EGL context of create_context("egl").
#include <memory>

#include "render/gl_context.hpp"

namespace simscope::render::detail {

/// See create_context("egl"). Throws RenderError naming every platform tried.
std::unique_ptr<GlContext> create_egl_context();

}  // namespace simscope::render::detail
