#include "view/plane_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/number_text.hpp"
#include "io/atomic_file.hpp"

namespace simscope::app {
namespace {

std::string num(double v, int digits = 9) {
  if (std::isnan(v)) return "nan";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

/// The last word of an axis title ("pixel column w" -> "w"), or `fallback` when empty.
std::string short_name(const std::string& title, const std::string& fallback) {
  const auto p = title.find_last_of(' ');
  std::string s = p == std::string::npos ? title : title.substr(p + 1);
  return s.empty() ? fallback : s;
}

/// Copy of `r` with only output `name` and with `params`: enough for view_image of that output.
RunResult with_params(const RunResult& r, const ParamSet& params, const std::string& name) {
  RunResult t;
  t.workload = r.workload;
  t.params = params;
  t.backend = r.backend;
  t.preview = r.preview;
  t.payload = r.payload;
  if (const OutputArray* o = r.find(name)) t.outputs.push_back(*o);
  return t;
}

/// Fills the coordinates of `s` from the shown image's axis titles, or from the workload's space
/// coordinates where it has them (Workload::sample_coordinates, e.g. the field's x, y, z).
void set_coordinates(PlaneSamples& s, const ViewImage& img, const Workload& w, const RunResult& r) {
  const auto& ai = img.annotations.axis_i;
  const auto& aj = img.annotations.axis_j;
  const bool ranged = ai.show_range && aj.show_range && !ai.name.empty() && !aj.name.empty() &&
                      ai.first != ai.last && aj.first != aj.last;
  if (ranged) {
    s.u_name = short_name(ai.name, "i"), s.v_name = short_name(aj.name, "j");
    s.u_first = ai.first, s.u_last = ai.last, s.v_first = aj.first, s.v_last = aj.last;
  }
  const double du = s.rows > 1 ? (s.u_at(1) - s.u_at(0)) : 0;
  const double dv = s.cols > 1 ? (s.v_at(1) - s.v_at(0)) : 0;
  s.coord_names = {s.u_name, s.v_name};
  s.coord_base = {s.u_at(0), s.v_at(0)};
  s.coord_di = {du, 0};
  s.coord_dj = {0, dv};
  if (!ranged) return;
  const SampleCoordinates axes{s.coord_names, s.coord_base, s.coord_di, s.coord_dj};
  if (const auto c = w.sample_coordinates(r, axes)) {
    s.coord_names = c->names;
    s.coord_base = c->base, s.coord_di = c->di, s.coord_dj = c->dj;
  }
}

}  // namespace

int PlaneSamples::column(const std::string& name) const {
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (columns[c].name == name) return int(c);
  return -1;
}

double PlaneSamples::u_at(double fi) const {
  if (u_first == u_last || rows < 2) return fi;
  return u_first + (u_last - u_first) * fi / (rows - 1);
}
double PlaneSamples::v_at(double fj) const {
  if (v_first == v_last || cols < 2) return fj;
  return v_first + (v_last - v_first) * fj / (cols - 1);
}
double PlaneSamples::fi_of(double u) const {
  if (u_first == u_last || rows < 2) return u;
  return (u - u_first) / (u_last - u_first) * (rows - 1);
}
double PlaneSamples::fj_of(double v) const {
  if (v_first == v_last || cols < 2) return v;
  return (v - v_first) / (v_last - v_first) * (cols - 1);
}

double PlaneSamples::coord_at(std::size_t c, double fi, double fj) const {
  const double v = coord_base[c] + coord_di[c] * fi + coord_dj[c] * fj;
  const double extent = std::abs(coord_base[c]) + std::abs(coord_di[c]) * std::max(rows - 1, 0) +
                        std::abs(coord_dj[c]) * std::max(cols - 1, 0);
  return std::abs(v) <= 16 * std::numeric_limits<double>::epsilon() * extent ? 0.0 : v;
}

double PlaneSamples::interpolate(int c, double fi, double fj) const {
  const std::vector<float>& d = columns.at(std::size_t(c)).data;
  fi = std::clamp(fi, 0.0, double(rows - 1));
  fj = std::clamp(fj, 0.0, double(cols - 1));
  auto at = [&](int i, int j) { return double(d[std::size_t(i) * cols + j]); };
  if (columns[std::size_t(c)].integer) return at(int(std::lround(fi)), int(std::lround(fj)));
  const int i0 = std::min(int(std::floor(fi)), std::max(rows - 2, 0));
  const int j0 = std::min(int(std::floor(fj)), std::max(cols - 2, 0));
  const double ti = rows > 1 ? fi - i0 : 0, tj = cols > 1 ? fj - j0 : 0;
  const int i1 = std::min(i0 + 1, rows - 1), j1 = std::min(j0 + 1, cols - 1);
  // Terms with weight 0 are left out, so a NaN neighbour there does not spread.
  double v = 0;
  const double w[4] = {(1 - ti) * (1 - tj), ti * (1 - tj), (1 - ti) * tj, ti * tj};
  const int ii[4] = {i0, i1, i0, i1}, jj[4] = {j0, j0, j1, j1};
  for (int k = 0; k < 4; ++k)
    if (w[k] != 0) v += w[k] * at(ii[k], jj[k]);
  return v;
}

namespace {
/// Parameter that picks a component of output `choice`, e.g. "view.component" for lsq's (N, H, W)
/// solution; "" when the output has no component axis.
std::string component_param(const RunResult& r, const std::string& view_param,
                            const std::string& choice) {
  const std::string comp = view_param + ".component";
  const OutputArray* o = r.find(choice);
  if (!r.params.has_schema() || !r.params.schema().find(comp) || !o || o->shape.size() != 3)
    return "";
  return comp;
}
}  // namespace

std::string shown_column_name(const RunResult& r, const std::string& view_param,
                              const std::string& view) {
  const std::string comp = component_param(r, view_param, view);
  if (comp.empty()) return view;
  const std::int64_t n = std::int64_t(r.find(view)->shape[0]);
  const std::int64_t k = std::clamp<std::int64_t>(r.params.get_int(comp), 0, n - 1);
  return view + "[" + std::to_string(k) + "]";
}

PlaneSamples plane_samples(const Workload& w, const RunResult& r, const std::string& shown) {
  PlaneSamples s;
  const std::string vp = w.view_param();
  const ViewImage img = w.view_image(r, shown);
  s.rows = img.rows, s.cols = img.cols;
  set_coordinates(s, img, w, r);
  const ParamSpec& spec = r.params.schema().at(vp);
  std::vector<std::string> choices = spec.choices;
  if (choices.empty()) choices = {shown};
  // An output of integer dtype (lsq's count, status) is an integer column: nearest sample.
  auto integer = [&](const std::string& output) {
    const OutputArray* o = r.find(output);
    return o && (o->dtype == io::DType::Int32 || o->dtype == io::DType::Int64 ||
                 o->dtype == io::DType::UInt8);
  };
  auto add = [&](const std::string& name, const ViewImage& im, const std::string& output) {
    if (im.rows != s.rows || im.cols != s.cols || s.column(name) >= 0) return;
    s.columns.push_back({name, im.label, im.unit, im.data.host(), integer(output)});
  };
  for (const std::string& choice : choices) {
    ParamSet p = r.params;
    try {
      p.set(vp, choice);
    } catch (const std::exception&) {
      continue;
    }
    if (w.view_kind(p) != ViewKind::Plane) continue;
    const std::string comp = component_param(r, vp, choice);
    try {
      if (!comp.empty()) {
        const std::size_t n = r.find(choice)->shape[0];
        RunResult one = with_params(r, p, choice);
        for (std::size_t k = 0; k < n; ++k) {
          one.params.set(comp, std::int64_t(k));
          add(choice + "[" + std::to_string(k) + "]", w.view_image(one, choice), choice);
        }
      } else {
        add(choice, w.view_image(r, choice), choice);
      }
    } catch (const std::exception&) {
      // An output this result does not hold, e.g. a live run's, is not a column.
    }
  }
  if (s.columns.empty())
    s.columns.push_back({shown, img.label, img.unit, img.data.host(), integer(shown)});
  return s;
}

std::string probe_text(const PlaneSamples& s, int i, int j) {
  if (s.rows <= 0 || s.cols <= 0) return "";
  i = std::clamp(i, 0, s.rows - 1);
  j = std::clamp(j, 0, s.cols - 1);
  std::string t;
  for (std::size_t c = 0; c < s.coord_names.size(); ++c)
    t += (c ? " " : "") + s.coord_names[c] + "=" + num(s.coord_at(c, i, j), 6);
  t += "  [i=" + std::to_string(i) + " j=" + std::to_string(j) + "]";
  for (const PlaneColumn& col : s.columns) {
    t += "\n" + col.name + " = " + num(col.data[std::size_t(i) * s.cols + j], 7);
    if (!col.unit.empty()) t += " " + col.unit;
  }
  return t;
}

ProfileLine parse_profile_line(const std::string& text) {
  const std::string expected =
      "--profile expects x0,y0:x1,y1[:samples] (numbers in the plane's coordinates, samples an "
      "integer >= 2), got '" +
      text + "'";
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ':');) parts.push_back(part);
  if (parts.size() != 2 && parts.size() != 3) throw Error(expected);
  auto point = [&](const std::string& p, double& a, double& b) {
    const auto comma = p.find(',');
    if (comma == std::string::npos) throw Error(expected);
    const bool ok = parse_number(p.substr(0, comma), a) && parse_number(p.substr(comma + 1), b);
    if (!ok || !std::isfinite(a) || !std::isfinite(b)) throw Error(expected);
  };
  ProfileLine l;
  point(parts[0], l.u0, l.v0);
  point(parts[1], l.u1, l.v1);
  if (parts.size() == 3) {
    if (!parse_number(parts[2], l.samples) || l.samples < 2 || l.samples > 1000000)
      throw Error(expected);
  }
  return l;
}

