// `basalt queue create|list|get|open|close|delete`: vcctl's queue commands
// against the API server or a folder of manifests (docs/cli.md).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <vector>

#include "cli/vc_common.h"

namespace basalt {

// Adds `queue` and its subcommands to `app`; the one that runs sets `outcome`.
void AddQueueCommands(CLI::App& app, CliOutcome* outcome);

// vcctl's `queue list` table.
struct QueueTableOptions {
  bool wide = false;  // Parent and Reclaimable columns last
  bool headers = true;
};
void PrintQueueTable(const std::vector<Json>& queues, const QueueTableOptions& options,
                     std::ostream& out);

}  // namespace basalt
