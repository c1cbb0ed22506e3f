#pragma once
/// @file The oscillators' phase view: one disc per oscillator.
/// Discs sit on a layout of the network or at z = r e^{i theta} in the complex plane. A cyclic
/// colormap colours them by phase theta; amplitude r sets their size.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace simscope::render {

/// How a PhaseView draws.
struct PhaseViewSettings {
  std::string colormap = "twilight";  ///< one of colormap_names(); cyclic ones suit phases
  /// "nodes": each oscillator at its node's position (set_layout).
  /// "plane": at z = r e^{i theta}, with |z| = plane_radius at the square's edge and the unit
  /// circle drawn for reference.
  std::string layout = "nodes";
  bool edges = true;          ///< draw the network's edges under the nodes ("nodes" layout)
  float dot = 6.0f;           ///< disc radius in pixels at r = 1 (times the UI scale)
  float plane_radius = 1.6f;  ///< "plane": the |z| at the square's edge
  std::string title;          ///< text at the top left, e.g. "member 3  t = 12.5"
  /// A phase colour bar from -pi to pi at the bottom right and, at the bottom left where it
  /// fits, the discs' size key "size: amplitude r" (or "size: r").
  bool legend = true;
};

/// Oscillator i's state is the float pair (theta_i, r_i) at [2 i] of the state buffer.
/// theta is in radians, any value, since the colormap wraps; r >= 0. Non-finite pairs draw as small
/// grey discs. States go into a GL vertex buffer (InteropBuffer) from host memory or from CUDA
/// device memory, with a device->host copy as fallback; upload_path() tells which. Layout positions
/// are host data.
///
/// Create, use and destroy it while its GL context is current. Throws RenderError.
class PhaseView {
 public:
  PhaseView();
  ~PhaseView();
  PhaseView(const PhaseView&) = delete;
  PhaseView& operator=(const PhaseView&) = delete;

  /// Applies `settings`. Throws RenderError and keeps the previous settings for an unknown colormap
  /// or layout, or a dot size or plane radius that is not finite and > 0.
  void set_settings(const PhaseViewSettings& settings);
  const PhaseViewSettings& settings() const;

  /// Node positions for the "nodes" layout: n pairs (x, y) in [-1, 1]^2.
  /// Throws RenderError for n < 0 or non-finite positions.
  void set_layout(const float* xy, int n);
  /// The network's undirected edges as node index pairs, drawn as lines between layout positions.
  /// Throws RenderError for an index outside [0, n) of the current layout.
  void set_edges(const std::vector<std::pair<int, int>>& edges);

  /// n oscillators' (theta, r) from host memory.
  void set_state_host(const float* theta_r, int n);
  /// The same from CUDA device memory. Throws RenderError in builds without CUDA and on CUDA
  /// failures; the previous state then stays.
  void set_state_device(const float* theta_r, int n);

  /// Draws into rectangle (x, y, w, h) of the current framebuffer, in pixels, origin bottom-left.
  /// Clears it, then draws edges, discs, title and legend in the largest centred square. The
  /// "nodes" layout uses the first n layout positions, n being the state's count. Throws
  /// RenderError when the layout has fewer positions than oscillators.
  void draw(int x, int y, int w, int h);

  /// The oscillator whose disc is nearest to (px, py) of the last draw, within its radius plus 4
  /// pixels; nullopt when none. Uses the layout positions ("nodes") or the last host state
  /// ("plane"), so "plane" finds none after a device upload.
  std::optional<int> oscillator_at(double px, double py) const;

  /// "host upload", "cuda-gl interop", "device->host copy" or "none"; see InteropBuffer::path.
  std::string upload_path() const;
  std::string upload_fallback_reason() const;

  void set_background(float r, float g, float b);
  /// HiDPI factor for disc sizes and text; 1 = 96 dpi.
  void set_ui_scale(float scale);

  int count() const;  ///< oscillators in the state

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simscope::render
