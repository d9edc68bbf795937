// Small text helpers shared by the decoders, plugins and front ends, so that
// each rule (what a digit is, what white space is trimmed, how a list splits)
// is written once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace basalt {

// An ASCII decimal digit; unlike std::isdigit, independent of the locale and
// safe for any char.
constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// `s` without leading and trailing spaces, tabs, carriage returns and newlines.
inline std::string_view Trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(kSpace);
  return s.substr(begin, end - begin + 1);
}

// As Go's strings.Split: every piece between separators, empty ones kept, so
// "" is one empty piece and "a/" is {"a", ""}. Volcano splits hierarchy paths,
// weights and annotation lists this way.
inline std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    out.emplace_back(s.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

}  // namespace basalt
