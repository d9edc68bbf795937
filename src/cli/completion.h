// `basalt completion bash|zsh`: shell completion scripts generated from the
// CLI11 command tree itself (subcommands, flags, which flags take a value), so
// they never drift from the commands.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/vc_common.h"

namespace basalt {

// The script for `shell` ("bash" or "zsh") completing every command of `app`.
Result<std::string> CompletionScript(const CLI::App& app, const std::string& shell);

// Adds `completion` to `app` (call it last, so the script covers every command).
void AddCompletionCommand(CLI::App& app, CliOutcome* outcome);

}  // namespace basalt
