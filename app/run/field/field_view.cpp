// How a field result is shown (field_view.hpp).
#include "field/field_view.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "field/field.hpp"

namespace simscope::app {
namespace {

/// The names of a plane's in-plane axes (u to the right, v up), as field::make_targets lays them.
std::pair<const char*, const char*> plane_axes(field::PlaneKind kind) {
  switch (kind) {
    case field::PlaneKind::XZ:
      return {"x", "z"};
    case field::PlaneKind::YZ:
      return {"y", "z"};
    default:
      return {"x", "y"};
  }
}

/// Axis titles of a plane ("x: -1.5 ... 1.5"), or for a box a label on each face of the mosaic
/// ("-x (y, z)": the face and its in-plane axes, right and up) and the faces' common range.
ImageAnnotations annotations_of(const field::Grid& g) {
  ImageAnnotations a;
  if (g.kind != field::PlaneKind::Box) {
    const auto [u, v] = plane_axes(g.kind);
    a.axis_i = {u, true, -g.half_width, g.half_width};
    a.axis_j = {v, true, -g.half_width, g.half_width};
    return a;
  }
  a.axis_i = {"each face (right, up): " + field_number(-g.half_width) + " ... " +
                  field_number(g.half_width),
              false, 0, 0};
  static const char* const kFaces[6] = {"-x", "+x", "-y", "+y", "-z", "+z"};
  static const field::PlaneKind kKinds[3] = {field::PlaneKind::YZ, field::PlaneKind::XZ,
                                             field::PlaneKind::XY};
  for (int f = 0; f < 6; ++f) {
    // Face f's tile: column f / 2, row f % 2 (see field_view_image).
    const auto [u, v] = plane_axes(kKinds[f / 2]);
    const std::string face = kFaces[f];
    const std::string at =
        std::string(1, face[1]) + " = " + field_number(f % 2 == 0 ? -g.offset : g.offset);
    RegionLabel r;
    r.u0 = (f / 2) / 3.0, r.u1 = (f / 2 + 1) / 3.0;
    r.v0 = (f % 2) / 2.0, r.v1 = (f % 2 + 1) / 2.0;
    r.texts = {face + " face, " + at + ": " + u + " right, " + v + " up",
               face + ": " + u + " right, " + v + " up", face + " (" + u + ", " + v + ")", face};
    a.regions.push_back(std::move(r));
  }
  return a;
}

}  // namespace

std::string field_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

ViewHints field_view_hints(const std::string& view) {
  // Components are signed: a diverging map centred on zero, linear.
  if (view == "ex" || view == "ey" || view == "ez") return {"coolwarm", "linear"};
  // Relative errors span decades: logarithmic.
  if (view == field::error_output().name) return {"inferno", "log"};
  return {};
}

ViewImage field_view_image(const RunResult& r, const std::string& view, const field::Settings& s) {
  const OutputArray* o = r.find(view);
  if (!o && view == field::error_output().name) {
    throw Error(
        "field: the error view shows the tree method's error; this result was "
        "computed by direct sums (set method = tree, or auto above 1e9 pairs)");
  }
  if (!o) throw Error("field: no output called '" + view + "'");
  if (s.scattered())
    throw Error("field: targets.file gives " + std::to_string(o->shape.empty() ? 0 : o->shape[0]) +
                " scattered points, which the window cannot draw as an image: run it headless "
                "for the (T,) outputs and outputs.csv, or clear targets.file for a plane or box");
  ViewImage img;
  img.label = o->label;
  img.unit = o->unit;
  img.set_hints(field_view_hints(view));
  const bool signed_output = view == "ex" || view == "ey" || view == "ez";  // range about zero
  // The subgrid spans the grid's range.
  img.annotations = annotations_of(s.grid);
  if (o->shape.size() == 2) {
    img.rows = int(o->shape[0]);
    img.cols = int(o->shape[1]);
    img.data = o->data;  // the output itself, where it lives (no copy)
    if (signed_output) img.symmetric_range();
    return img;
  }
  // Box: the six faces as a 3 x 2 mosaic: columns -x, -y, -z (bottom row) and +x, +y, +z (top).
  const int n = int(o->shape[1]);
  img.rows = 3 * n;
  img.cols = 2 * n;
  const std::vector<float>& src = o->host();
  std::vector<float> mosaic(size_t(img.rows) * img.cols, 0.f);
  for (int f = 0; f < 6; ++f) {
    const int bi = (f / 2) * n, bj = (f % 2) * n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        mosaic[size_t(bi + i) * img.cols + bj + j] = src[(size_t(f) * n + i) * n + j];
  }
  img.data = std::move(mosaic);
  if (signed_output) img.symmetric_range();
  return img;
}

std::string field_sample_text(const RunResult& r, const field::Settings& s, int i, int j) {
  field::Grid g = s.grid;
  const OutputArray* o = r.outputs.empty() ? nullptr : &r.outputs.front();
  if (o && !o->shape.empty()) g.size = int(o->shape.back());
  const int n0 = g.size;
  // The error view's samples are a subgrid: sample k is plane index index[k].
  const OutputArray* e = r.find(field::error_output().name);
  std::vector<int> index;
  if (e && s.error_view() && !e->shape.empty())
    index = field::error_subgrid(g, int(e->shape.back()), 0).index;
  const int n = index.empty() ? n0 : int(index.size());
  int face = -1;
  if (g.kind == field::PlaneKind::Box) {
    face = (i / n) * 2 + (j / n);
    i %= n;
    j %= n;
  }
  auto lin = [&](int k) {
    if (!index.empty()) k = index[std::clamp(k, 0, n - 1)];
    return -g.half_width + 2.0 * g.half_width * k / (n0 - 1);
  };
  double u = lin(i), v = lin(j);
  double x = 0, y = 0, z = 0;
  field::PlaneKind kind = g.kind;
  double off = g.offset;
  if (face >= 0) {
    kind = face < 2   ? field::PlaneKind::YZ
           : face < 4 ? field::PlaneKind::XZ
                      : field::PlaneKind::XY;
    off = (face % 2 == 0) ? -g.offset : g.offset;
  }
  switch (kind) {
    case field::PlaneKind::XY:
      x = u, y = v, z = off;
      break;
    case field::PlaneKind::XZ:
      x = u, y = off, z = v;
      break;
    default:
      x = off, y = u, z = v;
      break;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "x=%.4g y=%.4g z=%.4g", x, y, z);
  return buf;
}

std::optional<SampleCoordinates> field_sample_coordinates(const field::Settings& s,
                                                          const SampleCoordinates& axes) {
  if (s.scattered()) return std::nullopt;
  const field::Grid& g = s.grid;
  if (g.kind == field::PlaneKind::Box || axes.base.size() != 2) return std::nullopt;
  int iu = 0, iv = 1, in = 2;
  if (g.kind == field::PlaneKind::XZ) iu = 0, iv = 2, in = 1;
  if (g.kind == field::PlaneKind::YZ) iu = 1, iv = 2, in = 0;
  SampleCoordinates c;
  c.names = {"x", "y", "z"};
  c.base.assign(3, 0), c.di.assign(3, 0), c.dj.assign(3, 0);
  c.base[iu] = axes.base[0], c.di[iu] = axes.di[0];
  c.base[iv] = axes.base[1], c.dj[iv] = axes.dj[1];
  c.base[in] = g.offset;
  return c;
}

}  // namespace simscope::app
