#include "sim/report_format.h"

#include <cmath>
#include <cstdio>

namespace basalt {

std::string FormatPercent(double ratio) {
  const double pct = std::round(ratio * 1000.0) / 10.0;
  char buf[32];
  if (pct == std::floor(pct)) {
    std::snprintf(buf, sizeof buf, "%.0f%%", pct);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  }
  return buf;
}

std::string FormatDuration(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  char buf[48];
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%lld s", static_cast<long long>(seconds));
  } else if (seconds < 3600) {
    std::snprintf(buf, sizeof buf, "%lld min", static_cast<long long>(seconds / 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lld h %02lld min", static_cast<long long>(seconds / 3600),
                  static_cast<long long>(seconds % 3600 / 60));
  }
  return buf;
}

std::string FormatSimTime(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "d%lld %02lld:%02lld", static_cast<long long>(seconds / 86400 + 1),
                static_cast<long long>(seconds % 86400 / 3600),
                static_cast<long long>(seconds % 3600 / 60));
  return buf;
}

}  // namespace basalt
