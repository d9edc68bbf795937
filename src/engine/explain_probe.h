// The sessions behind `basalt explain` (docs/explain.md).
//
// Two sessions are opened on the same store, which neither changes:
//
//  1. the explained session: the configured actions in order, then close —
//     exactly what `basalt schedule` runs for that cycle. Its decisions and
//     events (attributed to the action that recorded them) say what the
//     scheduler does with the target and why;
//  2. a what-if session: the configured actions again (the same snapshot and
//     options give the same state), then read-only questions on the state they
//     leave: which nodes refuse each pending pod and why, how many of the
//     gang's pending pods could be placed (tried in a statement that is
//     discarded), and — when preempt or reclaim are not configured — what they
//     would evict for the target if they ran. This session is never closed and
//     its decisions are thrown away, so nothing it does reaches the output of
//     any other command.
//
// Nothing here changes a decision of the scheduler: the sessions are opened
// through the public Session API with the caller's options, and only the
// caller's store is read.
#pragma once

#include <string>

#include "api/status.h"
#include "engine/explain_report.h"
#include "framework/action.h"
#include "framework/config.h"
#include "framework/plugin.h"
#include "framework/session.h"
#include "state/cluster_state.h"

namespace basalt {

// The object to explain, as found in the store.
struct ExplainSubject {
  std::string kind;  // Pod, Job (vcjob) or PodGroup
  std::string key;   // ns/name
};

// Runs both sessions on `state` for `subject` (which must exist in `state`)
// and fills the report. `options.cycle` is the number of the explained cycle.
// Errors: an action or plugin that cannot be built (bad configuration).
Result<ExplainReport> ProbeExplain(const ClusterState& state, const SchedulerConfig& conf,
                                   const PluginRegistry& plugins, const ActionRegistry& actions,
                                   const SessionOptions& options, const ExplainSubject& subject);

// "cpu 2, memory 4Gi, nvidia.com/gpu 1" (zero dimensions and pods left out;
// "nothing" when every dimension is zero).
std::string ResourceText(const Resource& r);

}  // namespace basalt
