// Session: one scheduling cycle over a snapshot of the cluster.
//
// Start here when reading basalt: this file, then framework/plugin.h, then
// actions/allocate.cc.
//
// Life of a session:
//   1. `Session::Open` borrows the snapshot (tasks, jobs, nodes, queues;
//      framework/snapshot.h) from the snapshot cache, or builds it from the
//      store, then builds each configured plugin and calls its OnSessionOpen,
//      in tier order; plugins register extension-point functions.
//   2. Actions run in the configured order (`Run`); they change session state
//      only through `Statement` (framework/statement.h), which keeps node
//      bookkeeping, job counters and plugin event handlers in step.
//   3. `Close` runs plugins' OnSessionClose, computes PodGroup phases and
//      queue allocations, and returns the cycle's `Decisions`.
//
// Determinism: every order is total. Comparators fall back to creation time then
// key; node-score ties go to the node earliest in name order.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/status.h"
#include "framework/action.h"
#include "framework/config.h"
#include "framework/hypernode_tree.h"
#include "framework/invariants.h"
#include "framework/plugin.h"
#include "framework/snapshot.h"
#include "framework/subgroups.h"
#include "framework/types.h"
#include "state/cluster_state.h"

namespace basalt {

class SnapshotCache;

// ---- extension-point vocabulary ----

enum class Vote { kAbstain, kPermit, kReject };

struct PredicateStatus {
  enum class Code { kSuccess, kUnschedulable, kUnresolvable, kError };
  Code code = Code::kSuccess;
  std::vector<std::string> reasons;

