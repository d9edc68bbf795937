#include "api/quantity.h"

#include <cstdint>
#include <string>

#include "api/text.h"

namespace basalt {
namespace {

// Exponents beyond this magnitude cannot change the outcome: it exceeds the
// length of any input that fits in memory, so a non-zero mantissa is then either
// far above int64 or far below one unit (rounds to 1). Clamping keeps the
// exponent arithmetic below in plain int64.
constexpr int64_t kExponentClamp = 1'000'000'000'000'000;

// A parsed quantity: value = digits * 10^exp10 * 2^exp2, exactly.
struct Decimal {
  bool negative = false;
  std::string digits;  // significant digits, no leading or trailing zeros; "" = zero
  int64_t exp10 = 0;
  int exp2 = 0;  // 0, 10, 20, ... 60 (binary suffixes)
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

Status Invalid(std::string_view text, std::string_view why) {
  return Status::InvalidArgument("invalid quantity \"" + std::string(text) +
                                 "\": " + std::string(why));
}

// Reads a suffix into `d`. Returns false when it is not one Kubernetes knows.
bool ReadSuffix(std::string_view s, Decimal* d) {
  if (s.empty()) return true;
  if (s.size() == 2 && s[1] == 'i') {
    static constexpr std::string_view kBinary = "KMGTPE";
    size_t k = kBinary.find(s[0]);
    if (k == std::string_view::npos) return false;
    d->exp2 = 10 * static_cast<int>(k + 1);
    return true;
  }
  if (s.size() == 1) {
    switch (s[0]) {
      case 'n':
        d->exp10 -= 9;
        return true;
      case 'u':
        d->exp10 -= 6;
        return true;
      case 'm':
        d->exp10 -= 3;
        return true;
      case 'k':
        d->exp10 += 3;
        return true;
      case 'M':
        d->exp10 += 6;
        return true;
      case 'G':
        d->exp10 += 9;
        return true;
      case 'T':
        d->exp10 += 12;
        return true;
      case 'P':
        d->exp10 += 15;
        return true;
      case 'E':
        d->exp10 += 18;
        return true;
      default:
        return false;
    }
  }
  // A decimal exponent: "e" or "E", an optional sign, at least one digit.
  if (s[0] != 'e' && s[0] != 'E') return false;
  size_t j = 1;
  bool negative = false;
  if (j < s.size() && (s[j] == '+' || s[j] == '-')) negative = s[j++] == '-';
  if (j == s.size()) return false;
  int64_t e = 0;
  for (; j < s.size(); ++j) {
    if (!IsDigit(s[j])) return false;
    if (e < kExponentClamp) e = e * 10 + (s[j] - '0');
  }
  d->exp10 += negative ? -e : e;
  return true;
}

Result<Decimal> Scan(std::string_view text) {
  if (text.empty()) return Invalid(text, "empty");
  Decimal d;
  size_t i = 0;
  if (text[0] == '+' || text[0] == '-') {
    d.negative = text[0] == '-';
    ++i;
  }
  size_t int_begin = i;
  while (i < text.size() && IsDigit(text[i])) ++i;
  std::string_view int_digits = text.substr(int_begin, i - int_begin);
  std::string_view frac_digits;
  if (i < text.size() && text[i] == '.') {
    size_t frac_begin = ++i;
    while (i < text.size() && IsDigit(text[i])) ++i;
    frac_digits = text.substr(frac_begin, i - frac_begin);
  }
  if (int_digits.empty() && frac_digits.empty()) {
    return Invalid(text,
                   "expected a number (digits with an optional sign, decimal point and suffix)");
  }
  std::string_view suffix = text.substr(i);
  for (char c : suffix) {
    if (IsSpace(c)) return Invalid(text, "whitespace is not allowed");
  }
  if (!suffix.empty() && suffix[0] == '.') return Invalid(text, "more than one decimal point");
  if (!ReadSuffix(suffix, &d)) {
    return Invalid(text, "unknown suffix \"" + std::string(suffix) +
                             "\" (want Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E "
                             "or an exponent such as e3)");
  }
  d.digits.reserve(int_digits.size() + frac_digits.size());
  d.digits.append(int_digits);
  d.digits.append(frac_digits);
  d.exp10 -= static_cast<int64_t>(frac_digits.size());
  size_t lead = d.digits.find_first_not_of('0');
  if (lead == std::string::npos) {
    d.digits.clear();
    return d;
  }
  d.digits.erase(0, lead);
  size_t last = d.digits.find_last_not_of('0');
  d.exp10 += static_cast<int64_t>(d.digits.size() - last - 1);
  d.digits.resize(last + 1);
  return d;
}

// digits *= factor, on a big-endian decimal string (factor small).
void MultiplyDigits(std::string& digits, uint32_t factor) {
  uint64_t carry = 0;
  for (size_t k = digits.size(); k-- > 0;) {
    uint64_t v = static_cast<uint64_t>(digits[k] - '0') * factor + carry;
    digits[k] = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  std::string head;
  while (carry > 0) {
    head.insert(head.begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
  digits.insert(0, head);
}

// Rounds digits * 2^exp2 * 10^(exp10 + scale10) away from zero into an int64.
Result<int64_t> ToInt64(std::string_view text, Decimal d, int scale10) {
  if (d.digits.empty()) return int64_t{0};
  const Status too_large = Invalid(
      text, scale10 == 0
                ? "out of range (the value must fit in a signed 64-bit integer)"
                : "out of range (the value in milli-units must fit in a signed 64-bit integer)");
  int64_t e = d.exp10 + scale10;
  // The integer part has size() + e digits; int64 has at most 19. Checked before
  // the binary multiplication so a huge mantissa costs nothing more.
  if (static_cast<int64_t>(d.digits.size()) + e > 19) return too_large;
  for (int k = 0; k < d.exp2; k += 10) MultiplyDigits(d.digits, 1024);
  int64_t int_len = static_cast<int64_t>(d.digits.size()) + e;
  if (int_len > 19) return too_large;
  bool fraction = false;
  std::string int_part;
  if (int_len <= 0) {
    fraction = true;  // digits is non-zero and entirely below one unit
  } else if (e >= 0) {
    int_part = d.digits + std::string(static_cast<size_t>(e), '0');
  } else {
    int_part = d.digits.substr(0, static_cast<size_t>(int_len));
    fraction = d.digits.find_first_not_of('0', static_cast<size_t>(int_len)) != std::string::npos;
  }
  unsigned __int128 v = 0;
  for (char c : int_part) v = v * 10 + static_cast<unsigned>(c - '0');
  if (fraction) v += 1;
  if (v > static_cast<unsigned __int128>(INT64_MAX)) return too_large;
  int64_t result = static_cast<int64_t>(v);
  return d.negative ? -result : result;
}

}  // namespace

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

Result<int64_t> ParseQuantityUnits(std::string_view text) {
  BASALT_ASSIGN_OR_RETURN(Decimal d, Scan(text));
  return ToInt64(text, std::move(d), 0);
}

Result<int64_t> ParseQuantityMilli(std::string_view text) {
  BASALT_ASSIGN_OR_RETURN(Decimal d, Scan(text));
  return ToInt64(text, std::move(d), 3);
}

std::string FormatMilliDecimal(int64_t milli) {
  if (milli % 1000 != 0) return std::to_string(milli) + "m";
  return FormatDecimalUnits(milli / 1000);
}

std::string FormatBinaryBytes(int64_t bytes) {
  // Kubernetes prints a BinarySI quantity strictly between -1024 and 1024 with
  // decimal suffixes (1000 -> "1k"), and a larger one with the largest binary
  // suffix that leaves an integer (1536 -> "1536", 1536Ki -> "1536Ki").
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
