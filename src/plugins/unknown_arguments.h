// The warning plugins give for an argument they do not know: Volcano ignores
// it, basalt ignores it too but says so on stderr, once per plugin, key and
// process (plugins are built every cycle).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "framework/arguments.h"

namespace basalt {

// The part of a flattened argument key ("a.b", "a[0].c") to name in the
// warning, or "" when the plugin reads that key.
using UnknownArgumentPart = std::function<std::string(const std::string& key)>;

// Warns about every argument of `args` that `unknown_part` reports; `known`
// lists what the plugin reads, for the message.
void WarnUnknownArguments(const Arguments& args, const UnknownArgumentPart& unknown_part,
                          std::string_view known);

// For a plugin that reads one top-level argument `known` (the part of a key
// before the first '.' or '[').
void WarnUnknownArguments(const Arguments& args, const std::string& known);

// `key` up to the first of the characters in `stops` (all of it when none occurs).
std::string KeyPrefix(const std::string& key, std::string_view stops);

}  // namespace basalt
