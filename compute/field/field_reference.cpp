// Float64 brute-force reference of the field workload (field.hpp: evaluate_reference).
#include <chrono>
#include <cmath>

#include "field/field_internal.hpp"

namespace simscope::field {

void evaluate_reference(const Sources& s, const Targets& t, const Options& o, Result& out) {
  detail::validate(o);
  const auto t0 = std::chrono::steady_clock::now();
  detail::resize_outputs(out, t.size());
  out.skipped_coincidences = 0;
  const double eps2 = o.eps * o.eps;
  for (std::size_t i = 0; i < t.size(); ++i) {
    double ex = 0, ey = 0, ez = 0, phi = 0;
    for (std::size_t j = 0; j < s.size(); ++j) {
      const double dx = t.x[i] - double(s.x[j]), dy = t.y[i] - double(s.y[j]),
                   dz = t.z[i] - double(s.z[j]);
      const double r2 = dx * dx + dy * dy + dz * dz + eps2;
      if (r2 == 0) {
        ++out.skipped_coincidences;
        continue;
      }
      const double inv = 1.0 / std::sqrt(r2);
      const double qi = double(s.q[j]) * inv, w = qi * inv * inv;
      ex += w * dx, ey += w * dy, ez += w * dz, phi += qi;
    }
    ex *= -o.k, ey *= -o.k, ez *= -o.k, phi *= o.k;  // E = k sum q (y - x) / r^3
    out.ex[i] = float(ex), out.ey[i] = float(ey), out.ez[i] = float(ez);
    out.magnitude[i] = float(std::sqrt(ex * ex + ey * ey + ez * ez));
    out.potential[i] = float(phi);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace simscope::field
