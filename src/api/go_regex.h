// Regular expressions as Volcano's Go code reads them (package regexp:
// RE2 syntax, Perl flags), matched in time linear in the text by RE2, so a
// pattern such as `(a+)+$` cannot stall a scheduling cycle the way a
// backtracking engine (std::regex) would. docs/topology.md lists the syntax
// and what is refused.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "api/status.h"

namespace re2 {
class RE2;
}

namespace basalt {

class GoRegex {
 public:
  // Compiles `pattern`; refuses, with Go's reason where Go refuses it, what
  // regexp.Compile refuses, and what RE2 cannot hold in its memory budget.
  static Result<GoRegex> Compile(const std::string& pattern);

  // Whether the pattern matches anywhere in `text` (unanchored, as Go's
  // Regexp.MatchString).
  bool Search(std::string_view text) const;

  const std::string& pattern() const { return pattern_; }

 private:
  GoRegex(std::string pattern, std::shared_ptr<const re2::RE2> compiled)
      : pattern_(std::move(pattern)), compiled_(std::move(compiled)) {}
  std::string pattern_;
  std::shared_ptr<const re2::RE2> compiled_;  // shared: copies of a HyperNode share it
};

}  // namespace basalt
