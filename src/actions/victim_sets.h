// Gang-aware eviction (docs/topology.md, "Eviction for a gang"): preempt and
// reclaim choose, for a whole starving gang at once, the smallest set of
// victims after whose eviction every pod the gang still needs fits inside one
// allowed domain (a HyperNode within the job's highest allowed tier, or the
// whole cluster for a job without a hard constraint).
//
// Victims come in units: a single pod its gang can spare (the gang keeps
// minMember and every role minimum), or a whole gang (every running pod of
// it, inside the domain or not). Units are never split, so no victim gang is
// left running below its minimum. Among the unit sets that make room, the
// cheapest wins: fewest pods, then the lowest highest victim priority, then
// the lowest sum of priorities, then the least running time lost (time since
// the victims were created). A set is never bigger than needed: after it is
// found, every unit whose removal still leaves room is dropped, so a gang
// that needs one pod's room takes one pod, however big the victim gang.
//
// The plan is decided as a unit: the caller evicts its victims and pipelines
// every needed pod in one statement, or changes nothing.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/arguments.h"
#include "framework/session.h"
#include "framework/statement.h"

namespace basalt {

struct GangEvictionOptions {
  bool allow_whole_gangs = true;  // Volcano's allowWholeBundle
  int64_t max_domains = 0;        // Volcano's maxDomains: domains tried per gang; 0: every one
};

struct GangEvictionRequest {
  JobInfo* job = nullptr;
  bool reclaim = false;  // the Reclaimable vote and Running victims (else Preemptable, Bound too)
  // The running tasks the action may take at all (queue, job, preemptable).
  std::function<bool(const TaskInfo&)> may_take;
  GangEvictionOptions options;
};

struct GangEvictionPlan {
  std::vector<const TaskInfo*> victims;               // in eviction order
  std::vector<std::pair<TaskId, NodeId>> placements;  // the needed pods, in task order
  HyperNodeId domain = kNone;                         // kNone: the whole cluster
};

// Reads the arguments of Volcano's gangpreempt and gangreclaim actions into
// `out` when `gang_aware`: maxDomains (int, default 8; <= 0 keeps 8) and
// allowWholeBundle (bool, default true). Otherwise every domain is tried and
// whole gangs may be taken.
Status ReadGangEvictionArguments(const Arguments& args, bool gang_aware, GangEvictionOptions* out);

// Which jobs gang-aware eviction serves: a hard or soft topology constraint in
// a cluster with HyperNodes, or every job when `gang_aware` (the gangpreempt
// and gangreclaim actions).
bool UsesGangEviction(const Session& ssn, const JobInfo& job, bool gang_aware);

// The cheapest plan of the first tier (lowest first) whose domains hold one, or
// nullopt when no allowed domain can hold the pods the gang needs.
std::optional<GangEvictionPlan> PlanGangEviction(Session& ssn, const GangEvictionRequest& req);

// How an action commits a plan: its name on the evictions ("preempt"), the
// verb of the victims' reason ("preempted"), the queue's vote on each pod to
// place, and whether pods pipelined onto evicted room nominate their node.
struct GangEvictionCommit {
  std::string_view action;
  std::string_view verb;
  std::function<bool(const TaskInfo&)> queue_allows;
  bool nominate_when_evicting = false;
};

// Evicts the plan's victims and pipelines the gang's needed pods in one
// statement. True when committed; false, with nothing changed, when a pod may
// not be placed (a never-preempting pod that would need evictions, the queue's
// vote, no room left) or the gang would still not be pipelined.
bool CommitGangEvictionPlan(Session& ssn, JobInfo& job, const QueueInfo& queue,
                            const GangEvictionPlan& plan, const GangEvictionCommit& how);

// A human-readable "HyperNode s0" / "the cluster" for reasons and logs.
std::string DomainName(const Session& ssn, HyperNodeId domain);

}  // namespace basalt
