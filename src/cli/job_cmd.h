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
struct JobTableOptions {
  bool all_namespaces = false;  // a Namespace column first
  bool wide = false;            // Queue and Scheduler columns last
  bool headers = true;
  // Folder mode: a job with no status shows spec.minAvailable and Pending.
  bool not_yet_controlled = false;
};
void PrintJobTable(const std::vector<Json>& jobs, const JobTableOptions& options,
                   std::ostream& out);

}  // namespace basalt
