// The warning plugins give for an argument they do not know: Volcano ignores
// it, basalt ignores it too but says so on stderr, once per key and process
// (plugins are built every cycle).
#pragma once

#include <algorithm>
#include <iostream>
#include <mutex>
#include <set>
#include <string>

#include "framework/arguments.h"

namespace basalt {

// `known` is the one top-level argument name the plugin reads (the part of a
// key before the first '.' or '[').
inline void WarnUnknownArguments(const Arguments& args, const std::string& known) {
  static std::mutex mu;
  static std::set<std::string> warned;  // "<owner>/<key>" already reported
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& [key, value] : args.values()) {
    const std::string top = key.substr(0, std::min(key.find_first_of(".["), key.size()));
    if (top == known || !warned.insert(args.owner() + "/" + top).second) continue;
    std::cerr << "basalt: warning: " << args.owner() << ": arguments." << top
              << ": unknown argument, ignored (known: " << known << ")\n";
  }
}

}  // namespace basalt
