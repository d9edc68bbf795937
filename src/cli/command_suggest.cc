#include "cli/command_suggest.h"

#include <algorithm>

namespace basalt {
namespace {

// Edit distance (insertions, deletions, substitutions), for short words.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<size_t> CommandWord(const std::vector<std::string>& args, size_t from,
                                  const std::vector<std::string>& options_with_value) {
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return std::nullopt;
    if (a.empty() || a[0] != '-') return i;
    bool takes_value = std::find(options_with_value.begin(), options_with_value.end(), a) !=
                       options_with_value.end();
    if (takes_value) ++i;  // --log-level debug: "debug" is not the command
  }
  return std::nullopt;
}

std::string ClosestName(const std::string& word, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = 3;  // more than two edits away suggests nothing
  for (const std::string& c : names) {
    size_t d = c.rfind(word, 0) == 0 && !word.empty() ? 1 : EditDistance(word, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

std::optional<std::string> UnknownCommandError(const std::string& word,
                                               const std::vector<std::string>& commands,
                                               const std::string& parent) {
  if (std::find(commands.begin(), commands.end(), word) != commands.end()) return std::nullopt;
  const std::string best = ClosestName(word, commands);
  std::string message = "unknown command \"" + word + "\" for \"" + parent + "\"";
  if (!best.empty()) message += "; did you mean \"" + best + "\"?";
  return message + " (" + parent + " --help lists the commands)";
}

std::optional<std::string> UnknownFlagError(const std::vector<std::string>& args, size_t from,
                                            const std::vector<std::string>& flags,
                                            const std::string& command) {
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return std::nullopt;  // the rest is positional
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const std::string name = a.substr(0, a.find('='));
    if (std::find(flags.begin(), flags.end(), name) != flags.end()) continue;
    const std::string best = ClosestName(name, flags);
    std::string message = "unknown flag \"" + name + "\" for \"" + command + "\"";
    if (!best.empty()) message += "; did you mean \"" + best + "\"?";
    return message + " (" + command + " --help lists the flags)";
  }
  return std::nullopt;
}

}  // namespace basalt