Profile line_profile(const PlaneSamples& s, double fi0, double fj0, double fi1, double fj1,
                     int samples) {
  if (samples == 1 || samples < 0 || samples > 1000000)
    throw Error("line profile: samples must be 2 ... 1000000 (or 0: one per grid spacing), got " +
                std::to_string(samples));
  if (samples == 0) {
    const double len = std::hypot(fi1 - fi0, fj1 - fj0);
    samples = std::clamp(int(std::ceil(len - 1e-9)) + 1, 2, 1000000);
  }
  Profile p;
  p.fi0 = fi0, p.fj0 = fj0, p.fi1 = fi1, p.fj1 = fj1;
  p.header.push_back("distance");
  for (const auto& n : s.coord_names) p.header.push_back(n);
  p.first_value_column = int(p.header.size());
  for (const auto& c : s.columns) p.header.push_back(c.name);
  const double u0 = s.u_at(fi0), v0 = s.v_at(fj0);
  p.rows.reserve(std::size_t(samples));
  for (int k = 0; k < samples; ++k) {
    const double t = double(k) / (samples - 1);
    const double fi = fi0 + t * (fi1 - fi0), fj = fj0 + t * (fj1 - fj0);
    std::vector<double> row;
    row.reserve(p.header.size());
    row.push_back(std::hypot(s.u_at(fi) - u0, s.v_at(fj) - v0));
    for (std::size_t c = 0; c < s.coord_names.size(); ++c) row.push_back(s.coord_at(c, fi, fj));
    for (std::size_t c = 0; c < s.columns.size(); ++c) row.push_back(s.interpolate(int(c), fi, fj));
    p.rows.push_back(std::move(row));
  }
  return p;
}

