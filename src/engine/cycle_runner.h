// CycleRunner: scheduling cycles over a ClusterState, with the world moving
// between them as a cluster would (the contract of basalt schedule, docs/schedule.md):
//
//   sync controllers -> session (snapshot, plugins) -> actions -> close
//   -> apply decisions to the store -> world step
//
// Applying decisions: binds set the pod's node (phase stays Pending: "bound");
// evictions mark the pod deleting; a preempt pipeline with an eviction sets the
// pod's nominated node; PodGroup phases and queue allocations are written.
//
// World step (see WorldStep for the order and why): the clock advances,
// deleting pods disappear and the job controller reacts (PodEvicted), pods
// progress (finish-after-steps, bound -> Running) and the controller reacts
// (PodFailed, TaskCompleted), Commands are consumed, controllers sync.
//
// Time is simulated: `now()` starts at the latest creation time in the input
// (0 when none) and advances by `step_seconds` per world step (1 s in
// `basalt schedule`). No wall clock is read.
//
// The session itself runs through RunSession (engine/session_runner.h).
//
// `basalt schedule` runs N cycles; `basalt simulate` drives the same runner
// from its event loop (and sets the clock to simulated time).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "controllers/cronjob_controller.h"
#include "controllers/job_controller.h"
#include "controllers/job_plugins.h"
#include "controllers/jobflow_controller.h"
#include "controllers/podgroup_controller.h"
#include "controllers/queue_controller.h"
#include "engine/session_runner.h"
#include "framework/action.h"
#include "framework/config.h"
#include "framework/plugin.h"
#include "framework/session.h"
#include "framework/snapshot_cache.h"
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
  std::map<std::string, PodGroupPhase> podgroup_phases;
  // Whether applying the decisions changed the store (a bind, an eviction, a
  // nominated node, a PodGroup phase or a queue allocation). A session that
  // changed nothing, followed by a world step that changed nothing, would be
  // repeated identically by the next one (`basalt simulate` skips those).
  bool state_changed = false;
};

// What a world step did: the pods it deleted (in key order) and how many pods
// changed phase (started or finished).
struct WorldStepResult {
  std::vector<std::string> deleted;
  size_t progressed = 0;
  bool changed() const { return !deleted.empty() || progressed > 0; }
};

class CycleRunner {
 public:
  // `state`, `conf` and the registries must outlive the runner.
  CycleRunner(ClusterState& state, const SchedulerConfig& conf, const PluginRegistry& plugins,
              const ActionRegistry& actions, SessionOptions options);

  // Builds the configured actions; fails on a wrong action argument.
  Status Init();
  // Consumes pending Commands, then syncs the controllers (before the first
  // cycle and at the end of every world step).
  void SyncControllers();
  // One session: actions in order, close, decisions applied to the store.
  Result<CycleResult> RunCycle(bool want_scores);
  // The world moves: deleting pods go, bound pods start, controllers react.
  WorldStepResult WorldStep();
  // Only the PodGroup controller: groups for bare pods created since (the
  // simulator's ReplicaSets between world steps).
  void SyncPodGroups() { podgroups_.Sync(state_); }

  // Incremental world steps (for `basalt simulate`): after the first world
  // step, only pods known to have changed are examined — pods bound or evicted
  // by a cycle, pods marked through `MarkDeleting`, and Running pods with a
  // finish-after-steps annotation — instead of every pod in the store. The
  // caller promises to mark every pod it deletes gracefully through
  // `MarkDeleting` and to bind none itself. Off by default: a full scan
  // catches any change.
  void set_incremental(bool on) { incremental_ = on; }
  // Marks a bound pod deleting (it disappears at the next world step).
  void MarkDeleting(const std::string& key);

  // The objects and pod additions of the vcjob plugins (ssh, svc, env).
  const JobPluginController& job_plugins() const { return job_plugins_; }
  // Whether a Running pod is counting down its finish-after-steps: a world
  // step changes it even when nothing else moves (the simulator's idle skip).
  bool has_running_timers() const { return !running_steps_.empty(); }

  // Simulated time in seconds.
  int64_t now() const { return now_; }
  void set_now(int64_t now) { now_ = now; }
  void set_step_seconds(int64_t s) { step_seconds_ = s; }

 private:
  // Returns whether the store changed.
  bool ApplyDecisions(const Decisions& d);
  // Finishes Running pods whose `basalt.io/finish-after-steps` ran out and
  // starts bound pods; returns (pod key, old phase) for every change. With
  // `candidates`, only those pods (in key order) are examined.
  std::vector<std::pair<std::string, std::string>> ProgressPods(
      const std::set<std::string>* candidates);
  void ConsumeCommands();

  ClusterState& state_;
  const SchedulerConfig& conf_;
  const PluginRegistry& plugins_;
  const ActionRegistry& action_registry_;
  SessionOptions options_;
  // The previous cycle's snapshot, patched by the next cycle.
  SnapshotCache snapshot_cache_;
  std::vector<std::unique_ptr<Action>> actions_;
  JobController jobs_;
  JobFlowController jobflows_;
  CronJobController cronjobs_;
  JobPluginController job_plugins_;
  PodGroupController podgroups_;
  QueueController queues_;
  int64_t cycle_ = 0;
  int64_t now_ = 0;
  int64_t step_seconds_ = 1;
  // World steps each pod with a finish-after-steps annotation has spent
  // Running; pods that are not Running drop out, so a re-created pod starts
  // again from zero. Pods without the annotation are not tracked (the
  // simulator's thousands of pods would rebuild this map every step).
  std::map<std::string, int64_t> running_steps_;
  bool incremental_ = false;
  bool stepped_ = false;                  // a world step ran (the first one scans everything)
  std::set<std::string> maybe_deleting_;  // incremental: pods marked deleting since the last step
  std::set<std::string> maybe_started_;   // incremental: pods bound since the last step
};

}  // namespace basalt
