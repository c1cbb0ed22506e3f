#include "core/bytes.hpp"

#include <cmath>
#include <cstdio>

namespace simscope {

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return "? bytes";
  if (bytes < 1024) return std::to_string(static_cast<long long>(std::llround(bytes))) + " bytes";
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = bytes / 1024;
  int u = 0;
  // Keep three significant digits: 1023.7 KiB must move to the next unit, not print "1.02e+03 KiB".
  while (u < 5 && v >= 1023.5) v /= 1024, ++u;
  char buf[32];
  if (v < 9.995)
    std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  else if (v < 99.95)
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  return buf;
}

}  // namespace simscope
