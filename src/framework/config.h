// Volcano's scheduler configuration file, verbatim:
//
//   actions: "enqueue, allocate, backfill"
//   tiers:
//   - plugins:
//     - name: priority
//     - name: gang
//       enablePreemptable: false
//       arguments: {...}
//   configurations:
//   - name: allocate
//     arguments: {...}
//
// Every `enable*` switch left out of the file is on, except enableHierarchy and
// EnabledClusterOrder (as in Volcano's loader). Unknown plugin or action names
// are errors listing the known ones (Volcano only logs them; a typo that silently
// drops gang scheduling is worse than a refusal to start); a plugin name the
// command was told to do without (`SetAllowedMissingPlugins`) is skipped. For the same reason,
// stricter than Volcano's YAML reader: an unknown field anywhere (a misspelt
// switch such as `enablePreemtable`) and a key written twice are errors. Switch
// values are YAML 1.1 booleans (true/false, yes/no, on/off), as Volcano reads
// them. drf with enableHierarchy next to proportion is refused, as in Volcano.
// Every message starts with "file:line: field path:".
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "framework/arguments.h"

namespace basalt {

// One switch per extension point, named after its YAML key.
enum class Switch {
  kJobOrder,
  kQueueOrder,
  kTaskOrder,
  kClusterOrder,
  kPredicate,
  kBestNode,
  kNodeOrder,
  kPreemptable,
  kReclaimable,
  kPreemptive,
  kAllocatable,
  kOverused,
  kJobReady,
  kJobPipelined,
  kJobEnqueued,
  kJobStarving,
  kVictim,
  kTargetJob,
  kReservedNodes,
  kHierarchy,
  kHyperNodeOrder,
  kHyperNodeGradient,
  kCount
};

// The YAML key of a switch ("enablePreemptable", "enabledOverused", ...).
const char* SwitchKey(Switch s);

struct PluginOption {
  std::string name;
  std::array<std::optional<bool>, static_cast<size_t>(Switch::kCount)> switches{};
  Arguments arguments;

  // The switch as Volcano's loader resolves it: unset means on, except
  // enableHierarchy and EnabledClusterOrder, which are off unless set.
  bool Enabled(Switch s) const;
};

struct Tier {
  std::vector<PluginOption> plugins;
};

struct SchedulerConfig {
  std::vector<std::string> actions;
  std::vector<Tier> tiers;
  // Per-action arguments from `configurations:`.
  std::vector<std::pair<std::string, Arguments>> action_arguments;

  const Arguments* ActionArguments(const std::string& action) const;
  bool HasAction(const std::string& name) const;
};

// Whether configurations are read leniently, as Volcano reads them: an unknown
// plugin name is skipped and a plugin or action argument of the wrong type
// keeps its default, each with a warning naming the file and line
// (`Arguments::Invalid`). Process-wide, set once by the command before it
// reads its configuration: lenient for `schedule`, `simulate` and `serve`
// unless `--strict`; strict (the default) for `validate` and everything else.
void SetLenientSchedulerConfig(bool lenient);
bool LenientSchedulerConfig();

// The plugin names a configuration may name although basalt has no such
// plugin (`--allow-missing-plugins=a,b`): each is skipped with a warning. Any
// other plugin name basalt does not have is an error in every mode, lenient
// or not: a Volcano plugin that is dropped silently (pdb, resourcequota)
// takes a protection away without anyone noticing. Process-wide, set once by
// the command before it reads its configuration; empty by default.
void SetAllowedMissingPlugins(std::vector<std::string> names);
const std::vector<std::string>& AllowedMissingPlugins();

// The plugin names Volcano v1.15.1's scheduler registers (its plugin
// factory), sorted: what a configuration written for Volcano may name.
const std::vector<std::string>& VolcanoPluginNames();

// Parses the configuration text. `source` names the file in messages.
// `known_plugins` / `known_actions` validate names (empty = accept any).
// Reads leniently when `LenientSchedulerConfig()`.
Result<SchedulerConfig> ParseSchedulerConfig(const std::string& text, const std::string& source,
                                             const std::vector<std::string>& known_plugins,
                                             const std::vector<std::string>& known_actions);

// Volcano's built-in default configuration.
const char* DefaultSchedulerConfigText();

}  // namespace basalt