Profile line_profile(const PlaneSamples& s, const ProfileLine& l) {
  const double tol = 1e-9;
  auto check = [&](double u, double v) {
    const double fi = s.fi_of(u), fj = s.fj_of(v);
    if (!(fi >= -tol * s.rows && fi <= (s.rows - 1) * (1 + tol) + tol && fj >= -tol * s.cols &&
          fj <= (s.cols - 1) * (1 + tol) + tol)) {
      const auto lo_u = std::min(s.u_at(0), s.u_at(s.rows - 1));
      const auto hi_u = std::max(s.u_at(0), s.u_at(s.rows - 1));
      const auto lo_v = std::min(s.v_at(0), s.v_at(s.cols - 1));
      const auto hi_v = std::max(s.v_at(0), s.v_at(s.cols - 1));
      throw Error("--profile: the point (" + num(u, 6) + ", " + num(v, 6) +
                  ") lies outside the plane: " + s.u_name + " in [" + num(lo_u, 6) + ", " +
                  num(hi_u, 6) + "], " + s.v_name + " in [" + num(lo_v, 6) + ", " + num(hi_v, 6) +
                  "]");
    }
  };
  check(l.u0, l.v0);
  check(l.u1, l.v1);
  return line_profile(s, s.fi_of(l.u0), s.fj_of(l.v0), s.fi_of(l.u1), s.fj_of(l.v1), l.samples);
}

std::string profile_csv(const Profile& p) {
  std::string out;
  for (std::size_t c = 0; c < p.header.size(); ++c) {
    if (c) out += ',';
    out += p.header[c];
  }
  out += '\n';
  for (const auto& row : p.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c) out += ',';
      out += num(row[c]);
    }
    out += '\n';
  }
  return out;
}

void write_profile_csv(const std::string& path, const Profile& p) {
  const std::string text = profile_csv(p);
  try {
    io::AtomicFile f(path);
    std::fwrite(text.data(), 1, text.size(), f.file());
    f.commit();
  } catch (const Error& e) {
    throw Error("cannot write the profile " + path + ": " + e.what());
  }
}

}  // namespace simscope::app
