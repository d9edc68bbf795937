// Snapshot: the session's view of the store (tasks, jobs, nodes, queues and
// their indexes), as one value.
//
// Built in full from the store (`Snapshot::Build`), or patched from the
// snapshot of a previous session on the same store (`Patch`, driven by
// framework/snapshot_cache.h). Both derive tasks and jobs with one
// SnapshotBuilder (framework/snapshot_builder.h), so they agree by
// construction; a patched snapshot equals a full build (`operator==`), which
// sessions with `check_invariants` verify, naming the first differing field
// (`DescribeSnapshotDifference`) when it does not.
//
// A session borrows its snapshot (from the cache, or from its own full build)
// and changes it in place; the cache owns it between sessions.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/types.h"
#include "state/cluster_state.h"

namespace basalt {

// What decides which store objects a snapshot takes part in: pods of these
// scheduler names, and the queue of a PodGroup that names none.
struct SnapshotScope {
  const std::set<std::string>& scheduler_names;
  const std::string& default_queue;
};

// What changed since a snapshot was built, for `Snapshot::Patch`.
struct SnapshotChanges {
  std::vector<std::string> pod_keys;    // pods the store changed (any order, repeats allowed)
  std::vector<std::string> group_keys;  // PodGroups the store changed
  std::vector<TaskId> touched_tasks;    // tasks a session moved (status, node)
  std::vector<NodeId> touched_nodes;    // nodes whose bookkeeping a session changed
};

struct Snapshot {
  std::vector<TaskInfo> tasks;  // in key order
  std::vector<JobInfo> jobs;    // in key order
  std::vector<NodeInfo> nodes;  // in name order
  std::vector<QueueInfo> queues;
  std::map<std::string, NodeId, std::less<>> node_index;
  std::map<std::string, QueueId, std::less<>> queue_index;
  Resource total_resource;  // sum of all nodes' allocatable
  // Our pods naming a PodGroup the snapshot lacks (pod key -> "ns/group"):
  // when that group appears, a patch derives them again to join it.
  std::map<std::string, std::string> orphans;

  // The whole store, read afresh.
  static Snapshot Build(const ClusterState& state, const SnapshotScope& scope);
  // Brings a snapshot of `state` up to date: derives again the pods and
  // PodGroups in `changes` and the tasks a session moved, re-reads the queues
  // (same names, same order: the caller checks), resets the per-session job
  // fields and sums again the totals of the nodes and jobs that changed.
  // `spare_tasks` is a buffer a patch that adds or removes tasks merges into.
  void Patch(const ClusterState& state, const SnapshotScope& scope, SnapshotChanges changes,
             std::vector<TaskInfo>* spare_tasks);

  // The node's totals with no task counted: idle is allocatable, the rest zero.
  static void ResetNodeTotals(NodeInfo& node);
  // The node's resource totals with `task` added (not its task list).
  static void AddToNodeTotals(NodeInfo& node, const TaskInfo& task);
  // The job's counters with `task` added (not its task list).
  static void AddToJobTotals(JobInfo& job, const TaskInfo& task);

  bool operator==(const Snapshot&) const = default;
};

// Names the first field where `patched` and `full` differ ("" when none does).
std::string DescribeSnapshotDifference(const Snapshot& patched, const Snapshot& full);

}  // namespace basalt
