// RunSession: the one place a session is opened, run and closed. The cycle
// runner (schedule, simulate, explain's cycles), the serve loop, explain's
// probe sessions and the benchmark all go through it, so a cycle means the
// same thing everywhere:
//
//   open (snapshot borrowed from the cache, or built; plugins opened)
//   -> the actions in order -> close (plugins' close hooks, PodGroup phases,
//   queue allocations) -> decisions
//
// Callers that need to look inside (scores on the snapshot, per-action
// timings, explain's before/after comparisons) pass hooks.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/status.h"
#include "framework/action.h"
#include "framework/config.h"
#include "framework/plugin.h"
#include "framework/session.h"
#include "state/cluster_state.h"

namespace basalt {

// Optional views into a session RunSession runs.
struct SessionHooks {
  // Once the snapshot and the plugins are ready. Returning false closes the
  // session at once, without running the actions.
  std::function<bool(Session&)> opened;
  std::function<void(Session&, const Action&)> before_action;
  std::function<void(Session&, const Action&)> after_action;
  // After the last action, before the plugins' close hooks.
  std::function<void(Session&)> before_close;
  // After close, while the session (and the snapshot it borrows) still exists.
  std::function<void(Session&, const Decisions&)> closed;
};

// Opens a session on `state` (patching `options.snapshot_cache`'s snapshot
// when there is one), runs `actions` in order, closes the session and returns
// its decisions. Fails when a plugin rejects its arguments.
Result<Decisions> RunSession(const ClusterState& state, const SchedulerConfig& conf,
                             const PluginRegistry& plugins,
                             const std::vector<std::unique_ptr<Action>>& actions,
                             const SessionOptions& options, const SessionHooks& hooks = {});

// The actions `names`, each configured with its `configurations:` arguments.
Result<std::vector<std::unique_ptr<Action>>> BuildActions(const std::vector<std::string>& names,
                                                          const SchedulerConfig& conf,
                                                          const ActionRegistry& registry);

}  // namespace basalt
