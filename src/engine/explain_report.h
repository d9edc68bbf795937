// What `basalt explain` found out about one pod, vcjob or PodGroup: plain data,
// filled by the session probe (engine/explain_probe.h) and printed as text or JSON
// by cli/explain.cc. Every list is in a deterministic order (documented per
// field) so the same input always prints the same report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/resource.h"

namespace basalt {

// An event the explained session recorded about the target's PodGroup, one of
// its pods or its queue, with the action that recorded it ("close" for the
// events of session close: the gang's Unschedulable and FailedScheduling).
struct ExplainEvent {
  std::string action;
  std::string object, type, reason, message;
  // The plugin the event is known to come from ("" when it cannot be told).
  std::string plugin;
  // For an enqueue refusal: the comparison that refused, with its numbers
  // (framework/vote_notes.h); "" when the plugin noted none.
  std::string numbers;
};

// Nodes that refuse a task for the same reasons.
struct NodeGroupFit {
  std::vector<std::string> reasons;  // sorted
  std::vector<std::string> nodes;    // snapshot (name) order
};

// The dimensions a task lacks on the node closest to fitting it, among nodes
// whose predicates pass (only capacity is missing there).
struct MissingCapacity {
  std::string node;
  Resource missing;  // request - (idle + releasing - pipelined), positive parts only
};

struct TaskExplanation {
  std::string pod;     // ns/name
  std::string status;  // at session close: Pending, Pipelined, Binding, Running, ...
  std::string node;    // the node it is bound, running or pipelined on ("" when none)
  Resource request;
  // The session's own FailedScheduling message for the pod ("" when none).
  std::string failed_scheduling;
  // Only for tasks still Pending at close, on the node state after the
  // session's actions: nodes grouped by their reasons (resource shortfall
  // against idle+releasing-pipelined first, then every failing predicate), the
  // groups with most nodes first, ties by reasons. `fitting_nodes` counts the
  // nodes that refuse nothing.
  std::vector<NodeGroupFit> node_groups;
  int64_t fitting_nodes = 0;
  std::string pre_predicate;      // a task-level refusal (pre-predicate), "" when none
  bool queue_allocatable = true;  // false: the queue's Allocatable vote refuses it
  std::optional<MissingCapacity> closest_node;
};

struct QueueFacts {
  std::string name;
  bool exists = true;
  std::string state;  // Open, Closed, Closing, Unknown
  int32_t weight = 1;
  int32_t priority = 0;
  bool reclaimable = true;
  std::optional<Resource> capability, deserved, guarantee;
  // At session open: what the queue's admitted jobs hold and reserve.
  Resource allocated;  // requests of the tasks counting against the queue
  Resource inqueue;    // minResources of its Inqueue PodGroups
};

// A pod that preempt or reclaim evicts for the target.
struct ExplainVictim {
  std::string pod, node, queue, podgroup, action;
};

struct WhatIf {
  std::vector<std::string> actions;    // the actions run on top of the configured ones
  std::vector<ExplainVictim> victims;  // in eviction order
  // Target pods pipelined onto the room the victims free: (pod, node).
  std::vector<std::pair<std::string, std::string>> placements;
  bool admits = false;  // the target reaches minAvailable (placed + pipelined)
};

// Cluster-wide numbers at session open (what overcommit compares).
struct ClusterFacts {
  Resource allocatable;  // sum over nodes
  Resource used;         // requests placed on nodes
  Resource inqueue;      // minResources of every Inqueue PodGroup
};

struct ExplainReport {
  std::string kind;   // Pod, Job or PodGroup (as asked)
  std::string name;   // ns/name (as asked)
  int64_t cycle = 1;  // the session explained (1 = the first one on the input)
  // What the session does with the target: Pending, Pipelined, Bound (a bind
  // issued this session), Running (already placed before), Completed,
  // NotCreated (a vcjob whose pods do not exist yet), PodGroupMissing (a pod
  // whose group annotation names a PodGroup that does not exist), Ignored
  // (not ours).
  std::string verdict;
  std::string ignored_because;  // for Ignored
  // Explained on a live cluster: the report is what basalt's controllers and
  // next cycle would do on the cluster as listed, not what the cluster holds
  // (pods it would bind are not bound; no later cycle is simulated).
  bool live = false;

  std::string podgroup;  // ns/name; "" when none
  std::string phase_before, phase_after;
  int32_t min_member = 0;
  std::optional<Resource> min_resources;
  QueueFacts queue;
  ClusterFacts cluster;

  // enqueue: whether it ran on this PodGroup (it was Pending), and its answer.
  bool enqueue_considered = false;
  bool enqueue_admitted = false;
  std::vector<ExplainEvent> enqueue_rejections;  // events enqueue recorded on the PodGroup or queue

  // Gang: tasks already placed (ready or pipelined at session open), tasks the
  // session places, and how many could be placed on the nodes as they are at
  // session close (each pending task tried in task order in a discarded
  // statement).
  int32_t tasks_total = 0;
  int32_t placed_before = 0;
  int32_t placed_after = 0;
  int32_t placeable = 0;
  // The job's network topology constraint as allocate reads it ("hard, highest
  // tier 1"; "" without one), and allocate's reason when no HyperNode held the
  // gang (docs/topology.md). `placeable` ignores the constraint.
  std::string network_topology;
  std::string network_topology_reason;

  std::vector<TaskExplanation> tasks;  // by pod name
  std::vector<ExplainEvent> events;    // in issue order, duplicates removed
  // Evictions the session itself issues for the target (preempt/reclaim configured).
  std::vector<ExplainVictim> session_victims;
  std::optional<WhatIf> what_if;
  // "What would let it run", one sentence each, most direct first.
  std::vector<std::string> hints;
};

}  // namespace basalt
