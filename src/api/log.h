// Logging: one spdlog logger per component, all writing to stderr.
//
// Two kinds of lines go through here:
//   - what a command tells its user ("basalt: cluster/a.yaml:3: Pod ns/p: ..."),
//     through `CliLog()`: the message alone behind "basalt: ", because users
//     and scripts read it;
//   - what a long-running process reports (`basalt serve`), through
//     `Log(component)`: a timestamp, the level and the component, then
//     key=value fields, so a log pipeline can index them:
//       2026-11-25T18:30:01.234Z level=info component=serve msg="cycle" cycle=12 bound=40
//
// Levels: `SetLogLevel` ("trace", "debug", "info", "warn", "error", "off"),
// from `-v` / `--log-level`; the default is info. Disabled levels cost one
// comparison (spdlog checks the level before formatting).
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <string_view>

#include "api/status.h"

namespace basalt {

// The logger of a component ("serve", "kube", "leader", "plugins", ...),
// created on first use. Thread-safe.
spdlog::logger& Log(std::string_view component);

// The logger of command-line messages: "basalt: <message>" on stderr.
spdlog::logger& CliLog();

// Sets the level of every logger, present and future.
Status SetLogLevel(std::string_view level);

// A value for a key=value field: quoted (with \" and \\ escaped) when it is
// empty or holds a space, a quote, a backslash or '='.
std::string LogValue(std::string_view value);

}  // namespace basalt
