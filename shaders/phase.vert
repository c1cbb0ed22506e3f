#version 450 core
// Phase view (render/phase_view.cpp): one disc per oscillator, instanced quads.
// Per instance: a_state = (theta, r) (from the interop buffer: CUDA or host), a_pos = the node's
// layout position in [-1, 1]^2. u_mode 0 puts the disc at a_pos, 1 at z = r e^(i theta) (the
// complex plane, |z| = u_plane_radius at the edge). Colour: the cyclic colormap at
// (theta + pi) / 2 pi; radius u_dot * r clamped to [u_min_dot, 3 u_dot] pixels.
layout(location = 0) in vec2 a_state;
layout(location = 1) in vec2 a_pos;
uniform vec4 u_rect;      // the square drawing area in viewport pixels: x, y, w, h
uniform vec2 u_viewport;  // viewport size in pixels
uniform int u_mode;
uniform float u_plane_radius;
uniform float u_dot;
uniform float u_min_dot;
out vec2 v_offset;       // pixels from the disc's centre
flat out float v_radius;
flat out float v_t;      // colormap coordinate in [0, 1)
flat out float v_bad;    // 1 for a non-finite state

const vec2 kCorners[4] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(-1, 1), vec2(1, 1));
const float kPi = 3.14159265358979;

void main() {
  float th = a_state.x, r = a_state.y;
  bool bad = isnan(th) || isnan(r) || isinf(th) || isinf(r);
  v_bad = bad ? 1.0 : 0.0;
  if (bad) { th = 0.0; r = 0.0; }
  vec2 p = u_mode == 0 ? a_pos : vec2(cos(th), sin(th)) * (r / u_plane_radius);
  vec2 centre = u_rect.xy + (p * 0.5 + 0.5) * u_rect.zw;
  float rad = bad ? u_min_dot : clamp(u_dot * r, u_min_dot, 3.0 * u_dot);
  vec2 off = kCorners[gl_VertexID] * (rad + 1.5);
  v_offset = off;
  v_radius = rad;
  v_t = fract((th + kPi) / (2.0 * kPi));
  gl_Position = vec4((centre + off) / u_viewport * 2.0 - 1.0, 0.0, 1.0);
}
