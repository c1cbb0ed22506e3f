#version 450 core
// Phase view discs: the colormap colour inside, a dark rim, antialiased edge.
in vec2 v_offset;
flat in float v_radius;
flat in float v_t;
flat in float v_bad;
uniform sampler1D u_cmap;  // the colormap's 256 entries, linear filtering
out vec4 frag_color;

void main() {
  float d = length(v_offset);
  float alpha = clamp(v_radius + 0.5 - d, 0.0, 1.0);
  if (alpha <= 0.0) discard;
  // Entry k sits at texel centre (k + 0.5) / 256: t = 0..1 interpolates entries 0..255 as
  // Colormap::sample does. Cyclic maps need no wrap: their first and last entries match.
  vec3 c = v_bad > 0.5 ? vec3(0.5) : texture(u_cmap, (v_t * 255.0 + 0.5) / 256.0).rgb;
  // A thin rim keeps neighbours apart and dark colours (twilight near theta = 0) visible on a
  // dark background: darker for light colours, lighter for dark ones.
  float rim = v_radius > 3.0 ? clamp(d - (v_radius - 1.2), 0.0, 1.0) : 0.0;
  vec3 rim_colour = dot(c, vec3(0.2126, 0.7152, 0.0722)) < 0.25 ? min(c + 0.45, 1.0) : c * 0.35;
  frag_color = vec4(mix(c, rim_colour, rim), alpha);
}
