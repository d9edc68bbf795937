#include "api/decode_fields.h"

#include "api/decode.h"  // ParseYamlBool

namespace basalt::decode_fields {

Result<int64_t> ParseIntField(const std::string& s, const std::string& field, int64_t lo,
                              int64_t hi) {
  auto not_int = [&] { return FieldError(field, "expected an integer, got \"" + s + "\""); };
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return not_int();
  bool negative = s[0] == '-';
  // Accumulate the magnitude as unsigned; anything beyond 2^63 is out of every range.
  constexpr uint64_t kCap = uint64_t{1} << 63;
  uint64_t mag = 0;
  bool overflow = false;
  for (size_t k = i; k < s.size(); ++k) {
    if (s[k] < '0' || s[k] > '9') return not_int();
    if (mag > (kCap - (s[k] - '0')) / 10) {
      overflow = true;
    } else {
      mag = mag * 10 + static_cast<uint64_t>(s[k] - '0');
    }
  }
  auto out_of_range = [&] {
    return FieldError(field, "value " + s + " out of range [" + std::to_string(lo) + ", " +
                                 std::to_string(hi) + "]");
  };
  if (overflow || (!negative && mag == kCap)) return out_of_range();
  int64_t v = negative ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
  if (v < lo || v > hi) return out_of_range();
  return v;
}

Result<bool> ParseBoolField(const std::string& text, const std::string& field) {
  if (std::optional<bool> b = ParseYamlBool(text)) return *b;
  return FieldError(field, "expected true or false, got \"" + text + "\"");
}

}  // namespace basalt::decode_fields
