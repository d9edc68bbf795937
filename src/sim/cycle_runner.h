// CycleRunner: scheduling cycles over a ClusterState, with the world moving
// between them as a cluster would (DESIGN.md, "the contract of basalt schedule"):
//
//   sync controllers -> session (snapshot, plugins) -> actions -> close
//   -> apply decisions to the store -> world step
//
// Applying decisions: binds set the pod's node (phase stays Pending: "bound");
// evictions mark the pod deleting; a preempt pipeline with an eviction sets the
// pod's nominated node; PodGroup phases and queue allocations are written.
// World step: deleting pods disappear (the job controller reacts with the
// job's PodEvicted policy), bound pods become Running, controllers sync.
//
// `basalt schedule` runs N cycles; `basalt simulate` will drive the same runner
// from its event loop.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "controllers/job_controller.h"
#include "controllers/podgroup_controller.h"
#include "framework/action.h"
#include "framework/config.h"
#include "framework/plugin.h"
#include "framework/session.h"
#include "state/cluster_state.h"

namespace basalt {

struct ScoreEntry {
  std::string pod, node;
  double score = 0;
};

struct CycleResult {
  int64_t cycle = 0;
  Decisions decisions;
  std::vector<ScoreEntry> scores;  // only with `want_scores`
  // Phase of every PodGroup in the store at session close.
  std::map<std::string, std::string> podgroup_phases;
};

class CycleRunner {
 public:
  // `state`, `conf` and the registries must outlive the runner.
  CycleRunner(ClusterState& state, const SchedulerConfig& conf, const PluginRegistry& plugins,
              const ActionRegistry& actions, SessionOptions options);

  // Builds the configured actions; fails on a wrong action argument.
  Status Init();
  // Syncs the controllers (before the first cycle and in every world step).
  void SyncControllers();
  // One session: actions in order, close, decisions applied to the store.
  Result<CycleResult> RunCycle(bool want_scores);
  // The world moves: deleting pods go, bound pods start, controllers react.
  void WorldStep();

 private:
  void ApplyDecisions(const Decisions& d);

  ClusterState& state_;
  const SchedulerConfig& conf_;
  const PluginRegistry& plugins_;
  const ActionRegistry& action_registry_;
  SessionOptions options_;
  std::vector<std::unique_ptr<Action>> actions_;
  JobController jobs_;
  PodGroupController podgroups_;
  int64_t cycle_ = 0;
};

}  // namespace basalt
