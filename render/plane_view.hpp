#pragma once
/// @file A scalar plane drawn through a colormap, with a colorbar: the main view of simscope.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "render/plane_annotations.hpp"

namespace simscope::render {

/// A rectangle in framebuffer pixels, origin bottom-left.
struct PixelRect {
  double x = 0, y = 0, w = 0, h = 0;
};

/// How a PlaneView maps values to colours.
struct ViewSettings {
  std::string colormap = "viridis";  ///< one of colormap_names()
  bool log_scale = false;            ///< colours by log10(value); values <= 0 get the bottom colour
  bool auto_range = true;   ///< range from the data (see PlaneView::range), else [min, max]
  double min = 0, max = 1;  ///< the locked range (used when auto_range is false)
  std::string label;        ///< the quantity, e.g. "|E|": colorbar title "label [unit]"
  std::string unit;         ///< e.g. "V/m"; empty: no brackets
  bool colorbar = true;     ///< draw the colorbar right of the image
  /// Aspect, axis titles and region labels; none by default.
  PlaneAnnotations annotations;
};

/// A 2-D float array drawn as an image.
/// Element data[i*cols + j], i < rows and j < cols, is drawn at horizontal position i, left to
/// right, and vertical position j, bottom to top: axis 0 of exported arrays runs along the plane's
/// first axis. Values go through an R32F texture fed from a pixel buffer (InteropBuffer), so data
/// may come from host or CUDA device memory.
///
/// Colours: t = (v - lo) / (hi - lo), clamped to [0, 1], looked up in the colormap. A log scale
/// uses log10 of v, lo and hi. NaN draws grey (0.5, 0.5, 0.5), +Inf the top colour, -Inf the
/// bottom colour; so do values <= 0 in log scale, like values below the range.
///
/// Create, use and destroy it while its GL context is current. Throws RenderError.
class PlaneView {
 public:
  PlaneView();
  ~PlaneView();
  PlaneView(const PlaneView&) = delete;
  PlaneView& operator=(const PlaneView&) = delete;

  /// Applies `settings`. Throws RenderError and keeps the previous settings for:
  /// an unknown colormap; a locked range with !(min < max) or non-finite bounds; a locked log range
  /// with min <= 0; non-finite axis title coordinates; a region label whose fractions are not
  /// finite with u0 < u1 and v0 < v1.
  void set_settings(const ViewSettings& settings);
  const ViewSettings& settings() const;

  /// Copies rows x cols floats from host memory, laid out as the class describes.
  /// Throws RenderError for empty planes or sides above GL_MAX_TEXTURE_SIZE.
  void set_data_host(const float* data, int rows, int cols);
  /// The same from CUDA device memory, through the interop buffer; upload_path() tells how.
  void set_data_device(const float* device_ptr, int rows, int cols);
  /// Device pointer to rows*cols floats in the view's pixel buffer, for kernels to write into.
  /// nullptr when CUDA-GL interop is unavailable; then use set_data_*.
  /// Call unmap_device() when the kernel is done, before draw.
  float* map_device(int rows, int cols);
  void unmap_device();

  /// Draws into rectangle (x, y, w, h) of the current framebuffer, in pixels, origin bottom-left.
  /// Clears it to the background colour and draws the image. Aspect::Square centres it with square
  /// pixels, as large as fits; Aspect::Fill covers the area left of the colorbar and inside the
  /// axis title strips. With settings().colorbar, draws a colorbar on the right with 5-7 tick
  /// labels and the title "label [unit]", wrapped onto at most 3 lines.
  /// If the colorbar panel would take over 60 % of the width or the bar would be under 4 text
  /// heights, a compact colorbar is drawn. If that does not fit either, the note "colorbar hidden:
  /// view too small" is drawn top right.
  /// Axis titles go below the image (axis i) and left of it, rotated (axis j); region labels go
  /// over it (PlaneAnnotations). Sets glViewport/glScissor; leaves scissor test, blending and depth
  /// test disabled. A rectangle smaller than 1 x 1 draws nothing.
  void draw(int x, int y, int w, int h);

  /// The range in effect, (lo, hi) in data units: the locked one, or the data's finite min and max.
  /// A log scale uses the smallest positive finite value as the minimum. lo == hi widens to
  /// (lo - 0.5, hi + 0.5) in linear scale and (lo / sqrt(10), hi * sqrt(10)) in log scale. No
  /// finite (positive) values: (0, 1), or (1, 10) in log scale. Without data: (0, 1).
  std::pair<double, double> range() const;

  /// Fractional data coordinates (i, j) under framebuffer position (px, py) of the last draw.
  /// Pixels are continuous, origin bottom-left; pixel k spans [k, k+1). The element is
  /// (floor(i), floor(j)). nullopt outside the image or before the first draw.
  std::optional<std::pair<double, double>> image_coords(double px, double py) const;

  /// Where the last draw put the image and the colorbar's gradient, in framebuffer pixels.
  /// nullopt before the first draw, without data, or when no colorbar was drawn.
  std::optional<PixelRect> last_image_rect() const;
  std::optional<PixelRect> last_colorbar_rect() const;

  /// Path of the last upload: "host upload", "cuda-gl interop", "device->host copy", or "none".
  std::string upload_path() const;
  /// Why the CUDA-GL interop path is not used; empty when it is used or was not tried.
  std::string upload_fallback_reason() const;

  /// Zoom and pan: shows a window of width 1/zoom of each axis centred at (cu, cv) in [0, 1].
  /// u runs along i, v along j. zoom >= 1; the window stays inside the data. zoom = 1, the default,
  /// shows everything. Throws RenderError when zoom < 1 or not finite.
  void set_zoom(double zoom, double cu, double cv);
  /// The window in effect: (u0, v0, du, dv) as fractions of the data axes.
  std::array<double, 4> zoom_window() const;

  /// Background colour of the view rectangle, RGB in [0, 1]. Default dark grey 0.11, 0.11, 0.13.
  void set_background(float r, float g, float b);
  /// The background colour in effect, RGB in [0, 1].
  std::array<float, 3> background() const;
  /// HiDPI factor for the colorbar and its text. 1 = 96 dpi, with text 14 px tall.
  void set_ui_scale(float scale);
  /// Pixels per em of the font atlases baked so far, in order.
  /// A UI scale change bakes the new sizes at once.
  std::vector<float> text_pixel_sizes() const;

  int rows() const;
  int cols() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simscope::render
