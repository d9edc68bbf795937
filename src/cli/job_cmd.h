// `basalt job run|list|view|suspend|resume|delete`: vcctl's job commands
// against the API server or a folder of manifests (docs/cli.md).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <vector>

#include "cli/vc_common.h"

namespace basalt {

// Adds `job` and its subcommands to `app`; the one that runs sets `outcome`.
void AddJobCommands(CLI::App& app, CliOutcome* outcome);

// vcctl's `job list` table for `jobs` (columns sized to the longest name, and
// namespace with `all_namespaces`).
void PrintJobTable(const std::vector<Json>& jobs, bool all_namespaces, std::ostream& out);

}  // namespace basalt
