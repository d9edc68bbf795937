#include "plugins/unknown_arguments.h"

#include <algorithm>
#include <mutex>
#include <set>

#include "api/log.h"

namespace basalt {

std::string KeyPrefix(const std::string& key, std::string_view stops) {
  return key.substr(0, std::min(key.find_first_of(stops), key.size()));
}

void WarnUnknownArguments(const Arguments& args, const UnknownArgumentPart& unknown_part,
                          std::string_view known) {
  args.MarkAllRead();  // reported here, with the plugin's own list of what it reads
  static std::mutex mu;
  static std::set<std::string> warned;  // "<owner>/<part>" already reported
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& [key, value] : args.values()) {
    const std::string part = unknown_part(key);
    if (part.empty() || !warned.insert(args.owner() + "/" + part).second) continue;
    CliLog().warn("warning: {}: arguments.{}: unknown argument, ignored (known: {})", args.owner(),
                  part, known);
  }
}

void WarnUnknownArguments(const Arguments& args, const std::string& known) {
  WarnUnknownArguments(
      args,
      [&known](const std::string& key) {
        std::string top = KeyPrefix(key, ".[");
        return top == known ? std::string() : top;
      },
      known);
}

}  // namespace basalt
