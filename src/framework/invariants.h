// Invariants of a scheduling session, checked after every action
// when `SessionOptions::check_invariants` is on.
//
// A bug is then caught at the action that introduced it, with the action's
// name, the cycle and the object in the message. The checks (docs/reliability.md
// lists them with the Volcano rule each one rests on):
//
//  1. Node bookkeeping: `used`, `idle`, `releasing` and `pipelined` of every node
//     equal the sums over the tasks listed on it by status; every placed task is
//     listed on exactly its node, once.
//  2. No over-commit the session made: per node and dimension, `used` beyond
//     `allocatable` and `FutureIdle` below zero may not exceed what the input
//     snapshot already had. The input can be over-committed (a kubelet accepted
//     pods the scheduler would not place, or a node shrank), and that is data,
//     not a bug; only what the session made worse is flagged.
//  3. Job counters equal the recount of the job's tasks (status counts,
//     `allocated`, `total_request`), and every task's job lists it.
//  4. No pod is bound twice or bound while already on a node at session open,
//     no pod is evicted twice, and every bind/eviction decision matches the
//     task's status (Binding on that node / Releasing).
//  5. Statements: after an action, a job with an Allocated task is not ready
//     (a ready job's allocations are bound at once); after allocate, such a job
//     is also pipelined (allocate keeps only a pipelined gang's statement).
//  6. After allocate, no queue is above `spec.capability` in a dimension that
//     grew during the action, when proportion or capacity enforce Allocatable.
//  7. After reclaim, a queue that lost pods is not below `spec.guarantee`, when
//     capacity alone decides the Reclaimable vote (docs/semantics/session.md: with
//     other voters, a tier without capacity may choose victims on its own).
//  8. After preempt or reclaim, a job whose pods the action evicted still has
//     minMember ready pods, when gang alone decides the corresponding vote.
//  9. Card quotas: capacity-card's per-queue, per-model card use as the
//     plugin counts it equals the recount over the queue's placed pods
//     (allocated statuses and Pipelined), each charged to the first of its
//     models its node offers.
//
// 11. Topology: a hard-constrained job that has pods placed this session
//     (Allocated, Binding or Pipelined) has all its pods on nodes inside one
//     HyperNode of tier at most its highest allowed tier (docs/topology.md).
// 12. SubGroups, after allocate: a SubGroup with a pod bound this session has
//     at least subGroupSize pods ready (none is bound in part), and a SubGroup
//     under a hard networkTopology has its placed pods inside one HyperNode of
//     its allowed tier.
//
// Checks 1-5, 11 and 12 are the framework's. 6-9 belong to plugins and run through their
// `Plugin::CheckInvariants` hook (the helpers below serve them), so the
// framework names no plugin. Session-wide checks (1-4, 9) hold under any
// configuration; 5-8 are conditioned on the action and the configuration so
// that Volcano's own behaviour is never reported.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "api/status.h"
#include "framework/types.h"

namespace basalt {

class Session;

// Called with a violation in a check-enabled session. Without one, the session
// aborts with the violation's message (a CHECK with context): a violated
// invariant means the session state is corrupt and its decisions cannot be trusted.
using InvariantViolationFn = std::function<void(const Status& violation)>;

// State the action-level checks compare against; owned by the session.
class InvariantTracker {
 public:
  // Captures the snapshot at open (first call) and the state before `action`.
  void BeforeAction(const Session& ssn, std::string_view action);
  // Checks every invariant after `action`; returns the first violation, with
  // the action and cycle as context.
  Status AfterAction(const Session& ssn, std::string_view action) const;

  bool initialized() const { return initialized_; }
  // Per node at session open: used beyond allocatable, and FutureIdle below zero
  // (both clamped at zero per dimension).
  const std::vector<Resource>& open_overcommit() const { return open_overcommit_; }
  const std::vector<Resource>& open_future_deficit() const { return open_future_deficit_; }
  // Per task at session open: its status and whether it was on a node.
  const std::vector<bool>& open_on_node() const { return open_on_node_; }
  // The action being checked ("" outside one), and the state before it.
  std::string_view action() const { return action_; }
  const std::vector<TaskStatus>& before_status() const { return before_status_; }
  const std::vector<Resource>& before_queue_usage() const { return before_queue_usage_; }

 private:
  bool initialized_ = false;
  std::vector<Resource> open_overcommit_;
  std::vector<Resource> open_future_deficit_;
  std::vector<bool> open_on_node_;
  // The current action and the state before it.
  std::string action_;
  std::vector<TaskStatus> before_status_;
  std::vector<Resource> before_queue_usage_;
};

// Session-wide invariants (1-4 above), then the plugins' own checks. Over-commit
// is measured against the tracker's snapshot at open when the session has one,
// else against zero.
Status CheckInvariants(const Session& ssn);

// Check 6 for the plugins that enforce queue capability: after allocate, the
// first queue above `spec.capability` in a dimension that grew ("" when none).
std::string CapabilityExceeded(const Session& ssn);

// Check 11: "" or the first hard-constrained job whose placed pods span more
// than its highest allowed tier.
std::string HardTopologyExceeded(const Session& ssn);

// Check 12: "" or the first SubGroup bound in part, or placed beyond its hard
// networkTopology tier.
std::string PartialSubGroup(const Session& ssn);

// The pods the current action evicted, per job, and the queues they left.
struct ActionEvictions {
  std::map<JobId, int> evicted_of_job;
  std::set<QueueId> lost_queues;
};
ActionEvictions EvictionsOfAction(const Session& ssn);

// Per queue: the requests of its jobs' tasks in allocated statuses or
// Pipelined, which is what proportion and capacity count as `allocated`.
std::vector<Resource> QueueUsage(const Session& ssn);

}  // namespace basalt