  static PredicateStatus Success() { return {}; }
  static PredicateStatus Unschedulable(std::string reason) {
    return {Code::kUnschedulable, {std::move(reason)}};
  }
  static PredicateStatus Unresolvable(std::string reason) {
    return {Code::kUnresolvable, {std::move(reason)}};
  }
  bool ok() const { return code == Code::kSuccess; }
};

struct ValidateResult {
  std::string reason;
  std::string message;
};

// Comparators return <0 when `a` goes first, >0 when `b` does, 0 to abstain.
using JobOrderFn = std::function<int(const JobInfo& a, const JobInfo& b)>;
using QueueOrderFn = std::function<int(const QueueInfo& a, const QueueInfo& b)>;
using TaskOrderFn = std::function<int(const TaskInfo& a, const TaskInfo& b)>;
// Victim queue order: which of two victim queues loses first, given the reclaimer's queue.
using VictimQueueOrderFn =
    std::function<int(const QueueInfo& a, const QueueInfo& b, const QueueInfo& reclaimer)>;
using PrePredicateFn = std::function<PredicateStatus(const TaskInfo& task)>;
using PredicateFn = std::function<PredicateStatus(const TaskInfo& task, const NodeInfo& node)>;
using NodeOrderFn = std::function<double(const TaskInfo& task, const NodeInfo& node)>;
// Scores for every node of `nodes`, in the same order.
using BatchNodeOrderFn = std::function<std::vector<double>(
    const TaskInfo& task, const std::vector<const NodeInfo*>& nodes)>;
// Returns the victims among `candidates` and a vote (see `Preemptable`).
using EvictableFn = std::function<std::pair<std::vector<const TaskInfo*>, Vote>(
    const TaskInfo& preemptor, const std::vector<const TaskInfo*>& candidates)>;
using QueueFn = std::function<bool(const QueueInfo& queue)>;
using QueueTaskFn = std::function<bool(const QueueInfo& queue, const TaskInfo& task)>;
using JobValidFn = std::function<std::optional<ValidateResult>(const JobInfo& job)>;
using JobFn = std::function<bool(const JobInfo& job)>;
using JobVoteFn = std::function<Vote(const JobInfo& job)>;
using JobNotifyFn = std::function<void(const JobInfo& job)>;
// Scores for every HyperNode of `hypernodes` (a topology-constrained job's
// candidates), in the same order: the higher, the sooner allocate tries it.
using HyperNodeOrderFn = std::function<std::vector<double>(
    const JobInfo& job, const std::vector<HyperNodeId>& hypernodes)>;
using VictimTasksFn =
    std::function<std::vector<const TaskInfo*>(const std::vector<const TaskInfo*>& running)>;

// Called after a task starts or stops counting against its node and queue
// (allocate/pipeline/unevict -> allocate; evict/unpipeline/unallocate -> deallocate).
struct EventHandler {
  std::function<void(const TaskInfo& task)> allocate;
  std::function<void(const TaskInfo& task)> deallocate;
};

// Adds the annotations a plugin wants written onto a pod when it is bound
// (called once per bind decision, after the task's last allocate event).
using BindAnnotationsFn =
    std::function<void(const TaskInfo& task, std::map<std::string, std::string>* annotations)>;

// ---- what a cycle decides ----

struct BindDecision {
  std::string pod, node;
  // Annotations the front end writes onto the pod together with the bind (the
  // GPU cards deviceshare assigned, as Volcano's device plugins read them).
  // Empty for most pods; not part of `basalt schedule`'s JSON output.
  std::map<std::string, std::string> annotations;
};
struct EvictDecision {
  std::string pod, action, reason;
};
struct EventRecord {
  std::string object, type, reason, message;
};
struct PipelineDecision {
  std::string pod, node;
  bool nominate = false;
};

struct Decisions {
  std::vector<BindDecision> binds;                       // in issue order
  std::vector<EvictDecision> evictions;                  // in issue order
  std::vector<EventRecord> events;                       // in issue order
  std::vector<PipelineDecision> pipelined;               // tasks still pipelined at close
  std::map<std::string, PodGroupPhase> podgroup_phases;  // every job of the session
  std::map<std::string, Resource> queue_allocated;       // every queue
};

struct SessionOptions {
  std::set<std::string> scheduler_names = {"volcano"};
  std::string default_queue = "default";
  int64_t cycle = 1;
  // Runs the checks of framework/invariants.h after every action. Off by
  // default (they cost a pass over the snapshot per action); tests, the random
  // cycle runner and `basalt schedule --check-invariants` turn it on.
  bool check_invariants = false;
  // Receives a violation; when unset, a violation aborts with its message.
  InvariantViolationFn on_invariant_violation;
  // Node selection by the straightforward reference path: every feasible node
  // is scored for every task and preempt/reclaim filter every node up front.
  // The default (false) uses the per-equivalence-class indexes of
  // actions/node_selection.h, which make the same decisions (tests compare
  // them byte for byte).
  bool reference_node_selection = false;
  // The session's clock, seconds since the epoch. Injected (never read from the
  // system clock) so the same input gives the same decisions: `basalt schedule`
  // and the simulator pass their simulated time, `basalt serve` the wall clock.
  // Plugins that reason about waiting time (sla) read it.
  int64_t now = 0;
  // When set, the session patches the snapshot this cache kept from the
  // previous session instead of building it in full, and gives it back when it
  // ends (framework/snapshot_cache.h). The front ends that run cycle after
  // cycle on one store (simulate, serve, bench) pass one.
  SnapshotCache* snapshot_cache = nullptr;
  // Compares every patched snapshot with a full build; a difference is
  // reported as an invariant violation. Also on with `check_invariants`.
  bool verify_snapshot_cache = false;
  // Records events (Decisions::events: "why pending" per pod, gang and quota
  // messages). The simulator, which reports none, turns it off: composing a
  // message for every pending pod of every cycle is much of its cycle cost.
  bool record_events = true;
};

class Statement;

class Session {
 public:
  // Builds the snapshot and opens every configured plugin. Fails on a plugin
  // that rejects its arguments.
  static Result<std::unique_ptr<Session>> Open(const ClusterState& state,
                                               const SchedulerConfig& conf,
                                               const PluginRegistry& plugins,
                                               const SessionOptions& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs one action (skipping nothing: the config decides which run).
  void Run(Action& action);
  // Runs plugins' close hooks and computes the cycle's decisions.
  Decisions Close();

  // ---- snapshot ----
  std::vector<TaskInfo>& tasks() { return snap_->tasks; }
  std::vector<JobInfo>& jobs() { return snap_->jobs; }
  std::vector<NodeInfo>& nodes() { return snap_->nodes; }
  std::vector<QueueInfo>& queues() { return snap_->queues; }
  const std::vector<TaskInfo>& tasks() const { return snap_->tasks; }
  const std::vector<JobInfo>& jobs() const { return snap_->jobs; }
  const std::vector<NodeInfo>& nodes() const { return snap_->nodes; }
  const std::vector<QueueInfo>& queues() const { return snap_->queues; }
  TaskInfo& task(TaskId id) { return snap_->tasks[id]; }
  JobInfo& job(JobId id) { return snap_->jobs[id]; }
  NodeInfo& node(NodeId id) { return snap_->nodes[id]; }
  QueueInfo& queue(QueueId id) { return snap_->queues[id]; }
  const TaskInfo& task(TaskId id) const { return snap_->tasks[id]; }
  const JobInfo& job(JobId id) const { return snap_->jobs[id]; }
  const NodeInfo& node(NodeId id) const { return snap_->nodes[id]; }
  const QueueInfo& queue(QueueId id) const { return snap_->queues[id]; }
  const ClusterState& state() const { return state_; }
  const SchedulerConfig& config() const { return conf_; }
  const SessionOptions& options() const { return options_; }
  // Decisions issued so far (binds, evictions, events), for invariant checks.
  const Decisions& decisions() const { return decisions_; }
  // The invariant checker's state (framework/invariants.h).
  const InvariantTracker& invariants() const { return invariants_; }
  // Sum of all nodes' allocatable.
  const Resource& total_resource() const { return snap_->total_resource; }
  // The HyperNodes over the snapshot's nodes (empty when the store has none).
  const HyperNodeTree& hypernodes() const { return hypernode_tree_; }
  // The SubGroups of jobs with a spec.subGroupPolicy (framework/subgroups.h).
  const SubGroupIndex& subgroups() const { return subgroups_; }
  std::optional<NodeId> FindNode(const std::string& name) const;
  std::optional<QueueId> FindQueue(const std::string& name) const;
  // Value of a PriorityClass, if it exists.
  std::optional<int32_t> PriorityClassValue(const std::string& name) const;

  // ---- registration (only from Plugin::OnSessionOpen) ----
  void AddJobOrderFn(JobOrderFn fn);
  void AddQueueOrderFn(QueueOrderFn fn);
  void AddTaskOrderFn(TaskOrderFn fn);
  void AddVictimQueueOrderFn(VictimQueueOrderFn fn);
  void AddPrePredicateFn(PrePredicateFn fn);
  void AddPredicateFn(PredicateFn fn);
  void AddNodeOrderFn(NodeOrderFn fn);
  // `subset_uniform`: the function promises that its scores depend only on the
  // task's equivalence class and the nodes' objects (not on placements), and
  // that when it gives every node of a set one score it gives that score to
  // every node of every subset (e.g. a score normalised by the maximum over the
  // set). Node selection then scores a node once per class and node change
  // instead of once per task (actions/node_selection.h).
  void AddBatchNodeOrderFn(BatchNodeOrderFn fn, bool subset_uniform = false);
  void AddPreemptableFn(EvictableFn fn);
  void AddReclaimableFn(EvictableFn fn);
  void AddOverusedFn(QueueFn fn);
  void AddPreemptiveFn(QueueTaskFn fn);
  void AddAllocatableFn(QueueTaskFn fn);
  void AddJobValidFn(JobValidFn fn);
  void AddJobReadyFn(JobFn fn);
  void AddJobPipelinedFn(JobVoteFn fn);
  void AddJobEnqueueableFn(JobVoteFn fn);
  void AddJobEnqueuedFn(JobNotifyFn fn);
  void AddJobStarvingFn(JobFn fn);
  void AddVictimTasksFn(VictimTasksFn fn);
  void AddHyperNodeOrderFn(HyperNodeOrderFn fn);
  void AddEventHandler(EventHandler handler);
  // The plugin places topology-constrained jobs and SubGroups inside
  // HyperNodes (Volcano's HyperNode gradient functions; switch
  // enabledHyperNodeGradient). Without such a plugin the HyperNodes constrain
  // nothing: `networkTopology` is read as absent (hypernode_tree.h).
  void AddHyperNodeGradient();
  // Not gated by a switch: every registered function is asked for every bind.
  void AddBindAnnotationsFn(BindAnnotationsFn fn);

  // ---- dispatch (tier rules of docs/semantics/session.md) ----
  // Orders: first plugin with a non-zero answer decides; then the fallback.
  bool JobOrderLess(const JobInfo& a, const JobInfo& b) const;  // fallback: creation, key
  // The job order plugins' answer alone (<0: a first, 0: no plugin tells them apart).
  int JobOrderCompare(const JobInfo& a, const JobInfo& b) const;
  bool QueueOrderLess(const QueueInfo& a, const QueueInfo& b) const;  // fallback: creation, name
  bool TaskOrderLess(const TaskInfo& a,
                     const TaskInfo& b) const;  // fallback: name index, creation, key
  // True when victim queue `a` loses before `b` (fallback: reverse QueueOrder).
  bool VictimQueueOrderLess(const QueueInfo& a, const QueueInfo& b,
                            const QueueInfo& reclaimer) const;
  // True when victim `a` is evicted before `b` for a preemptor of
  // `preemptor_queue` (Volcano's victim queue): a pod without a job first;
  // pods of different queues by the victim-queue order; pods of jobs
  // of one queue, the later job first (job order with its fallback); pods of
  // one job, the later in task order first.
  bool VictimOrderLess(const TaskInfo& a, const TaskInfo& b,
                       const QueueInfo& preemptor_queue) const;
  // All must pass; the first failure is returned.
  PredicateStatus PrePredicate(const TaskInfo& task) const;
  PredicateStatus Predicate(const TaskInfo& task, const NodeInfo& node) const;
  bool HasPredicates() const;
  // Sum of map scores of every enabled plugin.
  double NodeOrderScore(const TaskInfo& task, const NodeInfo& node) const;
  // Map + batch scores for `nodes`, in order.
  std::vector<double> NodeScores(const TaskInfo& task,
                                 const std::vector<const NodeInfo*>& nodes) const;
  // Per-class score caching. True when every enabled batch node-order function
  // is subset-uniform and gives all nodes one score for `task`; `constants`
  // then holds those scores (one per enabled batch function, in slot order).
  bool UniformBatchScores(const TaskInfo& task, std::vector<double>* constants) const;
  // The score `NodeScores` gives `node` (bit for bit) when the batch functions
  // give `constants` (from UniformBatchScores).
  double NodeScoreWith(const TaskInfo& task, const NodeInfo& node,
                       const std::vector<double>& constants) const;
  // Victim voting with tier fall-through (docs/semantics/session.md).
  std::vector<const TaskInfo*> Preemptable(const TaskInfo& preemptor,
                                           const std::vector<const TaskInfo*>& cands) const;
  std::vector<const TaskInfo*> Reclaimable(const TaskInfo& reclaimer,
                                           const std::vector<const TaskInfo*>& cands) const;
  // The victim vote (Reclaimable when `reclaim`, else Preemptable) with the
  // plugin named `skipped` left out. Gang-aware eviction keeps gangs whole
  // itself (a victim gang keeps minMember or loses every pod), which replaces
  // the gang plugin's rule of at most Ready - minMember pods per job.
  std::vector<const TaskInfo*> VictimVoteWithout(const TaskInfo& evictor,
                                                 const std::vector<const TaskInfo*>& cands,
                                                 bool reclaim, std::string_view skipped) const;
  bool Overused(const QueueInfo& q) const;                        // OR
  bool Preemptive(const QueueInfo& q, const TaskInfo& t) const;   // AND
  bool Allocatable(const QueueInfo& q, const TaskInfo& t) const;  // AND
  std::optional<ValidateResult> JobValid(const JobInfo& job) const;
  bool JobReady(const JobInfo& job) const;      // AND over all; none -> true
  bool JobPipelined(const JobInfo& job) const;  // Permit/Abstain/Reject voting
  bool JobEnqueueable(const JobInfo& job) const;
  void JobEnqueued(const JobInfo& job);
  bool JobStarving(const JobInfo& job) const;  // first tier with a function; none -> false
  std::vector<const TaskInfo*> VictimTasks(const std::vector<const TaskInfo*>& running) const;
  // Sum of the HyperNode-order scores of every plugin with enabledHyperNodeOrder.
  std::vector<double> HyperNodeScores(const JobInfo& job,
                                      const std::vector<HyperNodeId>& hypernodes) const;

  // ---- the plugins' own hooks (framework/plugin.h) ----
  // Every plugin's Plugin::CheckInvariants, in configuration order.
  void CheckPluginInvariants(std::vector<std::string>* violations) const;
  // Whether `plugin`'s configuration entry has `sw` on.
  bool PluginEnabled(const Plugin& plugin, Switch sw) const;
  // True when `plugin` alone decides the victim vote of `sw` (kPreemptable or
  // kReclaimable): it votes, and every other voter (a plugin with the switch on
  // that registered the function) sits in its tier before it. The tier rules
  // of victim voting (Preemptable, Reclaimable) then give victims that are a
  // subset of its own answer; a voter in an earlier tier, or after it in its tier, could choose
  // victims it refused.
  bool DecidesVictimsAlone(const Plugin& plugin, Switch sw) const;

  // ---- state changes: through Statement (framework/statement.h) ----
  // Records an event for the operator ("Pod/ns/name" or "PodGroup/ns/name").
  void RecordEvent(std::string object, std::string type, std::string reason, std::string message);

  int64_t cycle() const { return options_.cycle; }

  // Every change of a node's bookkeeping appends the node's id here, so caches
  // keyed on node state can re-check only the nodes changed since they looked.
  const std::vector<NodeId>& node_change_log() const { return node_change_log_; }

 private:
  // The only writer of task placements and statuses.
  friend class Statement;
  // Tests that corrupt the bookkeeping on purpose, to see the invariant checks catch it.
  friend struct SessionTestAccess;
  struct Slot;  // one configured plugin and the functions it registered
  Session(const ClusterState& state, const SchedulerConfig& conf, SessionOptions options);
  // A Warning event for each PodGroup whose queue does not exist.
  void ReportGroupsWithoutQueue();
  // Borrows the cache's snapshot (patched) when the options name a free cache,
  // else builds one in full.
  void BuildSnapshot();
  // Compares the patched snapshot with a full build (with check_invariants).
  Status VerifyPatchedSnapshot() const;
  void ReturnSnapshotToCache();
  // ---- state-change primitives (Statement) ----
  // Moves a task to `status` (node stays). Keeps job counters and node bookkeeping.
  void UpdateTaskStatus(TaskInfo& task, TaskStatus status);
  // Binds every Allocated task of the job (status -> Binding, a bind decision each).
  void DispatchJob(JobInfo& job);
  // Node-level placement: the task joins or leaves the node's list and totals.
  void PlaceTask(TaskInfo& task, NodeInfo& node, TaskStatus status);
  void UnplaceTask(TaskInfo& task);
  // Plugins observe placements through their event handlers.
  void FireAllocate(const TaskInfo& task);
  void FireDeallocate(const TaskInfo& task);
  void NodeAdd(NodeInfo& node, const TaskInfo& task);
  void NodeRemove(NodeInfo& node, const TaskInfo& task);
  Slot& Current();
  std::vector<const TaskInfo*> VoteVictims(const TaskInfo& t,
                                           const std::vector<const TaskInfo*>& cands, bool reclaim,
                                           std::string_view skipped = {}) const;
  void ComputeClose(Decisions& d);
  // Moves an Allocated task to Binding and records its bind decision (with the
  // annotations of every BindAnnotationsFn).
  void IssueBind(TaskInfo& task);

  const ClusterState& state_;
  const SchedulerConfig& conf_;
  SessionOptions options_;
  // The snapshot the session reads and changes: the cache's while borrowed,
  // else `own_snapshot_`.
  Snapshot own_snapshot_;
  Snapshot* snap_ = &own_snapshot_;
  HyperNodeTree hypernode_tree_;
  SubGroupIndex subgroups_;
  std::vector<std::unique_ptr<Slot>> slots_;
  int current_slot_ = -1;
  std::vector<EventHandler> handlers_;
  std::vector<BindAnnotationsFn> bind_annotation_fns_;
  Decisions decisions_;
  std::vector<NodeId> node_change_log_;
  // Tasks whose status or node this session changed (for the snapshot cache).
  std::vector<TaskId> touched_tasks_;
  SnapshotCache* cache_ = nullptr;  // set while this session holds the cache's snapshot
  InvariantTracker invariants_;
};

}  // namespace basalt
