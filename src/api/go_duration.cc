#include "api/go_duration.h"

#include <cctype>
#include <limits>
#include <string_view>

#include "api/text.h"

namespace basalt {
namespace {

// Nanoseconds per unit; the longest unit names come first so "ms" is not read as "m".
struct Unit {
  std::string_view name;
  int64_t nanos;
};
constexpr Unit kUnits[] = {
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1'000},  // U+03BC Greek small letter mu
    {"ms", 1'000'000},
    {"s", kNanosPerSecond},
    {"m", 60 * kNanosPerSecond},
    {"h", 3600 * kNanosPerSecond},
};

}  // namespace

Result<int64_t> ParseGoDuration(const std::string& text, const std::string& what) {
  auto invalid = [&]() {
    return Status::InvalidArgument(what + ": invalid duration \"" + text +
                                   "\" (want a Go duration such as 90s, 5m or 1h30m)");
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return int64_t{0};
  if (s.empty()) return invalid();
  // Accumulated in unsigned 64 bits so that -9223372036854775808ns is representable.
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t total = 0;
  while (!s.empty()) {
    // Whole part and fraction: at least one digit on one side of the point.
    uint64_t whole = 0;
    bool whole_overflow = false;
    size_t i = 0;
    while (i < s.size() && IsDigit(s[i])) {
      if (whole > (std::numeric_limits<uint64_t>::max() - 9) / 10) whole_overflow = true;
      whole = whole * 10 + static_cast<uint64_t>(s[i] - '0');
      ++i;
    }
    const bool has_whole = i > 0;
    std::string_view frac;
    if (i < s.size() && s[i] == '.') {
      size_t j = i + 1;
      while (j < s.size() && IsDigit(s[j])) ++j;
      frac = s.substr(i + 1, j - i - 1);
      i = j;
    }
    if (!has_whole && frac.empty()) return invalid();
    if (whole_overflow) return invalid();
    s.remove_prefix(i);
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (s.substr(0, u.name.size()) == u.name &&
          (unit == nullptr || u.name.size() > unit->name.size()))
        unit = &u;
    }
    if (unit == nullptr) return invalid();  // a missing or unknown unit
    s.remove_prefix(unit->name.size());
    const uint64_t per = static_cast<uint64_t>(unit->nanos);
    if (whole > limit / per) return invalid();
    uint64_t value = whole * per;
    // The fraction, digit by digit, truncated to whole nanoseconds (as Go does).
    uint64_t scale = per;
    uint64_t frac_nanos = 0;
    for (char c : frac) {
      if (scale < 10) break;
      scale /= 10;
      frac_nanos += static_cast<uint64_t>(c - '0') * scale;
    }
    if (value > limit - frac_nanos) return invalid();
    value += frac_nanos;
    if (total > limit - value) return invalid();
    total += value;
  }
  if (negative) return static_cast<int64_t>(0 - total);
  return static_cast<int64_t>(total);
}

std::string GoDurationText(int64_t seconds) {
  if (seconds == 0) return "0s";
  std::string sign = seconds < 0 ? "-" : "";
  // As unsigned, so the most negative value has a magnitude too.
  uint64_t rest = seconds < 0 ? 0 - static_cast<uint64_t>(seconds) : static_cast<uint64_t>(seconds);
  const uint64_t h = rest / 3600, m = rest / 60 % 60, s = rest % 60;
  std::string out = sign;
  if (h) out += std::to_string(h) + "h";
  if (h || m) out += std::to_string(m) + "m";
  return out + std::to_string(s) + "s";
}

}  // namespace basalt
