#version 450 core
// Phase view: the network's edges (GL_LINES through an element buffer of node pairs) and the
// unit circle of the complex-plane layout, from positions in [-1, 1]^2; drawn with solid.frag.
layout(location = 0) in vec2 a_pos;
uniform vec4 u_rect;
uniform vec2 u_viewport;
uniform vec4 u_color;
out vec4 v_color;

void main() {
  v_color = u_color;
  vec2 p = u_rect.xy + (a_pos * 0.5 + 0.5) * u_rect.zw;
  gl_Position = vec4(p / u_viewport * 2.0 - 1.0, 0.0, 1.0);
}
