#version 450 core
// A rectangle in viewport pixels (origin bottom-left), drawn as a 4-vertex triangle strip
// without vertex buffers. v_uv runs 0..1 from the rectangle's bottom-left to its top-right.
uniform vec4 u_rect;      // x, y, width, height in pixels
uniform vec2 u_viewport;  // viewport width, height in pixels
out vec2 v_uv;

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  v_uv = corner;
  vec2 pixel = u_rect.xy + corner * u_rect.zw;
  gl_Position = vec4(pixel / u_viewport * 2.0 - 1.0, 0.0, 1.0);
}
