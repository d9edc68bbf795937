// "unknown command" and "unknown flag" with a suggestion, as kubectl and git
// say them.
//
// CLI11 answers a misspelt subcommand with "A subcommand is required" or
// "The following arguments were not expected", which hides the typo. This
// looks at the command word before parsing and names it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace basalt {

// The closest of `names` to `word` (within two edits, or starting with it),
// for a "did you mean"; "" when none is.
std::string ClosestName(const std::string& word, const std::vector<std::string>& names);

// The index in `args` of the first word from `from` on that is neither an
// option nor the value of an option in `options_with_value`.
std::optional<size_t> CommandWord(const std::vector<std::string>& args, size_t from,
                                  const std::vector<std::string>& options_with_value);

// The error for `word` when it is not one of `commands`, else nothing:
// `unknown command "schedul" for "basalt"; did you mean "schedule"?` (the
// suggestion only when a command is within two edits, or starts with it).
// `parent` is the command line so far ("basalt", "basalt queue").
std::optional<std::string> UnknownCommandError(const std::string& word,
                                               const std::vector<std::string>& commands,
                                               const std::string& parent);

// The error for the first word of `args` from `from` on that is a long flag
// ("--cycle", "--cycle=3") not among `flags` ("--cycles", ...), else nothing:
// `unknown flag "--cycle" for "basalt schedule"; did you mean "--cycles"?`.
// Words after "--" are not flags.
std::optional<std::string> UnknownFlagError(const std::vector<std::string>& args, size_t from,
                                            const std::vector<std::string>& flags,
                                            const std::string& command);

}  // namespace basalt
