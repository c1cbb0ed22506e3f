#version 450 core
// Coverage from the single-channel font atlas times the colour's alpha; uv.x < 0: a solid fill.
in vec2 v_uv;
in vec4 v_color;
uniform sampler2D u_atlas;
out vec4 frag_color;

void main() {
  float coverage = v_uv.x < 0.0 ? 1.0 : texture(u_atlas, v_uv).r;
  frag_color = vec4(v_color.rgb, v_color.a * coverage);
}
