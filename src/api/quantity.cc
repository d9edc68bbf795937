#include "api/quantity.h"

#include <cctype>
#include <cstdlib>
#include <string>

namespace basalt {
namespace {

using i128 = __int128;

constexpr int kMaxDigits = 30;  // keeps the mantissa well inside 128 bits
const i128 kLimit = static_cast<i128>(INT64_MAX);

struct Parsed {
  bool negative = false;
  i128 mantissa = 0;   // all digits, decimal point removed
  int frac_digits = 0; // digits after the point
  int exp10 = 0;       // from decimal suffix or exponent
  int exp2 = 0;        // from binary suffix
};

Status Invalid(std::string_view text, std::string_view why) {
  return Status::InvalidArgument("invalid quantity \"" + std::string(text) + "\": " + std::string(why));
}

Result<Parsed> ParseParts(std::string_view text) {
  Parsed p;
  size_t i = 0;
  if (text.empty()) return Invalid(text, "empty");
  if (text[i] == '+' || text[i] == '-') {
    p.negative = text[i] == '-';
    ++i;
  }
  int digits = 0;
  bool seen_point = false;
  bool any_digit = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      if (seen_point) return Invalid(text, "two decimal points");
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    any_digit = true;
    if (p.mantissa == 0 && c == '0' && !seen_point) continue;  // leading zeros
    if (digits >= kMaxDigits) {
      if (seen_point) continue;  // extra fractional precision beyond 30 digits is dropped
      return Invalid(text, "too many digits");
    }
    p.mantissa = p.mantissa * 10 + (c - '0');
    ++digits;
    if (seen_point) ++p.frac_digits;
  }
  if (!any_digit) return Invalid(text, "expected a number");
  std::string_view suffix = text.substr(i);
  if (suffix.empty()) return p;
  if (suffix.size() == 2 && suffix[1] == 'i') {
    switch (suffix[0]) {
      case 'K': p.exp2 = 10; return p;
      case 'M': p.exp2 = 20; return p;
      case 'G': p.exp2 = 30; return p;
      case 'T': p.exp2 = 40; return p;
      case 'P': p.exp2 = 50; return p;
      case 'E': p.exp2 = 60; return p;
      default: return Invalid(text, "unknown suffix \"" + std::string(suffix) + "\"");
    }
  }
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n': p.exp10 = -9; return p;
      case 'u': p.exp10 = -6; return p;
      case 'm': p.exp10 = -3; return p;
      case 'k': p.exp10 = 3; return p;
      case 'M': p.exp10 = 6; return p;
      case 'G': p.exp10 = 9; return p;
      case 'T': p.exp10 = 12; return p;
      case 'P': p.exp10 = 15; return p;
      case 'E': p.exp10 = 18; return p;
      default: break;
    }
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view e = suffix.substr(1);
    size_t j = 0;
    bool neg = false;
    if (j < e.size() && (e[j] == '+' || e[j] == '-')) neg = e[j++] == '-';
    if (j >= e.size()) return Invalid(text, "exponent without digits");
    int v = 0;
    for (; j < e.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(e[j]))) return Invalid(text, "bad exponent");
      v = v * 10 + (e[j] - '0');
      if (v > 40) return Invalid(text, "exponent out of range");
    }
    p.exp10 = neg ? -v : v;
    return p;
  }
  return Invalid(text, "unknown suffix \"" + std::string(suffix) + "\"");
}

// ceil(mantissa * scale * 2^exp2 * 10^(exp10 - frac)) with overflow checks.
Result<int64_t> Scale(std::string_view text, const Parsed& p, int scale_exp10) {
  i128 num = p.mantissa;
  int e10 = p.exp10 - p.frac_digits + scale_exp10;
  for (int k = 0; k < p.exp2; ++k) {
    num *= 2;
    if (num > kLimit * 1000000) return Invalid(text, "value too large");
  }
  i128 den = 1;
  while (e10 > 0) {
    num *= 10;
    --e10;
    if (num > kLimit * 1000000) return Invalid(text, "value too large");
  }
  while (e10 < 0) {
    if (den > kLimit) {  // the value is far below one unit: result is 0 or 1
      num = num > 0 ? 1 : 0;
      den = 1;
      break;
    }
    den *= 10;
    ++e10;
  }
  i128 q = num / den;
  if (num % den != 0) q += 1;  // round up, as Kubernetes does
  if (q > kLimit) return Invalid(text, "value too large");
  int64_t v = static_cast<int64_t>(q);
  return p.negative ? -v : v;
}

}  // namespace

Result<int64_t> ParseQuantityUnits(std::string_view text) {
  BASALT_ASSIGN_OR_RETURN(Parsed p, ParseParts(text));
  return Scale(text, p, 0);
}

Result<int64_t> ParseQuantityMilli(std::string_view text) {
  BASALT_ASSIGN_OR_RETURN(Parsed p, ParseParts(text));
  return Scale(text, p, 3);
}

namespace {
std::string FormatDecimalUnits(int64_t v) {
  if (v == 0) return "0";
  static const char* kSuffix[] = {"", "k", "M", "G", "T", "P", "E"};
  int k = 0;
  while (k < 6 && v % 1000 == 0) {
    v /= 1000;
    ++k;
  }
  return std::to_string(v) + kSuffix[k];
}
}  // namespace

std::string FormatMilliDecimal(int64_t milli) {
  if (milli % 1000 != 0) return std::to_string(milli) + "m";
  return FormatDecimalUnits(milli / 1000);
}

std::string FormatBinaryBytes(int64_t bytes) {
  if (bytes > -1024 && bytes < 1024) return FormatDecimalUnits(bytes);
  static const char* kSuffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int k = 0;
  while (k < 6 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++k;
  }
  return std::to_string(bytes) + kSuffix[k];
}

}  // namespace basalt
