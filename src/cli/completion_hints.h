// What the shell completion scripts (`basalt completion bash|zsh`) offer
// beyond the command tree: the values a flag accepts (the formats of each
// command's -o) and the objects a command names (`job view <TAB>`).
// Declared beside the flags, so the scripts follow the commands.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace basalt {

// The completion scripts offer `values` after `opt` (instead of file names).
// Returns `opt` for chaining.
CLI::Option* OfferValues(CLI::Option* opt, std::vector<std::string> values);
// The values offered after `opt`; empty when none were declared (files).
std::vector<std::string> OfferedValues(const CLI::Option* opt);

// `cmd` names one object of `kind` ("job" or "queue"): its positional argument
// and its --name/-N flag complete the names `basalt <kind> list -o name`
// prints, asked with the --cluster, --kubeconfig, --context and -n typed so far.
void CompleteObjectNames(CLI::App* cmd, std::string kind);
// The kind of object `cmd` names, "" when none.
std::string CompletedObjectKind(const CLI::App* cmd);

}  // namespace basalt
