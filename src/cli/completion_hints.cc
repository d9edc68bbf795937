#include "cli/completion_hints.h"

#include <map>
#include <utility>

namespace basalt {
namespace {

// The command tree is built once per process and lives until exit, so its
// nodes' addresses are stable keys.
std::map<const CLI::Option*, std::vector<std::string>>& ValuesByOption() {
  static std::map<const CLI::Option*, std::vector<std::string>> values;
  return values;
}

std::map<const CLI::App*, std::string>& KindByCommand() {
  static std::map<const CLI::App*, std::string> kinds;
  return kinds;
}

}  // namespace

CLI::Option* OfferValues(CLI::Option* opt, std::vector<std::string> values) {
  ValuesByOption()[opt] = std::move(values);
  return opt;
}

std::vector<std::string> OfferedValues(const CLI::Option* opt) {
  auto it = ValuesByOption().find(opt);
  return it == ValuesByOption().end() ? std::vector<std::string>{} : it->second;
}

void CompleteObjectNames(CLI::App* cmd, std::string kind) {
  KindByCommand()[cmd] = std::move(kind);
}

std::string CompletedObjectKind(const CLI::App* cmd) {
  auto it = KindByCommand().find(cmd);
  return it == KindByCommand().end() ? "" : it->second;
}

}  // namespace basalt
